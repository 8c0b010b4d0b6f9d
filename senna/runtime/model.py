"""A loaded model for inference: features -> NumPy network -> decoder -> tags."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np

from senna.decode.viterbi import decode
from senna.io.checkpoint import SavedModel, load_model
from senna.runtime import kernels


class TaskModel:
    """One task's network; `predict` returns tags in the scheme it was trained on (IOBES for
    span tasks)."""

    def __init__(self, saved: SavedModel):
        self.saved = saved
        self.task = saved.task
        self.cfg = saved.net
        self.w = {k: v.astype(np.float32, copy=False) for k, v in saved.weights.items()}
        self.trans = self.w.get("transitions")
        self.start = self.w.get("start")
        self.featurizer = saved.featurizer
        self.tags = saved.tags
        self.tables = kernels.sentence_tables(self.w, self.cfg) if self.sentence_level else None

    @property
    def sentence_level(self) -> bool:
        return self.cfg.approach == "sentence"

    @property
    def needs_predicates(self) -> bool:
        return self.sentence_level or any(s.kind == "pred_distance" for s in self.featurizer.specs)

    @classmethod
    def load(cls, path: str | os.PathLike) -> TaskModel:
        return cls(load_model(path))

    def encode(self, words: Sequence[str], columns: Mapping[str, Sequence[str]] | None = None,
               predicate: int | None = None) -> np.ndarray:
        return self.featurizer.encode(words, columns, predicate)

    def emissions(self, ids: list[np.ndarray]) -> list[np.ndarray]:
        """Window approach: sentences of ids [T, F] -> emissions [T, K]."""
        return kernels.window_emissions(ids, self.w, self.cfg)

    def decode(self, emissions: list[np.ndarray]) -> list[list[str]]:
        if not emissions:
            return []
        lengths = np.array([len(e) for e in emissions])
        padded = np.zeros((len(emissions), max(int(lengths.max()), 1), len(self.tags)),
                          dtype=np.float32)
        for b, e in enumerate(emissions):
            padded[b, : len(e)] = e
        return [self.tags.decode(p) for p in decode(padded, lengths, self.trans, self.start)]

    def predict(self, sentences: Sequence[Sequence[str]],
                columns: Sequence[Mapping[str, Sequence[str]]] | None = None) -> list[list[str]]:
        """Sentences of words (+ input columns such as POS) -> tags per word."""
        cols = columns or [{}] * len(sentences)
        ids = [self.encode(s, c) for s, c in zip(sentences, cols, strict=True) if len(s)]
        tags = iter(self.decode(self.emissions(ids)))
        return [next(tags) if len(s) else [] for s in sentences]

    def predict_roles(self, words: Sequence[str], predicates: Sequence[int],
                      columns: Mapping[str, Sequence[str]] | None = None) -> list[list[str]]:
        """One sentence and its predicate positions -> one tag column per predicate."""
        if not predicates or not words:
            return []
        if self.sentence_level:
            ids = self.encode(words, columns)
            scores = kernels.sentence_emissions(ids, np.asarray(predicates), self.w, self.cfg,
                                                self.tables)
            return self.decode(list(scores))
        ids = [self.encode(words, columns, p) for p in predicates]
        return self.decode(self.emissions(ids))
