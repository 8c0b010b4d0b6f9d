"""A loaded model for inference: features -> NumPy network -> decoder -> tags."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np

from senna.decode.viterbi import decode, dominance
from senna.io.checkpoint import SavedModel, load_model
from senna.runtime import kernels
from senna.runtime.chars import bound, char_tables


class TaskModel:
    """One task's network; `predict` returns tags in the scheme it was trained on (IOBES for
    span tasks)."""

    def __init__(self, saved: SavedModel):
        self.saved = saved
        self.task = saved.task
        self.cfg = saved.net
        self.w = {k: v.astype(np.float32, copy=False) if isinstance(v, np.ndarray) else v
                  for k, v in saved.weights.items()}
        self.trans = self.w.get("transitions")
        self.start = self.w.get("start")
        self.dom = dominance(self.trans) if self.trans is not None else None
        self.featurizer = saved.featurizer
        self.w.update(char_tables(self.featurizer, self.w))
        self.tags = saved.tags
        self.tables = kernels.sentence_tables(self.w, self.cfg) if self.sentence_level else None

    @property
    def sentence_level(self) -> bool:
        return self.cfg.approach == "sentence"

    @classmethod
    def load(cls, path: str | os.PathLike) -> TaskModel:
        return cls(load_model(path, shared_tables=True))

    def encode(self, words: Sequence[str], columns: Mapping[str, Sequence[str]] | None = None,
               predicate: int | None = None) -> np.ndarray:
        return self.featurizer.encode(words, columns, predicate)

    def batch_emissions(self, sentences: Sequence[Sequence[str]],
                        columns: Sequence[Mapping[str, Sequence[str]]]) -> list[np.ndarray]:
        """Window approach, non-empty sentences (+ their input columns) -> emissions [T, K]
        each: one feature pass and one network pass for the whole batch."""
        lengths = [len(s) for s in sentences]
        bound(self.featurizer)
        ids = self.featurizer.encode_many(sentences, columns)
        scores = kernels.window_scores(ids, lengths, self.w, self.cfg)
        return np.split(scores, np.cumsum(lengths)[:-1]) if sentences else []

    def decode(self, emissions: list[np.ndarray]) -> list[list[str]]:
        """Emissions [T, K] per sentence -> tag names (Viterbi for SLL, else argmax)."""
        if not emissions:
            return []
        lengths = np.array([len(e) for e in emissions])
        t = max(int(lengths.max()), 1)
        padded = np.zeros((len(emissions), t, len(self.tags)), dtype=np.float32)
        padded[np.arange(t) < lengths[:, None]] = np.concatenate(emissions)
        return self.decode_padded(padded, lengths)

    def decode_padded(self, emissions: np.ndarray, lengths: np.ndarray) -> list[list[str]]:
        """Emissions [B, T, K] (sentence b: the first lengths[b] rows) -> tag names."""
        name = self.tags.items.__getitem__
        return [list(map(name, p.tolist()))
                for p in decode(emissions, lengths, self.trans, self.start, self.dom)]

    def predict(self, sentences: Sequence[Sequence[str]],
                columns: Sequence[Mapping[str, Sequence[str]]] | None = None) -> list[list[str]]:
        """Sentences of words (+ input columns such as POS) -> tags per word."""
        cols = columns or [{}] * len(sentences)
        live = [i for i, s in enumerate(sentences) if len(s)]
        tags = iter(self.decode(self.batch_emissions([sentences[i] for i in live],
                                                     [cols[i] for i in live])))
        return [next(tags) if len(s) else [] for s in sentences]

    def role_scores(self, sentences: Sequence[Sequence[str]], predicates: Sequence[Sequence[int]],
                    columns: Sequence[Mapping[str, Sequence[str]]]
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Non-empty sentences, their predicate positions and input columns -> emissions
        [sum P, T, K], one row per predicate padded to the longest sentence, and the rows'
        lengths."""
        sizes = [len(s) for s in sentences]
        lengths = np.repeat(sizes, [len(p) for p in predicates])
        bound(self.featurizer)
        if self.sentence_level:
            ids = self.featurizer.encode_many(sentences, columns)
            ids_list = np.split(ids, np.cumsum(sizes)[:-1])
            scores = kernels.sentence_scores(ids_list, predicates, self.w, self.cfg, self.tables)
            return scores, lengths
        rows = [(s, c, p) for s, c, ps in zip(sentences, columns, predicates, strict=True)
                for p in ps]
        ids = self.featurizer.encode_many([r[0] for r in rows], [r[1] for r in rows],
                                          [r[2] for r in rows])
        t = int(lengths.max(initial=0))
        padded = np.zeros((len(rows), t, len(self.tags)), dtype=np.float32)
        padded[np.arange(t) < lengths[:, None]] = kernels.window_scores(ids, lengths, self.w,
                                                                        self.cfg)
        return padded, lengths

    def predict_roles_many(self, sentences: Sequence[Sequence[str]],
                           predicates: Sequence[Sequence[int]],
                           columns: Sequence[Mapping[str, Sequence[str]]]
                           ) -> list[list[list[str]]]:
        """Non-empty sentences and their predicate positions -> per sentence, one tag column
        per predicate; one network pass and one Viterbi pass for all of them."""
        tags = iter(self.decode_padded(*self.role_scores(sentences, predicates, columns)))
        return [[next(tags) for _ in ps] for ps in predicates]

    def predict_roles(self, words: Sequence[str], predicates: Sequence[int],
                      columns: Mapping[str, Sequence[str]] | None = None) -> list[list[str]]:
        """One sentence and its predicate positions -> one tag column per predicate."""
        if not predicates or not words:
            return []
        return self.predict_roles_many([words], [list(predicates)], [columns or {}])[0]
