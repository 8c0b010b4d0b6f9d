"""The tagging cascade, one model directory per task, in the task table's order.

Only the models a request needs are loaded.  A model whose features read another task's
output column (CHUNK and PT0 read `pos`, SRL with the 'senna' preset reads `pt0`, SRL with
'+levels' the parser's tree) gets the upstream model's predictions, as does a task that
`requires` another (SRL needs POS to choose its predicates).  Each window model runs once
over a whole batch of sentences (split only beyond `max_tokens` tokens, to bound memory)
and decodes it in buckets of similar sentence length; SRL takes the
predicates of all sentences together, in buckets of similar length.

A sentence longer than `max_words` (senna.text.pieces.MAX_WORDS, 128) is tagged as its
pieces (`piece_bounds`), each a sentence of its own, and put together again: the words,
tokens and tag columns are the whole sentence's, and a predicate's role column is O outside
its piece.  So memory and time per word are bounded whatever one line holds (SRL costs the
square of its sentence's length), in every entry point: the CLI, the API, tag-corpus and the
server all tag through `annotate`.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from functools import partial
from numbers import Integral
from pathlib import Path

from senna.document import Sentence, Token
from senna.features.kinds import ColumnFeature, LevelFeature
from senna.io.manifest import warn_once
from senna.io.saved_model import ModelError
from senna.runtime.ensemble import load_tagger
from senna.runtime.folders import Folders, default_model_dir, language_models, model_folders
from senna.runtime.model import SRL_EXACT, TaskModel
from senna.runtime.predict import in_documents
from senna.syntax.levels import TREE
from senna.tags import RoleTags
from senna.tasks import (
    ALIASES,
    DEFAULT_TASKS,
    PREDICATE_RULES,
    TASKS,
    normalize_tasks,
)
from senna.text.normalize import PADDING, RARE
from senna.text.pieces import MAX_WORDS, piece_bounds, token_ranges

__all__ = ["DEFAULT_TASKS", "Folders", "Pipeline", "default_model_dir", "language_models",
           "model_folders", "normalize_tasks"]

Columns = dict[str, list[str]]
Roles = dict[int, Sequence[str]]
PIECE = 512   # SRL on long sentences: predicates of this many words share one network pass
SRL_CELLS = 4096  # SRL rows x words per network pass: bounds its memory (about 10 MB)


def _slice(columns: Columns, start: int, end: int, length: int) -> Columns:
    """Input columns of words [start, end) of a sentence of `length` words."""
    if (start, end) == (0, length):
        return columns
    return {k: v[start:end] for k, v in columns.items()}


# Tokens per window-network and Viterbi pass.  Viterbi takes one step per position of the
# batch's longest sentence whatever the batch size, so fewer, larger passes cost less: the
# CLI's 1024-sentence batches (about 15,000 tokens of news or web text) go in one pass, with
# half the Viterbi steps of 8,192-token passes.  The network works in
# chunks of senna.runtime.kernels.CHUNK words, so memory grows only with the emissions
# (32,768 x 50 tags x 4 bytes = 6.5 MB for POS).
MAX_TOKENS = 32768


def length_buckets(lengths: Sequence[int], max_tokens: int, ratio: float = 1.25,
                   slack: int = 4) -> list[list[int]]:
    """Indices grouped by similar length for Viterbi, which pads every sentence to the
    longest: a bucket's lengths stay within ratio*shortest+slack and its padded size
    within `max_tokens`, so decoding costs about sum(T) instead of B * max(T)."""
    buckets: list[list[int]] = []
    first = 0
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        n = lengths[i]
        if buckets and n <= first * ratio + slack and (len(buckets[-1]) + 1) * n <= max_tokens:
            buckets[-1].append(i)
        else:
            buckets.append([i])
            first = n
    return buckets


def _joined(columns: list[Columns], cuts: list[list[tuple[int, int]]]) -> list[Columns]:
    """Pieces' tag columns -> their sentences' (`cuts`: each sentence's pieces).  A
    sentence's first piece's lists grow in place and the others are let go as they are
    read, so that a long sentence's columns are not held twice."""
    out, k = [], 0
    for c in cuts:
        first = columns[k]
        for j in range(k + 1, k + len(c)):
            for name, tags in columns[j].items():
                first[name] += tags
            columns[j] = {}
        out.append(first)
        k += len(c)
    return out


def _joined_roles(roles: list[Roles], cuts: list[list[tuple[int, int]]]) -> list[Roles]:
    """Pieces' role columns -> their sentences': a predicate's column is O outside its
    piece, held in proportion to the piece (`RoleTags`); the pieces' are let go as they
    are read."""
    out, k = [], 0
    for c in cuts:
        if len(c) == 1:
            out.append(roles[k])
        else:
            n, frames = c[-1][1], {}
            for j, (a, _) in enumerate(c, k):
                for p, tags in roles[j].items():
                    if isinstance(tags, RoleTags):
                        tags.length, tags.start = n, a + tags.start
                        frames[a + p] = tags
                    else:
                        frames[a + p] = RoleTags(n, a, tags)
                roles[j] = {}
            out.append(frames)
        k += len(c)
    return out


def _check_known(reader: str, reads: str, source: TaskModel, known: Collection[str]) -> None:
    """ModelError when the tags `source` gives and those `reader` learnt (`known`) share
    fewer than half of the smaller set: two tag sets, not one with a few tags more."""
    tags = [t for t in source.tags.items if t != "O"]
    learnt = set(known) - {"O", PADDING, RARE}
    unknown = [t for t in tags if t not in learnt]
    if tags and learnt and 2 * (len(tags) - len(unknown)) < min(len(tags), len(learnt)):
        raise ModelError(f"the {reader} model {reads} that it was never trained on "
                         f"({len(unknown)} of the {source.task} model's {len(tags)}: "
                         f"{', '.join(unknown[:5])}{', ...' if len(unknown) > 5 else ''}): "
                         f"the two were trained on different tag sets; give a "
                         f"{source.task} model of the tags it was trained on "
                         f"(--model {source.task}=DIR)")


class Pipeline:
    """Loaded models for `tasks` and the ones they depend on; `tag` runs the cascade."""

    def __init__(self, model_dir: str | Path | None = None,
                 tasks: str | Sequence[str] | None = None,
                 models: Mapping[str, TaskModel] | None = None, max_tokens: int = MAX_TOKENS,
                 predicates: str = "auto", documents: bool = True,
                 max_words: int = MAX_WORDS,
                 task_dirs: Mapping[str, str | Path] | None = None,
                 beam: int | None = None):
        """`model_dir`, `task_dirs`: where the models are (`model_folders`); `tasks`:
        default DEFAULT_TASKS, or the task of the model whose own folder `model_dir` is.
        `models`: models already loaded, by task.
        `max_words`: longer sentences are tagged in pieces (module doc).
        `predicates`: where per-predicate tasks (SRL) find their predicates when none are
        given: "auto" (the first of the task's `predicate_sources` whose model is at hand:
        the verb detector, else the POS rule) or one of `senna.tasks.PREDICATE_RULES`.
        `documents`: give each name one type per document, for tasks whose table entry
        says so (NER; `senna.decode.documents`); False: each span as Viterbi found it.
        `beam`: the partial parses the parser keeps per sentence (default its own,
        `senna.runtime.parser.BEAM`, 1: greedy; more: a beam, slower)."""
        self.where = model_folders(model_dir, task_dirs)
        self.root = self.where.root
        self.tasks = normalize_tasks(self.where.default_tasks() if tasks is None else tasks)
        if predicates != "auto" and predicates not in PREDICATE_RULES:
            raise ValueError(f"predicates must be 'auto' or one of {sorted(PREDICATE_RULES)}, "
                             f"got {predicates!r}")
        self.predicate_choice = predicates
        self.predicate_source: dict[str, str] = {}
        self.max_tokens = max_tokens
        if max_words < 1:
            raise ValueError(f"max_words must be at least 1, got {max_words}")
        self.max_words = max_words
        self.documents = documents
        self.models: dict[str, TaskModel] = dict(models or {})
        self.order: list[str] = []
        for task in self.tasks:
            self._require(task, ())
        self._check_inputs()
        if beam is not None:
            if beam < 1:
                raise ValueError(f"beam must be at least 1, got {beam}")
            for model in self.models.values():
                if hasattr(model, "beam"):
                    model.beam = beam
        languages = {self.models[t].language for t in self.order}
        if len(languages) > 1:
            raise ModelError("these models were trained on different languages: " + ", ".join(
                f"{t} ({self.models[t].language})" for t in self.order))
        self.language = languages.pop() if languages else "en"
        """The language the models were trained on: raw text is tokenised its way."""

    @property
    def task_dirs(self) -> dict[str, Path]:
        """The model folders given by task (`model_folders`)."""
        return dict(self.where.own)

    def folder(self, task: str) -> Path:
        """Where `task`'s model is read from."""
        return self.where.of(task)

    def _load(self, task: str, chain: tuple[str, ...]) -> TaskModel:
        path = self.folder(task)
        if not path.is_dir():
            why = f" (needed by {chain[-1]})" if chain else ""
            raise ModelError(f"no {task} model: {path} is not a directory{why}; give a "
                             "folder of models (holding pos/, chunk/, ...) or that "
                             "model's own folder")
        model = load_tagger(path)
        if model.task != task:
            raise ModelError(f"{path}: holds a {model.task} model, expected {task}")
        return model

    def _require(self, task: str, chain: tuple[str, ...]) -> None:
        """Load `task` after everything it reads (depth first: `order` is the cascade)."""
        if task in self.order:
            return
        if task in chain:
            raise ModelError(f"models depend on each other in a cycle: {' -> '.join(chain)}")
        model = self.models.get(task) or self._load(task, chain)
        self.models[task] = model
        for dep in self.dependencies(task, model):
            self._require(dep, (*chain, task))
        self.order.append(task)

    def dependencies(self, task: str, model: TaskModel) -> list[str]:
        """Tasks whose output this model reads, those its task requires, and the source of
        its predicates."""
        deps = list(TASKS[task].requires)
        sources = TASKS[task].predicate_sources
        if sources:
            have = [s for s in sources if s in self.models or self.folder(s).is_dir()]
            choice = self.predicate_choice
            source = (have or [sources[-1]])[0] if choice == "auto" else choice
            self.predicate_source[task] = source
            deps.append(source)
        for spec in (k.spec for k in model.featurizer.of_kind(ColumnFeature)):
            if spec.arg in TASKS[task].own_columns:   # the parser's `below`: its own
                continue
            dep = ALIASES.get(spec.arg)
            if dep is None or TASKS[dep].per_predicate:
                raise ModelError(f"the {task} model reads a column {spec.arg!r} that no "
                                 "task produces")
            deps.append(dep)
        if model.featurizer.of_kind(LevelFeature):   # '+levels': the parser's tree
            deps.append(ALIASES[TREE])
        if getattr(model, "first_level", None) and model.first_tagger is None:
            deps.append(model.first_level)   # the parser keeps PT0's phrases
        return deps

    def _check_inputs(self) -> None:
        """ModelError where a model reads the tags of another whose tag set it was not
        trained on (`_check_known`: UD tags where it learnt Penn Treebank ones, say): it
        would read them all as one unknown tag and tag on, silently worse.  The taggers
        inside a parser folder are checked too, and a parser's first level against the PT0
        tagger whose phrases it keeps."""
        for task in self.order:
            model = self.models[task]
            first = getattr(model, "first_level", None)
            inner = [model.first_tagger] if getattr(model, "first_tagger", None) else []
            inner += list(getattr(model, "flattened", {}).values())
            for reader, name in [(model, task)] + [(t, f"{task} ({t.task})") for t in inner]:
                for kind in reader.featurizer.of_kind(ColumnFeature):
                    source = self.models.get(ALIASES.get(kind.spec.arg, ""))
                    if kind.spec.arg not in TASKS[task].own_columns and source is not None \
                            and not TASKS[source.task].tree:
                        _check_known(name, f"reads {source.task} tags", source,
                                     kind.vocab.items)
                        self._check_source(task, reader, kind.spec.arg, source)
            if first:
                source = model.first_tagger or self.models[first]
                _check_known(task, "keeps the phrases of a tagger", source,
                             model.levels.by_lowest)

    def _check_source(self, task: str, reader: TaskModel, column: str, source: TaskModel
                      ) -> None:
        """A warning where a model learnt a column from a data file's own tags but here
        reads another model's: one tag set, but it never saw that model's mistakes, so it
        may tag worse than its dev score says."""
        learnt = getattr(reader, "column_sources", {}).get(column, {})
        if learnt.get("source") == "file":
            folder = self.folder(source.task)
            warn_once(self.folder(task), f"the {reader.task} model learnt its {column} column "
                      f"from the tags of {learnt.get('file') or 'its training file'}, but here "
                      f"reads the {source.task} model's ({folder}); to train it on the tags "
                      f"it reads, train with --predicted-columns {column}={folder}")

    def annotate(self, sentences: Sequence[Sequence[str]],
                 predicates: Sequence[Sequence[int]] | None = None,
                 docs: Sequence[Hashable] | None = None
                 ) -> tuple[list[Columns], list[Roles]]:
        """Raw tags: per sentence, task -> tags (IOBES for span tasks) and, for SRL,
        predicate index -> role tags.  `docs`: each sentence's document (None: each
        sentence is one).  Sentences longer than `max_words` go through the cascade as
        their pieces, in the same document."""
        words = [list(s) for s in sentences]
        if predicates is not None:
            predicates = self.checked_predicates(words, predicates)
        docs = range(len(words)) if docs is None else docs
        cuts = [piece_bounds(w, self.max_words) for w in words]
        if all(len(c) == 1 for c in cuts):
            return self._cascade(words, predicates, docs)
        pieces = [w[a:b] for w, c in zip(words, cuts, strict=True) for a, b in c]
        preds = None if predicates is None else [
            [p - a for p in ps if a <= p < b]
            for ps, c in zip(predicates, cuts, strict=True) for a, b in c]
        piece_docs = [d for d, c in zip(docs, cuts, strict=True) for _ in c]
        cut = [len(c) > 1 for c in cuts for _ in c]
        columns, roles = self._cascade(pieces, preds, piece_docs, cut)
        return _joined(columns, cuts), _joined_roles(roles, cuts)

    def _cascade(self, words: list[list[str]], predicates: list[list[int]] | None,
                 docs: Sequence[Hashable], cut: Sequence[bool] | None = None
                 ) -> tuple[list[Columns], list[Roles]]:
        """`annotate` on sentences of at most `max_words` words, predicates checked;
        `cut`: which of them are pieces of a longer sentence (`roles`)."""
        columns: list[Columns] = [{} for _ in words]
        roles: list[Roles] = [{} for _ in words]
        for task in self.order:
            if TASKS[task].per_predicate:
                rule = PREDICATE_RULES[self.predicate_source[task]]
                chosen = predicates if predicates is not None else [rule(c) for c in columns]
                roles = self.roles(task, words, columns, chosen, cut)
            else:
                tagged = in_documents(partial(self._window_tags, task), TASKS[task], words,
                                      columns, docs, self.documents)
                for col, tags in zip(columns, tagged, strict=True):
                    col[task] = tags
        return columns, roles

    def _window_tags(self, task: str, words: list[list[str]],
                     columns: list[Columns]) -> list[list[str]]:
        """One network and Viterbi pass per `max_tokens` tokens; results equal
        `TaskModel.predict` sentence by sentence."""
        model = self.models[task]
        out: list[list[str]] = []
        for lo, hi in token_ranges([len(w) for w in words], self.max_tokens):
            out += model.predict(words[lo:hi], columns[lo:hi])
        return out

    @staticmethod
    def checked_predicates(words: list[list[str]], predicates: Sequence[Sequence[int]]
                           ) -> list[list[int]]:
        """User positions (SENNA's -usrvbs), checked and sorted; ValueError names the
        sentence and the positions out of range."""
        if len(predicates) != len(words):
            raise ValueError(f"{len(predicates)} predicate lists for {len(words)} sentences")
        out = []
        for n, (w, preds) in enumerate(zip(words, predicates, strict=True)):
            odd = [p for p in preds if isinstance(p, bool) or not isinstance(p, Integral)]
            if odd:
                raise ValueError(f"sentence {n + 1}: predicate positions must be integers "
                                 f"(token indices from 0), got {odd[:5]!r}")
            bad = [p for p in preds if not 0 <= int(p) < len(w)]
            if bad:
                raise ValueError(f"sentence {n + 1} has {len(w)} tokens: predicate "
                                 f"positions {bad} are out of range")
            out.append(sorted({int(p) for p in preds}))
        return out

    def roles(self, task: str, words: list[list[str]], columns: list[Columns],
              predicates: list[list[int]], cut: Sequence[bool] | None = None
              ) -> list[dict[int, Sequence[str]]]:
        """Per sentence, predicate index -> IOBES role tags.  Predicates of all sentences are
        taken together, in buckets of similar row length of at most SRL_CELLS cells
        (predicates x words): the network and Viterbi then share each operation across
        sentences instead of paying its fixed cost per predicate.

        In a sentence longer than SRL_EXACT words a predicate's row covers only its window
        (`TaskModel.role_window`), and the network runs on pieces of the sentence (the
        predicates of PIECE words and the words their windows reach), so time and memory
        per word stay bounded whatever the sentence length.  So do the rows of the pieces
        of a sentence tagged in pieces (`cut`), as rows in the whole sentence would."""
        model = self.models[task]
        half = model.cfg.window // 2
        units: list[tuple[int, int, int]] = []       # (sentence, first word, end) of a piece
        rows: list[tuple[int, int, int, int]] = []   # (unit, predicate, lo, hi)
        for i, preds in enumerate(predicates):
            n = len(words[i])
            pieces: dict[int, list[int]] = {}
            for p in preds if n else ():
                pieces.setdefault(p // PIECE if n > SRL_EXACT else 0, []).append(p)
            for group in pieces.values():
                bounds = [model.role_window(n, p, False if cut and cut[i] else None)
                          for p in group]
                units.append((i, max(0, bounds[0][0] - half), min(n, bounds[-1][1] + half)))
                rows += [(len(units) - 1, p, lo, hi) for p, (lo, hi) in zip(group, bounds,
                                                                             strict=True)]
        out: list[dict[int, Sequence[str]]] = [{} for _ in words]
        for bucket in length_buckets([hi - lo for _, _, lo, hi in rows], SRL_CELLS):
            chosen: dict[int, list[tuple[int, int, int]]] = {}
            for j in sorted(bucket):
                chosen.setdefault(rows[j][0], []).append(rows[j][1:])
            parts = [units[u] for u in chosen]
            sents, preds, cols, wins = [], [], [], []
            for (i, c0, c1), picked in zip(parts, chosen.values(), strict=True):
                sents.append(words[i][c0:c1])
                preds.append([p - c0 for p, _, _ in picked])
                cols.append(_slice(columns[i], c0, c1, len(words[i])))
                wins.append([(lo - c0, hi - c0) for _, lo, hi in picked])
            tags = model.predict_role_windows(sents, preds, cols, wins)
            for (i, c0, _), picked, found in zip(parts, chosen.values(), tags, strict=True):
                n = len(words[i])
                for (p, _, _), (lo, col) in zip(picked, found, strict=True):
                    out[i][p] = col if len(col) == n else RoleTags(n, c0 + lo, col)
        return [dict(sorted(r.items())) for r in out]

    def preload(self) -> None:
        """Every model's `preload` (the first batch then costs what the others do)."""
        for model in self.models.values():
            model.preload()

    def fill(self, sentences: Sequence[Sentence],
             predicates: Sequence[Sequence[int]] | None = None,
             docs: Sequence[Hashable] | None = None) -> None:
        """Tag sentences in place: their columns become the predicted ones (IOBES for span
        tasks; any other column is dropped), their predicates and roles SRL's.
        `predicates`: SRL predicate positions per sentence (default: the task's source).
        `docs`: each sentence's document (default: their `doc` fields)."""
        docs = [s.doc for s in sentences] if docs is None else docs
        columns, roles = self.annotate([s.words for s in sentences], predicates, docs)
        for sent, cols, frames in zip(sentences, columns, roles, strict=True):
            sent.columns = cols
            sent.predicates, sent.roles = list(frames), list(frames.values())

    def tag(self, sentences: Sequence[Sequence[str]],
            predicates: Sequence[Sequence[int]] | None = None,
            docs: Sequence[int] | None = None) -> list[Sentence]:
        """Tag a batch of sentences of words (`fill` on new sentences).  `docs`: each
        sentence's document (default: each sentence is one)."""
        out = [Sentence(list(words), tokens=[Token(w) for w in words],
                        doc=docs[i] if docs is not None else 0)
               for i, words in enumerate(sentences)]
        self.fill(out, predicates, docs if docs is not None else range(len(out)))
        return out
