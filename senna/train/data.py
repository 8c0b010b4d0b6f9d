"""Sentences -> training examples (ids [T, F], tag ids [T], predicate) -> padded batches.

A sequence task gives one example per sentence; SRL gives one per predicate, since each
predicate has its own tag column (CoNLL-2005 setting).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from senna.features.featurizer import Featurizer
from senna.features.kinds import PredDistanceFeature
from senna.tags import brackets_to_tags, convert
from senna.tasks import TaskSpec
from senna.vocab import TagSet


@dataclass
class Example:
    ids: np.ndarray        # [T, F] feature ids
    tags: list[str]        # gold tags in the scheme the network predicts
    predicate: int = -1    # SRL: token index of the predicate
    soft: np.ndarray | None = None   # [T, K] teachers' tag distributions (senna.train.distill)


def gold_targets(task: TaskSpec, sentence) -> list[tuple[list[str], int]]:
    """(tags in the predicted scheme, predicate) for each example the sentence yields."""
    if task.per_predicate:
        return [(brackets_to_tags(col, "iobes"), p)
                for p, col in zip(sentence.predicates, sentence.roles, strict=True)]
    tags = sentence.columns[task.target]
    return [(convert(tags, "iobes") if task.scheme == "iobes" else list(tags), -1)]


def make_examples(task: TaskSpec, sentences: Sequence, featurizer: Featurizer) -> list[Example]:
    out = []
    needs_pred = bool(featurizer.of_kind(PredDistanceFeature))
    for s in sentences:
        columns = s.columns
        base = None if needs_pred else featurizer.encode(s.words, columns)
        for tags, p in gold_targets(task, s):
            ids = base if base is not None else featurizer.encode(s.words, columns, p)
            out.append(Example(ids, tags, p))
    return out


@dataclass
class Batch:
    ids: np.ndarray          # [B, T, F], PADDING (0) beyond each length
    tags: np.ndarray         # [B, T]
    lengths: np.ndarray      # [B]
    predicates: np.ndarray   # [B] (-1 where none)
    index: np.ndarray        # [B] positions of these examples in the example list
    soft: np.ndarray | None = None   # [B, T, K] teachers' tag distributions, zero padded


def collate(examples: Sequence[Example], index: np.ndarray, tagset: TagSet | None) -> Batch:
    lengths = np.array([len(e.ids) for e in examples])
    b, t, f = len(examples), max(int(lengths.max()), 1), examples[0].ids.shape[1]
    ids = np.zeros((b, t, f), dtype=np.int64)
    tags = np.zeros((b, t), dtype=np.int64)
    for j, e in enumerate(examples):
        ids[j, : lengths[j]] = e.ids
        if tagset is not None:
            tags[j, : lengths[j]] = tagset.encode(e.tags)
    preds = np.array([e.predicate for e in examples])
    soft = None
    if examples[0].soft is not None:
        soft = np.zeros((b, t, examples[0].soft.shape[1]), dtype=np.float32)
        for j, e in enumerate(examples):
            soft[j, : lengths[j]] = e.soft
    return Batch(ids, tags, lengths, preds, index, soft)


def batches(examples: Sequence[Example], batch_size: int, tagset: TagSet | None,
            rng: np.random.Generator | None = None, together: bool = False) -> Iterator[Batch]:
    """Length-bucketed batches (cheap padding); shuffled order of batches when `rng` is given.
    `together`: examples that differ in their last feature only (a parser's levels of one
    sentence) stay side by side, so that a batch holds few distinct sentences
    (`senna.nn.networks.BiLSTMNet` with `level_hidden` reads each once)."""
    lengths = [len(e.ids) for e in examples]
    order = np.argsort(lengths, kind="stable")
    if rng is not None:  # shuffle within buckets by sorting on (length, random key)
        keys = rng.random(len(examples))
        if together:
            first: dict[bytes, int] = {}
            group = [first.setdefault(e.ids[:, :-1].tobytes(), i)
                     for i, e in enumerate(examples)]
            keys = keys[group]
        order = np.lexsort((np.arange(len(examples)), keys, lengths))
    chunks = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    if rng is not None:
        rng.shuffle(chunks)
    for chunk in chunks:
        yield collate([examples[i] for i in chunk], chunk, tagset)
