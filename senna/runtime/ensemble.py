"""Ensembles of window-approach taggers of one task (section 6.1, Table 10), in NumPy.

A model directory holding `ensemble.json` is an ensemble: member model directories (the
same task and settings trained from different random seeds, so their dictionaries and tag
sets are the same) and how to combine them:

* "vote": each member decodes its own tags and every word takes the tag most members gave
  it (ties: the first member's); span tags are then read as spans and written back as
  IOBES, so the output is always a valid sequence;
* "joined": the paper's "joined" ensemble: a linear layer trained on the members'
  concatenated hidden layers (`senna.train.ensemble`), with its own transition scores,
  stored in `joined.npz`.

`load_tagger` loads either a single model or an ensemble; both have the interface the
pipeline uses (`batch_emissions`, `decode`, `predict`).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from senna.decode.viterbi import decode, dominance
from senna.io.checkpoint import ModelError
from senna.runtime import kernels
from senna.runtime.model import TaskModel
from senna.tags import spans_to_tags, tags_to_spans
from senna.tasks import TASKS

ENSEMBLE_FILE = "ensemble.json"
FORMAT = "senna-ensemble"
COMBINE = ("vote", "joined")


def load_tagger(path: str | os.PathLike) -> TaskModel | EnsembleModel:
    """A model directory: an ensemble if it holds ensemble.json, else one model."""
    path = Path(path)
    return EnsembleModel.load(path) if (path / ENSEMBLE_FILE).exists() else TaskModel.load(path)


class EnsembleModel:
    """Members of one task combined by vote or by a joining layer."""

    sentence_level = False

    def __init__(self, members: Sequence[TaskModel], combine: str = "vote",
                 joined: Mapping[str, np.ndarray] | None = None):
        if not members:
            raise ModelError("an ensemble needs at least one member")
        if combine not in COMBINE or (combine == "joined" and joined is None):
            raise ModelError(f"combine must be one of {COMBINE} (joined needs its layer), "
                             f"got {combine!r}")
        first = members[0]
        for m in members[1:]:
            if (m.task, m.tags.items, m.featurizer.config()) != \
                    (first.task, first.tags.items, first.featurizer.config()) or any(
                    m.featurizer.vocabs[s.name] != first.featurizer.vocabs[s.name]
                    for s in first.featurizer.specs):
                raise ModelError("ensemble members differ in task, tags, features or "
                                 "dictionaries; train them with the same settings")
        if any(m.sentence_level for m in members):
            raise ModelError("ensembles are of window-approach models only")
        self.members, self.combine = list(members), combine
        self.task, self.tags, self.cfg = first.task, first.tags, first.cfg
        self.featurizer = first.featurizer
        self.scheme = TASKS[self.task].scheme
        self.joined = {k: np.asarray(v, dtype=np.float32) for k, v in (joined or {}).items()}
        self.dom = dominance(self.joined["transitions"]) if "transitions" in self.joined \
            else None
        # Each member's hidden layer: its network with the output layer replaced by identity.
        self._hidden = [{**m.w, "l2.weight": np.eye(m.cfg.hidden, dtype=np.float32),
                         "l2.bias": np.zeros(m.cfg.hidden, dtype=np.float32)}
                        for m in self.members]

    @classmethod
    def load(cls, path: str | os.PathLike, combine: str | None = None) -> EnsembleModel:
        path = Path(path)
        try:
            spec = json.loads((path / ENSEMBLE_FILE).read_text(encoding="utf-8"))
            if spec.get("format") != FORMAT or spec.get("version") != 1:
                raise ModelError(f"{path}/{ENSEMBLE_FILE}: not a {FORMAT} version 1 file")
            members = [TaskModel.load(path / m) for m in spec["members"]]
            joined = None
            if spec.get("joined"):
                with np.load(path / spec["joined"], allow_pickle=False) as z:
                    joined = {k: z[k] for k in z.files}
        except (OSError, ValueError, KeyError, TypeError) as e:
            if isinstance(e, ModelError):
                raise
            raise ModelError(f"{path}: incomplete or corrupt ensemble ({e})") from None
        return cls(members, combine or spec.get("combine", "vote"), joined)

    def hidden_layers(self, ids: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
        """The members' hidden layers side by side: [sum T, M * H]."""
        return np.concatenate([kernels.window_scores(ids, lengths, w, m.cfg)
                               for w, m in zip(self._hidden, self.members, strict=True)], 1)

    def batch_emissions(self, sentences: Sequence[Sequence[str]],
                        columns: Sequence[Mapping[str, Sequence[str]]]) -> list[np.ndarray]:
        """Per sentence: every member's emissions side by side [T, M * K] (vote), or the
        joining layer's emissions [T, K]."""
        lengths = [len(s) for s in sentences]
        ids = self.featurizer.encode_many(sentences, columns)
        if self.combine == "joined":
            scores = self.hidden_layers(ids, lengths) @ self.joined["join.weight"].T
            scores += self.joined["join.bias"]
        else:
            scores = np.concatenate([kernels.window_scores(ids, lengths, m.w, m.cfg)
                                     for m in self.members], 1)
        return np.split(scores, np.cumsum(lengths)[:-1]) if sentences else []

    def decode(self, emissions: list[np.ndarray]) -> list[list[str]]:
        if not emissions:
            return []
        if self.combine == "joined":
            lengths = np.array([len(e) for e in emissions])
            padded = np.zeros((len(emissions), int(lengths.max()), len(self.tags)), np.float32)
            padded[np.arange(padded.shape[1]) < lengths[:, None]] = np.concatenate(emissions)
            return [self.tags.decode(p.tolist()) for p in decode(
                padded, lengths, self.joined.get("transitions"), self.joined.get("start"),
                self.dom)]
        k = len(self.tags)
        votes = [m.decode([e[:, j * k:(j + 1) * k] for e in emissions])
                 for j, m in enumerate(self.members)]
        return [self.vote([v[i] for v in votes]) for i in range(len(emissions))]

    def vote(self, columns: Sequence[Sequence[str]]) -> list[str]:
        """Per word, the tag most members chose (ties: the earliest member's); span tags
        made a valid IOBES sequence."""
        tags = [Counter(t).most_common(1)[0][0] for t in zip(*columns, strict=True)]
        if self.scheme == "iobes":
            tags = spans_to_tags(tags_to_spans(tags), len(tags), "iobes")
        return tags

    # Batching around batch_emissions and decode, the same as a single model's.
    predict = TaskModel.predict
