"""Ensembles of taggers of one task (section 6.1, Table 10), in NumPy.

A model directory holding `ensemble.json` is an ensemble: member model directories (the
same task and settings trained from different random seeds, so their dictionaries and tag
sets are the same) and how to combine them:

* "vote": each member decodes its own tags and every word takes the tag most members gave
  it (ties: the first member's); span tags are then read as spans and written back as
  IOBES, so the output is always a valid sequence;
* "joined": the paper's "joined" ensemble: a linear layer trained on the members'
  concatenated hidden layers (`senna.train.ensemble`), with its own transition scores,
  stored in `joined.npz`;
* "mean": the members' emissions and transition scores averaged, decoded once.  The only
  combination for sentence-approach (SRL) members, whose output is a path per predicate:
  the averaged scores go through the same constrained decoding as one model's.

`load_tagger` loads either a single model or an ensemble; both have the interface the
pipeline uses (`predict`, and for SRL `predict_role_windows`).  Each member of a "vote" or
"mean" ensemble reads the words through its own features, so a mean ensemble may join
members whose dictionaries differ; the joined layer reads the first member's ids.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from senna.decode.constraints import for_scheme
from senna.decode.viterbi import Decoder
from senna.io.checkpoint import read_config, seal_model
from senna.io.manifest import (
    MANIFEST,
    ManifestError,
    forget_sub_models,
    precheck,
    quiet,
    read_json,
    resolved,
    sub_manifests,
    verify,
    within,
    write_manifest,
)
from senna.io.npz import load_npz
from senna.io.saved_model import ModelError
from senna.runtime import kernels
from senna.runtime.chars import char_tables
from senna.runtime.model import TaskModel
from senna.runtime.parser import ParserModel
from senna.tags import spans_to_tags, tags_to_spans
from senna.tasks import TASKS

ENSEMBLE_FILE = "ensemble.json"
FORMAT = "senna-ensemble"
COMBINE = ("vote", "joined", "mean")
#: Most members an ensemble may have (the shipped one has three; each costs a model's memory).
MAX_MEMBERS = 64


def load_tagger(path: str | os.PathLike) -> TaskModel:
    """A model directory: an ensemble if it holds ensemble.json, else one model (the
    parser's, psg, a `ParserModel`)."""
    path = Path(path)
    task = TASKS.get(folder_task(path) or "")
    if task is not None and task.tree:   # the parser decodes level by level
        if (path / ENSEMBLE_FILE).exists():
            raise ModelError(f"{path}: an ensemble of {task.name} models (not built: the "
                             "parser runs one model)")
        return ParserModel.load(path, load_tagger)
    return EnsembleModel.load(path) if (path / ENSEMBLE_FILE).exists() else TaskModel.load(path)


def model_folders_in(root: Path) -> list[Path]:
    """The folders directly under `root` that hold one model or an ensemble, sorted."""
    return sorted(p.parent for p in {*root.glob("*/config.json"),
                                     *root.glob(f"*/{ENSEMBLE_FILE}")})


def folder_task(path: Path) -> str | None:
    """The task of a model's own folder, which its ensemble.json or config.json names;
    None for a folder that is not one model's (e.g. one holding pos/, chunk/, ...)."""
    if (path / ENSEMBLE_FILE).is_file():
        task = read_spec(path).get("task")
        if not isinstance(task, str):
            raise ModelError(f"{path}/{ENSEMBLE_FILE}: names no task")
        return task
    return read_config(path)["task"] if (path / "config.json").is_file() else None


def folder_config(path: str | os.PathLike) -> dict:
    """config.json of a model's folder (`read_config`); an ensemble's first member's, which
    records the data and settings every member shares."""
    path = Path(path)
    if (path / ENSEMBLE_FILE).is_file():
        path = member_folders(path, read_spec(path))[0]
    return read_config(path)


def read_spec(path: Path) -> dict:
    """An ensemble's ensemble.json, read as every model file is (`read_json`: a regular
    file, bounded in size and nesting), after the folder's manifest checks (`verify`)."""
    file = path / ENSEMBLE_FILE
    try:
        if (path / MANIFEST).exists():   # every listed file checked before any is parsed
            verify(path, [ENSEMBLE_FILE])
        spec = read_json(file)
    except FileNotFoundError:
        raise ModelError(f"{path}: no {ENSEMBLE_FILE}") from None
    except (ManifestError, OSError) as e:
        raise ModelError(f"{file}: unreadable ({e})" if isinstance(e, OSError) else str(e)
                         ) from None
    if not isinstance(spec, dict) or spec.get("format") != FORMAT or spec.get("version") != 1:
        raise ModelError(f"{file}: not a {FORMAT} version 1 file")
    return spec


def member_folders(path: Path, spec: dict) -> list[Path]:
    """The member folders ensemble.json names: distinct relative paths (at most
    MAX_MEMBERS) that lead to folders inside the ensemble's, or for a joint run's
    ensemble (`out/ner/` naming `../seed-1/ner`) inside the folder holding it; a member
    leading anywhere else (another language's model, an absolute path) is refused."""
    file = path / ENSEMBLE_FILE
    members = spec.get("members")
    if not isinstance(members, list) or not members:
        raise ModelError(f"{file}: 'members' must be a non-empty list of member folders")
    if len(members) > MAX_MEMBERS:
        raise ModelError(f"{file}: {len(members):,} members, more than {MAX_MEMBERS}")
    for i, m in enumerate(members):
        if not isinstance(m, str) or not m:
            raise ModelError(f"{file}: members[{i}] must be a folder's name, got {m!r}")
    folders = []
    try:
        for m in members:
            joint = m.startswith("../") and not m.startswith("../../")
            folder = within(path.parent if joint else path, m[3:] if joint else m,
                            "member", file)
            if resolved(folder) in map(resolved, folders):
                raise ModelError(f"{file}: member {m!r} is listed twice")
            folders.append(folder)
    except ManifestError as e:
        raise ModelError(str(e)) from None
    for m, folder in zip(members, folders, strict=True):
        if resolved(folder) == resolved(path) or not folder.is_dir():
            raise ModelError(f"{file}: member {m!r} is not a model's folder")
    return folders


def ensemble_files(path: Path, spec: dict) -> list[str]:
    """What an ensemble's own manifest records: ensemble.json, its joined layer, and the
    manifests of the members inside its folder (each records its files)."""
    joined = [spec["joined"]] if isinstance(spec.get("joined"), str) else []
    return [ENSEMBLE_FILE, *joined, *sub_manifests(path)]


def seal(path: str | os.PathLike) -> None:
    """`senna manifest DIR` for a model or an ensemble: the sub-models inside it first
    (members, the parser's pt0/ and nml/, its own embeddings/ are sealed by their own
    loaders), then DIR itself, loaded with every check, its sub-models recorded as they
    now are."""
    from senna.embeddings import META_FILE, seal_embeddings

    path = Path(path)
    if (path / META_FILE).is_file():
        seal_embeddings(path)
        return
    subs = [path / n.rsplit("/", 1)[0] for n in sub_manifests(path)]
    subs += [d for d in sorted(path.iterdir()) if d.is_dir() and d not in subs and d.name != "vocab"
             and ((d / "config.json").is_file() or (d / ENSEMBLE_FILE).is_file())]
    for sub in subs:
        seal(sub)
    forget_sub_models(path)
    if not (path / ENSEMBLE_FILE).is_file():
        seal_model(path)
        return
    with quiet():
        EnsembleModel.load(path)
    write_manifest(path, ensemble_files(path, read_spec(path)))


def save_ensemble(path: Path, task: str, members: Sequence[str], combine: str, dev: dict,
                  training: dict, joined: str | None = None) -> dict:
    """Write `path`/ensemble.json (members: directories relative to `path`, with the dev
    scores and the training that made them); -> its content."""
    spec = {"format": FORMAT, "version": 1, "task": task, "members": list(members),
            "combine": combine, "joined": joined, "training": training, "dev": dev}
    path.mkdir(parents=True, exist_ok=True)
    (path / ENSEMBLE_FILE).write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    write_manifest(path, ensemble_files(path, spec))
    return spec


def mean_decoder(members: Sequence[TaskModel]) -> Decoder:
    """The decoder of the averaged members: their mean transition and start scores
    (sentence-level members), or none (word-level ones), under the first one's scheme."""
    first = members[0]
    if {m.criterion for m in members} != {first.criterion}:
        raise ModelError("ensemble members differ in criterion (sll / wll)")
    if first.criterion != "sll":
        return Decoder(len(first.tags), None, None, first.constraints)
    return Decoder(len(first.tags), np.mean([m.w["transitions"] for m in members], 0),
                   np.mean([m.w["start"] for m in members], 0), first.constraints)


def columns_read(model: TaskModel) -> list[str]:
    """The input columns (other tasks' tags) a model reads."""
    return [s.arg for s in model.featurizer.specs if s.kind == "column"]


class EnsembleModel(TaskModel):
    """Members of one task combined by vote, by a joining layer or by their mean scores."""

    def __init__(self, members: Sequence[TaskModel], combine: str = "vote",
                 joined: Mapping[str, np.ndarray] | None = None):
        if not members:
            raise ModelError("an ensemble needs at least one member")
        if combine not in COMBINE or (combine == "joined" and joined is None):
            raise ModelError(f"combine must be one of {COMBINE} (joined needs its layer), "
                             f"got {combine!r}")
        first = members[0]
        if any((m.task, m.tags.items, columns_read(m)) !=
               (first.task, first.tags.items, columns_read(first)) for m in members):
            raise ModelError("ensemble members differ in task, tags or the columns they read; "
                             "train them on the same data")
        # Members trained with the same settings share their dictionaries; vote and the
        # joined layer need that, the mean does not.
        self.shared_inputs = all(
            m.featurizer.config() == first.featurizer.config() and all(
                m.featurizer.vocabs[s.name] == first.featurizer.vocabs[s.name]
                for s in first.featurizer.specs) for m in members[1:])
        if not self.shared_inputs and combine != "mean":
            raise ModelError("ensemble members differ in features or dictionaries: only their "
                             "mean scores combine them (combine 'mean'), or train them with "
                             "the same settings")
        if TASKS[first.task].per_predicate and combine != "mean":
            raise ModelError(f"{first.task} members are combined by their mean scores only "
                             f"(one path per predicate), got combine {combine!r}")
        if {(m.cfg.approach, m.cfg.window) for m in members} != \
                {(first.cfg.approach, first.cfg.window)}:
            raise ModelError("ensemble members need the same approach and window")
        if combine == "joined" and first.cfg.approach != "window":
            raise ModelError("a joined ensemble needs window-approach members")
        if {m.language for m in members} != {first.language}:
            raise ModelError("ensemble members were trained on different languages")
        self.language = first.language
        self.members, self.combine = list(members), combine
        self.saved, self.task, self.tags, self.cfg = first.saved, first.task, first.tags, first.cfg
        self.featurizer, self.criterion = first.featurizer, first.criterion
        self.constraints, self.w, self.tables = first.constraints, first.w, None
        for m in self.members[1:] if self.shared_inputs else ():
            m.w.update(char_tables(first.featurizer, m.w))   # the first one's ids, spellings too
        self.scheme = TASKS[self.task].scheme
        self.joined = {k: np.asarray(v, dtype=np.float32) for k, v in (joined or {}).items()}
        if combine == "joined":
            self.decoder = Decoder(len(self.tags), self.joined.get("transitions"),
                                   self.joined.get("start"),
                                   for_scheme(self.tags.items, first.saved.info.get("scheme")))
        else:
            self.decoder = mean_decoder(self.members)
        # Each member's hidden layer: its network with the output layer replaced by identity.
        self._hidden = [{**m.w, "l2.weight": np.eye(m.cfg.top_hidden, dtype=np.float32),
                         "l2.bias": np.zeros(m.cfg.top_hidden, dtype=np.float32)}
                        for m in self.members] if combine == "joined" else []

    @classmethod
    def load(cls, path: str | os.PathLike, combine: str | None = None) -> EnsembleModel:
        """An ensemble's folder: its manifest's sizes and checksums checked before
        ensemble.json is parsed, then its members (`member_folders`) loaded."""
        path = Path(path)
        try:
            spec = read_spec(path)   # with a manifest: every file checked first
            folders = member_folders(path, spec)
            precheck(path, ensemble_files(path, spec))
            members = []
            for m, folder in zip(spec["members"], folders, strict=True):
                members.append(TaskModel.load(folder))
                if members[-1].task != spec.get("task", members[-1].task):
                    raise ModelError(f"{path / ENSEMBLE_FILE}: member {m!r} is a "
                                     f"{members[-1].task} model, the ensemble's task is "
                                     f"{spec['task']}")
            joined = None
            if spec.get("joined"):
                where = within(path, spec["joined"], "joined", path / ENSEMBLE_FILE)
                joined = load_npz(where)   # headers checked first
        except ManifestError as e:
            raise ModelError(str(e)) from None
        except (OSError, ValueError, KeyError, TypeError, EOFError, RuntimeError,
                RecursionError, zipfile.BadZipFile) as e:
            if isinstance(e, ModelError):
                raise
            raise ModelError(f"{path}: incomplete or corrupt ensemble ({e})") from None
        return cls(members, combine or spec.get("combine", "vote"), joined)

    def preload(self) -> None:
        for m in self.members:
            m.preload()

    def hidden_layers(self, ids: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
        """The members' hidden layers side by side: [sum T, M * H]."""
        return np.concatenate([kernels.window_scores(ids, lengths, w, m.cfg)
                               for w, m in zip(self._hidden, self.members, strict=True)], 1)

    def window_net(self, ids: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
        """Encoded words -> the joining layer's emissions [sum T, K]."""
        scores = self.hidden_layers(ids, lengths) @ self.joined["join.weight"].T
        return scores + self.joined["join.bias"]

    def emissions(self, sentences: Sequence[Sequence[str]],
                  columns: Sequence[Mapping[str, Sequence[str]]]) -> np.ndarray:
        """The joining layer's emissions, or the members' mean (vote decodes each member's
        own: `predict`)."""
        if self.combine == "joined":
            return super().emissions(sentences, columns)
        return self._mean([m.emissions(sentences, columns) for m in self.members])

    def role_scores(self, sentences: Sequence[Sequence[str]], predicates: Sequence[Sequence[int]],
                    columns: Sequence[Mapping[str, Sequence[str]]],
                    windows: Sequence[Sequence[tuple[int, int]]] | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
        """SRL: the members' mean role emissions [sum P, N, K] and the windows."""
        found = [m.role_scores(sentences, predicates, columns, windows) for m in self.members]
        return self._mean([scores for scores, _ in found]), found[0][1]

    @staticmethod
    def _mean(scores: list[np.ndarray]) -> np.ndarray:
        out = scores[0]
        for x in scores[1:]:
            out += x
        out /= len(scores)
        return out

    def predict(self, sentences: Sequence[Sequence[str]],
                columns: Sequence[Mapping[str, Sequence[str]]] | None = None) -> list[list[str]]:
        """Sentences of words (+ input columns) -> tags per word, valid sequences."""
        if self.combine != "vote":
            return super().predict(sentences, columns)
        cols = columns or [{}] * len(sentences)
        votes = [m.predict(sentences, cols) for m in self.members]
        return [self.vote([v[i] for v in votes]) for i in range(len(sentences))]

    def vote(self, columns: Sequence[Sequence[str]]) -> list[str]:
        """Per word, the tag most members chose (ties: the earliest member's); span tags
        made a valid IOBES sequence."""
        tags = [Counter(t).most_common(1)[0][0] for t in zip(*columns, strict=True)]
        if self.scheme == "iobes":
            tags = spans_to_tags(tags_to_spans(tags), len(tags), "iobes")
        return tags

