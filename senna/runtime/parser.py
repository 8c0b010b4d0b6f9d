"""The parser at run time (task psg): its level network run level after level, each level
decoded by `senna.syntax.decode.LevelDecoder` so that the levels always make a tree.

The network reads the `below` column (`senna.syntax.levels.level_features`: the labels of
the levels found so far), which the parser computes itself between levels, as its training
data was made from the gold levels (`senna.io.treebank.read_levels`).  All the sentences of a
batch that are still being parsed go through the network together, once per level.  A
sentence-approach network measures its second distance from the first word, as in training
(`SentenceNet.forward` with no predicate).

A parser saved with `first_level` "pt0" keeps the PT0 tagger's phrases on its first level
(level 0 is PT0) and chooses only their unary chains (`LevelDecoder.keeping`): the PT0
tagger, trained for that level alone on predicted POS, finds its phrases better than the
level network does, and every later level builds on them.  The pipeline runs PT0 first,
unless the parser's folder holds a tagger of its own for that level (a subfolder named
after the task, `psg/pt0/`): then the parser tags the first level itself, from the words
and the POS tags it reads anyway, and the pipeline's PT0 column (if any) is left to the
tasks that read it.

The levels have no `NML` nodes (`senna.syntax.levels.FLATTENED`: they are flattened into
their parents, as the PT0 data was made).  A parser folder holding a tagger named after
such a label (`psg/nml/`, tags `B-NML` ... over the words of the outermost NML nodes) puts
them back into its trees (`insert_phrases`), where they group whole children of a phrase.

A BiLSTM level network with `level_hidden` reads the words once per sentence
(`kernels.sentence_states`) and only its small second BiLSTM level after level
(`kernels.level_scores`); the sentences are parsed in chunks of at most LEVEL_WORDS words,
which bounds what is kept of them between levels.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from senna.features.kinds import Batch
from senna.io.checkpoint import load_model
from senna.io.manifest import ManifestError, resolved
from senna.io.saved_model import ModelError, SavedModel
from senna.runtime import kernels
from senna.runtime.chars import bound
from senna.runtime.model import TaskModel
from senna.syntax.decode import BatchScorer, LevelDecoder
from senna.syntax.levels import BELOW, FLATTENED, insert_phrases, unchain
from senna.syntax.tree import Tree, tree_to_conll
from senna.tags import tags_to_spans
from senna.text.pieces import token_groups

Columns = Mapping[str, Sequence[str]]


# partial parses a sentence keeps (`senna.syntax.decode`, module doc). The shipped parser,
# trained on its own mistakes, decodes greedily: a beam of 2 moved its recipe's three seeds
# by +0.16, +0.16 and +0.19 bracket F1 on EWT dev, less than the seeds' spread (0.24), at
# about 1.4 times the parse time
BEAM = 1
CELLS = 8192   # sentences x padded length per network pass: bounds the emissions' memory
# a group's longest sentence is at most this much longer than its shortest (times, plus
# words): the max over time also runs on a shorter sentence's padding.  Measured on 800
# EWT dev sentences, 1.25 and 2 parse in 0.77 of the time of one width per group.
SPREAD, SLACK = 1.25, 2
# words parsed together by a network with `level_hidden`, whose first BiLSTM's share is kept
# between levels (761 floats a word for EWT's parser): `senna -psg` on EWT dev peaked at
# 150 MB with 4,096, 196 MB with 8,192
LEVEL_WORDS = 4096


def _groups(lengths: Sequence[int], cells: int) -> list[list[int]]:
    """Indices in order of length, in groups of similar lengths (`SPREAD`, `SLACK`) whose
    count times their longest length stays within `cells` (one sentence at least): little
    padding, bounded memory."""
    groups: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        if groups and (len(groups[-1]) + 1) * lengths[i] <= cells \
                and lengths[i] <= SPREAD * lengths[groups[-1][0]] + SLACK:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def own_first_level(path: str | os.PathLike, first: str | None) -> Path | None:
    """The parser folder's own tagger for its first level's task `first` (the subfolder
    `path/<first>/`), or None: the pipeline's column is read."""
    own = Path(path) / first if first else None
    return own if own is not None and own.is_dir() else None


def own_flattened(path: str | os.PathLike) -> list[tuple[str, Path]]:
    """The parser folder's taggers of the labels its levels flatten: (label, subfolder
    `path/<label in lower case>/`) for each one it holds."""
    return [(label, Path(path) / label.lower()) for label in FLATTENED
            if (Path(path) / label.lower()).is_dir()]


def _own_taggers(path: str | os.PathLike, first: str | None,
                 load_tagger: Callable[[Path], TaskModel]
                 ) -> tuple[TaskModel | None, dict[str, TaskModel]]:
    """A parser folder's own tagger of its first level (`first`), if any, and of the
    labels its levels flatten, each checked to be of its task and to lie inside the
    parser's folder (a link to another folder's tagger is refused)."""
    top = resolved(Path(path))
    for sub in [own_first_level(path, first), *(f for _, f in own_flattened(path))]:
        if sub is not None and not resolved(sub).is_relative_to(top):
            raise ModelError(f"{sub}: a link to {resolved(sub)}, outside {path}; the "
                             "parser's own taggers must be inside its folder")
    own = own_first_level(path, first)
    tagger = load_tagger(own) if own is not None else None
    if tagger is not None and tagger.task != first:
        raise ModelError(f"{own}: a {tagger.task} model where the parser's first level "
                         f"needs a {first} tagger")
    flattened = {}
    for label, folder in own_flattened(path):
        flattened[label] = load_tagger(folder)
        if flattened[label].task != label.lower():
            raise ModelError(f"{folder}: a {flattened[label].task} model where the "
                             f"parser's {label} nodes need a {label.lower()} tagger")
    return tagger, flattened


class ParserModel(TaskModel):
    """A psg model: `parse` gives trees, `predict` their CoNLL parse cells (the runtime's
    psg column: `(TOP(S(NP*`, `*)`, ...), chains split, under a `TOP` root."""

    def __init__(self, saved: SavedModel, first_tagger: TaskModel | None = None,
                 flattened: Mapping[str, TaskModel] | None = None):
        super().__init__(saved)
        self.levels = LevelDecoder(self.tags.items)
        self.beam = BEAM   # 1: greedy, level by level
        # the task (pt0) whose phrases the first level keeps, or None: its own
        self.first_level: str | None = saved.info.get("first_level")
        # the parser's own tagger of that task, or None: the pipeline's column is read
        self.first_tagger = first_tagger
        # label -> the tagger whose phrases of that label (flattened in the levels) are
        # put back into the trees
        self.flattened = dict(flattened or {})

    @classmethod
    def load(cls, path: str | os.PathLike,
             load_tagger: Callable[[Path], TaskModel] = TaskModel.load) -> ParserModel:
        """A parser folder; a subfolder named after its `first_level` task is its own
        tagger for that level, loaded with `load_tagger` (`senna.runtime.ensemble`'s
        loads an ensemble there too)."""
        saved = load_model(path, shared_tables=True)
        try:
            return cls(saved, *_own_taggers(path, saved.info.get("first_level"), load_tagger))
        except ManifestError as e:
            raise ModelError(str(e)) from None

    def use_taggers(self, path: str | os.PathLike,
                    load_tagger: Callable[[Path], TaskModel] = TaskModel.load) -> None:
        """Tag the first level and the flattened labels with the taggers of another parser
        folder (`path/pt0/`, `path/nml/`): a new level network scored as that parser is."""
        self.first_tagger, self.flattened = _own_taggers(path, self.first_level, load_tagger)

    def level_scores(self, sentences: Sequence[Sequence[str]], columns: Sequence[Columns]
                     ) -> list[np.ndarray]:
        """Non-empty sentences and their input columns (`below` included) -> each one's
        emissions [n_words, n_tags], in one network pass."""
        lengths = [len(s) for s in sentences]
        if not self.sentence_level:
            flat = self.emissions(sentences, columns)
            return np.split(flat, np.cumsum(lengths)[:-1])
        out: list[np.ndarray] = [np.empty(0)] * len(sentences)
        for group in _groups(lengths, CELLS):
            scores, _ = self.role_scores([sentences[i] for i in group], [[0]] * len(group),
                                         [columns[i] for i in group],
                                         [[(0, lengths[i])] for i in group])
            for row, i in enumerate(group):
                out[i] = scores[row, : lengths[i]]
        return out

    def parse(self, sentences: Sequence[Sequence[str]],
              columns: Sequence[Columns] | None = None,
              states: list[tuple[int, list[str]]] | None = None) -> list[Tree]:
        """Non-empty sentences (+ their input columns: POS) -> their trees under `TOP`, with
        unary chains as `A#B` nodes (`unchain` splits them).  A parser with a
        `first_level` tagger needs that tagger's column too (`LevelDecoder.keeping`).
        `states`: a list that gets every (sentence index, `below` column) the network
        reads, level by level (the states training explores, `senna.train.explore`)."""
        cols = columns or [{}] * len(sentences)
        first = self.first_level
        if self.first_tagger is not None:
            tags = self.first_tagger.predict(sentences, cols)
            cols = [{**c, first: t} for c, t in zip(cols, tags, strict=True)]
        if first and any(first not in c for c in cols):
            raise ValueError(f"this parser's first level keeps the phrases of the {first} "
                             f"tagger: give each sentence its {first!r} column")
        if first and any(len(c[first]) != len(s) for c, s in zip(cols, sentences, strict=True)):
            raise ValueError(f"expected one {first} tag per word of each sentence")

        lengths = [len(s) for s in sentences]
        if not self.cfg.level_hidden:
            return self._put_back([tree for _, tree in self.levels.parse_spans(
                lengths, self._scorer(sentences, cols, states, list(range(len(sentences)))),
                self.beam)], sentences, cols)
        trees: dict[int, Tree] = {}
        by_length = sorted(range(len(sentences)), key=lengths.__getitem__)
        for chunk in token_groups(by_length, lengths.__getitem__, LEVEL_WORDS):
            found = self.levels.parse_spans([lengths[i] for i in chunk],
                                            self._scorer(sentences, cols, states, chunk),
                                            self.beam)
            trees.update((i, tree) for i, (_, tree) in zip(chunk, found, strict=True))
        return self._put_back([trees[i] for i in range(len(sentences))], sentences, cols)

    def _put_back(self, trees: list[Tree], sentences: Sequence[Sequence[str]],
                  cols: Sequence[Columns]) -> list[Tree]:
        """The trees with the phrases of the flattened labels that the parser's own taggers
        find (those that fit: `insert_phrases`)."""
        for label, tagger in self.flattened.items():
            found = tagger.predict(sentences, cols)
            trees = [insert_phrases(t, [s for s in tags_to_spans(tags) if s[0] == label])
                     for t, tags in zip(trees, found, strict=True)]
        return trees

    def _scorer(self, sentences: Sequence[Sequence[str]], cols: Sequence[Columns],
                states: list[tuple[int, list[str]]] | None, chunk: list[int]) -> BatchScorer:
        """The level scorer of the sentences `chunk` (indices into `sentences`), which the
        decoder numbers 0, 1, ...  A network with `level_hidden` computes what does not
        change between levels once, on the first level (all the chunk's sentences)."""
        first = self.first_level
        fixed: list[np.ndarray] = []
        starts = np.cumsum([0] + [len(sentences[i]) for i in chunk])

        def scorer(level: int, which: list[int], below: list[list[str]]
                   ) -> list[np.ndarray] | np.ndarray:
            if states is not None:
                states.extend((chunk[j], b) for j, b in zip(which, below, strict=True))
            words = [sentences[chunk[j]] for j in which]
            columns = [{**cols[chunk[j]], BELOW: b} for j, b in zip(which, below, strict=True)]
            if not self.cfg.level_hidden:
                found = self.level_scores(words, columns)
            else:
                lengths = [len(w) for w in words]
                if fixed:   # later levels: only the last feature's ids change
                    below_ids = self.featurizer.kinds[-1].batch_ids(
                        Batch(lengths, columns, [None] * len(words), None, None))
                else:
                    bound(self.featurizer)
                    ids = self.featurizer.encode_many(words, columns)
                    fixed.extend(kernels.sentence_states(ids, lengths, self.w, self.cfg))
                    below_ids = ids[:, -1]
                parts = fixed
                if which != list(range(len(chunk))):   # the rows of the sentences asked for
                    at = np.asarray(which)
                    sizes = starts[at + 1] - starts[at]
                    rows = np.repeat(starts[at] - (np.cumsum(sizes) - sizes), sizes) \
                        + np.arange(int(sizes.sum()))
                    parts = [f[rows] for f in fixed]
                found = kernels.level_scores(tuple(parts), below_ids, lengths, self.w, self.cfg)
            if level == 0 and first:   # the first level keeps the phrases of the `first` column
                flat = found if isinstance(found, np.ndarray) else np.concatenate(found)
                found = self.levels.keeping(flat, [t for j in which for t in cols[chunk[j]][first]])
            return found

        return scorer

    def predict(self, sentences: Sequence[Sequence[str]],
                columns: Sequence[Columns] | None = None) -> list[list[str]]:
        """Sentences (+ input columns) -> the CoNLL parse cells of each one's tree; an empty
        sentence gets none."""
        cols = columns or [{}] * len(sentences)
        full = [i for i, s in enumerate(sentences) if len(s)]
        trees = iter(self.parse([sentences[i] for i in full], [cols[i] for i in full]))
        return [tree_to_conll(unchain(next(trees))) if len(s) else [] for s in sentences]
