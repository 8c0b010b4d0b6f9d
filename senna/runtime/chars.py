"""A character feature's lookup table at run time: spelling id -> the character network's
vector, computed in NumPy the first time a spelling is looked up and kept, so every distinct
word costs one convolution per process (all new words of a batch together), however often it
occurs; the rest of the window network is untouched.

Why not precompute a dictionary at load: it would be fast enough (the ~20k distinct words
of a training set take 0.05 CPU s together, bench/levers.py), but a model has no list of
surface forms to precompute (its word dictionary is lower-cased, the characters see case),
and computing words as they come costs each distinct word once all the same, without
storing a list or computing words a text never uses.

Memory stays bounded: past `LIMIT` spellings the featurizer forgets its per-word ids and
the table starts again (`TaskModel` calls `bound` between batches).
"""

from __future__ import annotations

import numpy as np

from senna.features.featurizer import Featurizer
from senna.features.kinds import CharsFeature
from senna.runtime.kernels import Weights, char_vectors


class CharVectors:
    """Indexed like a lookup table (`table[ids]` -> [len(ids), filters]), as
    `senna.runtime.kernels.embed` reads tables."""

    LIMIT = 50_000    # spellings kept before starting again (as Featurizer.CACHE_WORDS)
    GROUP = 2048      # words per convolution call (similar lengths together)

    def __init__(self, feature: CharsFeature, w: Weights, name: str):
        self.spellings, self.w, self.name = feature.spellings, w, name
        self.half = feature.window // 2
        self.filters = len(w[f"{name}.conv.bias"])
        self._clear()

    def _clear(self) -> None:
        self.table = np.zeros((0, self.filters), dtype=np.float32)
        self.known = np.zeros(0, dtype=bool)
        self.generation = self.spellings.generation

    def _compute(self, ids: np.ndarray) -> None:
        """Fill the rows of spellings `ids` (distinct), in groups of similar length (a group
        is padded to its longest word: lengths 3-4, 5-8, 9-16, ... go together)."""
        words = self.spellings.words
        lengths = np.fromiter(map(len, map(words.__getitem__, ids.tolist())), np.int64, len(ids))
        order = np.argsort(lengths, kind="stable")
        ids, size = ids[order], np.ceil(np.log2(np.maximum(lengths[order], 1)))
        cuts = np.flatnonzero(np.diff(size)) + 1
        for group in np.split(ids, cuts):
            for k in range(0, len(group), self.GROUP):
                part = group[k : k + self.GROUP]
                chars, n = self.spellings.padded(part, self.half)
                self.table[part] = char_vectors(chars, n, self.w, self.name)
        self.known[ids] = True

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        if self.generation != self.spellings.generation:
            self._clear()
        n = len(self.spellings)
        if n > len(self.table):  # room for every spelling given so far (growing by a quarter
            size = max(n, len(self.table) * 5 // 4)   # at least: 4 taggers keep one each)
            self.table = np.concatenate([self.table, np.zeros(
                (size - len(self.table), self.filters), dtype=np.float32)])
            self.known = np.concatenate([self.known, np.zeros(size - len(self.known), bool)])
        ids = np.asarray(ids)
        new = np.flatnonzero(np.bincount(ids[~self.known[ids]]))  # distinct; np.unique
        # would import numpy.ma (7 ms at start-up)
        if len(new):
            self._compute(new)
        return self.table[ids]


def char_tables(featurizer: Featurizer, w: Weights) -> Weights:
    """The run-time tables of a model's character features, under the names the kernels
    read (emb.tables.{j}.weight)."""
    return {f"emb.tables.{j}.weight": CharVectors(k, w, f"emb.tables.{j}")
            for j, k in enumerate(featurizer.kinds) if isinstance(k, CharsFeature)}


def bound(featurizer: Featurizer) -> None:
    """Between batches: forget every spelling once there are more than LIMIT."""
    if any(len(k.spellings) > CharVectors.LIMIT for k in featurizer.of_kind(CharsFeature)):
        featurizer.forget()
