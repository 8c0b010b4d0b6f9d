"""A loaded model for inference: features -> NumPy network -> decoder -> tags."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np

from senna.decode.constraints import for_scheme
from senna.decode.roles import drop_orphans, unique_core_roles
from senna.decode.viterbi import Decoder
from senna.io.checkpoint import load_model
from senna.io.saved_model import ModelError, SavedModel
from senna.runtime import kernels
from senna.runtime.chars import bound, char_tables
from senna.tags import split_tag
from senna.text.pieces import MAX_WORDS
from senna.vocab import TagSet

# SRL on long sentences.  A predicate's row costs time in proportion to the words it
# covers, and a sentence has predicates in proportion to its words, so rows over whole
# sentences make SRL quadratic in sentence length.  Sentences of up to SRL_EXACT words keep
# them (every sentence of the EWT dev set and all but 2 of the 12,539 training sentences:
# results there are those of training).  In longer ones a predicate's row covers the words
# at most SRL_RADIUS away (the max over time too) and the others get O.  SRL_RADIUS = 20
# holds 97.2% of the training set's arguments whole (1,929 of 67,731 reach further; dev:
# 152 of 7,921); the max over time costs the square of the row's length, and 20 is what
# keeps a long sentence's cost per word within twice that of the same words as ordinary
# sentences (bench/scaling.py; 30 words would cost 2.4 times).  SRL_EXACT is the length
# beyond which the pipeline tags a sentence in pieces (senna.text.pieces): rows in those
# pieces cover the window too.
SRL_EXACT = MAX_WORDS
SRL_RADIUS = 20


def model_decoder(saved: SavedModel) -> Decoder:
    """The decoder of a model: Viterbi for sentence-level (sll) models, the word-level
    decoder for wll ones (as `saved.net.criterion` says), only among the sequences its tag
    scheme allows.  Training's dev scores decode with it too, so they are the runtime's."""
    trans = start = None
    if saved.net.criterion == "sll":
        trans, start = saved.weights.get("transitions"), saved.weights.get("start")
        if trans is None or start is None:
            raise ModelError(f"the {saved.task} model is sentence-level (criterion sll) but "
                             "has no transitions and start scores")
    return Decoder(len(saved.tags), trans, start, for_scheme(saved.tags.items,
                                                               saved.info.get("scheme")))


def mark_predicates(scores: np.ndarray, at: np.ndarray, tags: TagSet) -> None:
    """SRL emissions [R, T, K] of rows whose predicate is word at[r] -> in place, scores
    that allow exactly one V span, and one holding the predicate: the predicate is V (S-V,
    or B-/I-/E-V when the span takes in a particle, as for 2.5% of the training set's
    predicates: forcing S-V costs 0.18 dev F1), S-V nowhere else, B-V nowhere after it and
    E-V nowhere before it.  (A continuation, C-V, stays free.)"""
    verbs = {split_tag(t)[0]: i for i, t in enumerate(tags.items) if split_tag(t)[1] == "V"}
    if not verbs:
        return
    rows, pos = np.arange(len(scores)), np.arange(scores.shape[1])
    own = scores[rows[:, None], at[:, None], list(verbs.values())]
    for prefix, forbidden in (("S", pos != at[:, None]), ("B", pos > at[:, None]),
                              ("E", pos < at[:, None])):
        if prefix in verbs:
            column = scores[:, :, verbs[prefix]]
            column[forbidden] = -np.inf
    scores[rows, at, :] = -np.inf
    scores[rows[:, None], at[:, None], list(verbs.values())] = own


def decode_roles(decoder: Decoder, scores: np.ndarray, lengths: np.ndarray, at: np.ndarray,
                 tags: TagSet) -> list[np.ndarray]:
    """SRL rows' emissions [R, T, K] (scores modified in place), their lengths and predicate
    positions -> best IOBES paths with one V span on the predicate (`mark_predicates`), no
    core role twice and no C-/R- role without its argument (`senna.decode.roles`).
    Training's dev scores decode this way too."""
    mark_predicates(scores, at, tags)
    lengths = np.asarray(lengths)
    paths = unique_core_roles(decoder, scores, lengths, decoder.decode(scores, lengths),
                              tags.items)
    return drop_orphans(paths, lengths, tags.items)


class TaskModel:
    """One task's network; `predict` returns tags in the scheme it was trained on (IOBES for
    span tasks), always valid sequences of that scheme."""

    def __init__(self, saved: SavedModel):
        self.saved = saved
        self.task = saved.task
        self.cfg = saved.net
        self.w = {k: v.astype(np.float32, copy=False) if isinstance(v, np.ndarray) else v
                  for k, v in saved.weights.items()}
        self.featurizer = saved.featurizer
        self.w.update(char_tables(self.featurizer, self.w))
        self.tags = saved.tags
        self.criterion = self.cfg.criterion
        self.constraints = for_scheme(self.tags.items, saved.info.get("scheme"))
        self.decoder = model_decoder(saved)
        self.language: str = saved.info.get("language", "en")   # its training text's
        # where the columns it reads came from in training (senna.features.specs)
        self.column_sources: dict = saved.info.get("column_sources", {})
        self.tables = kernels.sentence_tables(self.w, self.cfg) if self.sentence_level else None

    @property
    def sentence_level(self) -> bool:
        return self.cfg.approach == "sentence"

    def preload(self) -> None:
        """Build now what loading leaves to the first sentences that need it (the index of a
        large dictionary, where word-table rows sit in shared embeddings): for servers,
        which want the first request as fast as the others, and to time tagging alone."""
        for part in [*self.featurizer.vocabs.values(), *self.w.values()]:
            if hasattr(part, "preload"):
                part.preload()

    @classmethod
    def load(cls, path: str | os.PathLike) -> TaskModel:
        return cls(load_model(path, shared_tables=True))

    def encode(self, words: Sequence[str], columns: Mapping[str, Sequence[str]] | None = None,
               predicate: int | None = None) -> np.ndarray:
        return self.featurizer.encode(words, columns, predicate)

    def emissions(self, sentences: Sequence[Sequence[str]],
                  columns: Sequence[Mapping[str, Sequence[str]]]) -> np.ndarray:
        """Window approach, sentences (+ their input columns) -> emissions [sum T, K], the
        sentences' words end to end: one feature pass and one network pass for the batch."""
        bound(self.featurizer)
        ids = self.featurizer.encode_many(sentences, columns)
        return self.window_net(ids, [len(s) for s in sentences])

    def window_net(self, ids: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
        """Window (or BiLSTM) approach: encoded words end to end [sum T, F] -> emissions
        [sum T, K].  (The joined ensemble puts its layer here, on the ids encoded once.)"""
        if self.cfg.approach == "bilstm":
            return kernels.bilstm_scores(ids, lengths, self.w, self.cfg)
        return kernels.window_scores(ids, lengths, self.w, self.cfg)

    def predict(self, sentences: Sequence[Sequence[str]],
                columns: Sequence[Mapping[str, Sequence[str]]] | None = None) -> list[list[str]]:
        """Sentences of words (+ input columns such as POS) -> tags per word; one network
        pass and one Viterbi pass for the whole batch."""
        cols = columns or [{}] * len(sentences)
        lengths = np.array([len(s) for s in sentences], dtype=np.intp)
        flat = self.decoder.decode_flat(self.emissions(sentences, cols), lengths).tolist()
        names = list(map(self.tags.items.__getitem__, flat))
        ends = np.cumsum(lengths).tolist()
        return [names[e - n : e] for e, n in zip(ends, lengths.tolist(), strict=True)]

    @staticmethod
    def role_window(length: int, predicate: int, whole: bool | None = None
                    ) -> tuple[int, int]:
        """Words [lo, hi) a predicate's row covers: the whole sentence (`whole`; by
        default, up to SRL_EXACT words), else those at most SRL_RADIUS away."""
        if length <= SRL_EXACT if whole is None else whole:
            return 0, length
        return max(0, predicate - SRL_RADIUS), min(length, predicate + SRL_RADIUS + 1)

    def role_scores(self, sentences: Sequence[Sequence[str]], predicates: Sequence[Sequence[int]],
                    columns: Sequence[Mapping[str, Sequence[str]]],
                    windows: Sequence[Sequence[tuple[int, int]]] | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Non-empty sentences, their predicate positions, input columns and the predicates'
        windows [lo, hi) (default `role_window`) -> emissions [sum P, N, K], one row per
        predicate padded to the longest window (row j: word lo + j), and the windows
        [sum P, 2]."""
        if windows is None:
            windows = [[self.role_window(len(s), p) for p in ps]
                       for s, ps in zip(sentences, predicates, strict=True)]
        bounds = np.array([b for ws in windows for b in ws], dtype=np.intp).reshape(-1, 2)
        bound(self.featurizer)
        if self.sentence_level:
            ids = self.featurizer.encode_many(sentences, columns)
            ids_list = np.split(ids, np.cumsum([len(s) for s in sentences])[:-1])
            return kernels.role_scores(ids_list, predicates, self.w, self.cfg, self.tables,
                                       windows), bounds
        # window approach: one row per predicate, over its window and `half` words of
        # context on each side (so the window's edges see their true neighbours)
        half = self.cfg.window // 2
        rows = []
        for s, c, ps, ws in zip(sentences, columns, predicates, windows, strict=True):
            for p, (lo, hi) in zip(ps, ws, strict=True):
                c0, c1 = max(0, lo - half), min(len(s), hi + half)
                rows.append((s[c0:c1], {k: v[c0:c1] for k, v in c.items()}, p - c0, lo - c0))
        ids = self.featurizer.encode_many([r[0] for r in rows], [r[1] for r in rows],
                                          [r[2] for r in rows])
        lengths = [len(r[0]) for r in rows]
        scores = np.split(self.window_net(ids, lengths), np.cumsum(lengths)[:-1])
        n = int((bounds[:, 1] - bounds[:, 0]).max(initial=0))
        out = np.zeros((len(rows), n, len(self.tags)), dtype=np.float32)
        for r, (row, (lo, hi)) in enumerate(zip(rows, bounds, strict=True)):
            out[r, : hi - lo] = scores[r][row[3] : row[3] + hi - lo]
        return out, bounds

    def predict_role_windows(self, sentences: Sequence[Sequence[str]],
                             predicates: Sequence[Sequence[int]],
                             columns: Sequence[Mapping[str, Sequence[str]]],
                             windows: Sequence[Sequence[tuple[int, int]]] | None = None
                             ) -> list[list[tuple[int, list[str]]]]:
        """Non-empty sentences and their predicate positions -> per sentence, per predicate,
        (lo, role tags of words lo, lo + 1, ...): words outside the window are O.  One
        network pass and one Viterbi pass for all of them."""
        scores, bounds = self.role_scores(sentences, predicates, columns, windows)
        at = np.array([p for ps in predicates for p in ps], dtype=np.intp) - bounds[:, 0]
        paths = decode_roles(self.decoder, scores, bounds[:, 1] - bounds[:, 0], at, self.tags)
        name = self.tags.items.__getitem__
        tags = iter(zip(bounds[:, 0].tolist(), [list(map(name, p.tolist())) for p in paths],
                        strict=True))
        return [[next(tags) for _ in ps] for ps in predicates]

    def predict_roles_many(self, sentences: Sequence[Sequence[str]],
                           predicates: Sequence[Sequence[int]],
                           columns: Sequence[Mapping[str, Sequence[str]]]
                           ) -> list[list[list[str]]]:
        """Non-empty sentences and their predicate positions -> per sentence, one tag column
        per predicate (whole sentence)."""
        out = self.predict_role_windows(sentences, predicates, columns)
        return [[["O"] * lo + tags + ["O"] * (len(s) - lo - len(tags)) for lo, tags in cols]
                for s, cols in zip(sentences, out, strict=True)]
