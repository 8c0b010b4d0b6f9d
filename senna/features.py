"""Discrete features -> integer ids, one column per lookup table (paper section 3.1.1).

A feature is data, not code: a `FeatureSpec` names what to extract (the normalised word, the
caps pattern, a suffix, a gazetteer flag, another tagger's output column, the distance to the
predicate) and how wide its embedding is.  `Featurizer` turns a sentence into ids [T, F], the
only thing a network sees.  Adding a cascade (POS for CHUNK, PT0 for SRL) means adding a spec.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import chain, repeat

import numpy as np

from senna.text.normalize import CAPS_TAGS, caps_feature, normalize_word, suffix
from senna.vocab import Vocab

KINDS = ("word", "caps", "suffix", "gazetteer", "column", "pred_distance")
WORD_KINDS = ("word", "caps", "suffix")   # functions of the word alone (cached per word)


@dataclass(frozen=True)
class FeatureSpec:
    """One lookup table: `kind` says how ids are computed, `arg` parameterises it.

    word: normalised word; caps: caps pattern; suffix: last `arg` chars; gazetteer: is the word
    inside an entry of type `arg`; column: the sentence's column `arg` (e.g. "pos");
    pred_distance: distance to the predicate, clipped at `arg` (window approach for SRL).
    """

    name: str
    kind: str
    dim: int
    arg: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"feature kind must be one of {KINDS}, got {self.kind!r}")


def word(dim: int = 50) -> FeatureSpec:
    return FeatureSpec("word", "word", dim)


def caps(dim: int = 5) -> FeatureSpec:
    return FeatureSpec("caps", "caps", dim)


def suffix_feature(n: int = 2, dim: int = 5) -> FeatureSpec:
    return FeatureSpec(f"suffix{n}", "suffix", dim, str(n))


def gazetteer_feature(kind: str, dim: int = 5) -> FeatureSpec:
    return FeatureSpec(f"gaz_{kind}", "gazetteer", dim, kind)


def column(name: str, dim: int = 5) -> FeatureSpec:
    return FeatureSpec(name, "column", dim, name)


def pred_distance(clip: int = 10, dim: int = 5) -> FeatureSpec:
    return FeatureSpec("pred_distance", "pred_distance", dim, str(clip))


class Gazetteer:
    """Typed multi-word entries; every word of a matched entry switches its type's flag on."""

    def __init__(self, entries: Mapping[str, set[tuple[str, ...]]]):
        self.entries = {k: set(v) for k, v in entries.items()}
        self.max_len = max((len(e) for v in self.entries.values() for e in v), default=0)
        self.kinds = sorted(self.entries)
        # Why an index: matching tries only the entry lengths that exist for a token's first
        # word, instead of every n-gram up to max_len against every type.
        self._types: dict[tuple[str, ...], list[int]] = {}
        self._lengths: dict[str, list[int]] = {}
        for j, kind in enumerate(self.kinds):
            for e in self.entries[kind]:
                self._types.setdefault(e, []).append(j)
                if e and len(e) not in self._lengths.setdefault(e[0], []):
                    self._lengths[e[0]].append(len(e))

    @classmethod
    def load(cls, path: str | os.PathLike) -> Gazetteer:
        """Read `TYPE word word ...` lines (the CoNLL-2003 list format)."""
        entries: dict[str, set[tuple[str, ...]]] = {}
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2:
                    entries.setdefault(parts[0], set()).add(tuple(parts[1:]))
        if not entries:
            raise ValueError(f"{path}: no gazetteer entries (expected 'TYPE word ...' lines)")
        return cls(entries)

    def save(self, path: str | os.PathLike) -> None:
        lines = sorted(f"{k} {' '.join(e)}" for k, v in self.entries.items() for e in v)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    def match(self, sentences: Sequence[Sequence[str]]) -> np.ndarray:
        """[sum T, len(kinds)] bool, sentence after sentence: the word is inside some entry
        of that type (case-sensitive; entries never span two sentences)."""
        words = list(chain.from_iterable(sentences))
        out = np.zeros((len(words), len(self.kinds)), dtype=bool)
        ends = np.repeat(np.cumsum([len(s) for s in sentences]), [len(s) for s in sentences])
        lengths = self._lengths.get
        for i in [i for i, n in enumerate(map(lengths, words)) if n]:
            end = int(ends[i])
            for n in self._lengths[words[i]]:
                if i + n <= end:
                    types = self._types.get(tuple(words[i : i + n]))
                    if types:
                        out[i : i + n, types] = True
        return out

    def flags(self, words: Sequence[str], kind: str) -> np.ndarray:
        """[T] bool: word is inside some entry of type `kind` (case-sensitive match)."""
        if kind not in self.entries:
            return np.zeros(len(words), dtype=bool)
        return self.match([words])[:, self.kinds.index(kind)]


def input_columns(sentence) -> dict[str, list[str]]:
    """Columns a feature may read: a Sentence's columns, or an SRL sentence's POS plus any
    attached tag columns (PT0)."""
    if hasattr(sentence, "columns"):
        return sentence.columns
    return {"pos": sentence.pos, **getattr(sentence, "extra", {})}


def _fixed_vocab(spec: FeatureSpec) -> Vocab | None:
    if spec.kind == "caps":
        return Vocab(CAPS_TAGS[1:])  # caps_feature(w) + 1 == id
    if spec.kind == "gazetteer":
        return Vocab(["no", "yes"])  # ids 2, 3
    if spec.kind == "pred_distance":
        clip = int(spec.arg)
        return Vocab([str(d) for d in range(-clip, clip + 1)])
    return None


class _WordCache(dict):
    """word -> row of the word-level id table; a miss computes the row (C-speed hits)."""

    def __init__(self, miss: Callable[[str], int]):
        super().__init__()
        self.miss = miss

    def __missing__(self, word: str) -> int:
        return self.miss(word)


class Featurizer:
    """Specs + their vocabularies (+ a gazetteer): sentence -> ids [T, F]."""

    def __init__(self, specs: Sequence[FeatureSpec], vocabs: Mapping[str, Vocab],
                 gazetteer: Gazetteer | None = None):
        self.specs = list(specs)
        self.vocabs = dict(vocabs)
        self.gazetteer = gazetteer
        missing = [s.name for s in self.specs if s.name not in self.vocabs]
        if missing:
            raise ValueError(f"no vocabulary for features {missing}")
        if any(s.kind == "gazetteer" for s in self.specs) and gazetteer is None:
            raise ValueError("a gazetteer feature needs a gazetteer list")
        self._cache = _WordCache(self._word_row)
        self._rows: list[list[int]] = []
        width = sum(s.kind in WORD_KINDS for s in self.specs)
        self._table = np.empty((0, width), dtype=np.int64)

    @classmethod
    def fit(cls, specs: Sequence[FeatureSpec], sentences: Sequence,
            gazetteer: Gazetteer | None = None, words: Vocab | None = None,
            max_words: int = 100_000) -> Featurizer:
        """Build vocabularies from training sentences (`words` given: use that dictionary)."""
        vocabs: dict[str, Vocab] = {}
        for spec in specs:
            fixed = _fixed_vocab(spec)
            if fixed is not None:
                vocabs[spec.name] = fixed
            elif spec.kind == "word":
                vocabs[spec.name] = words or Vocab.from_counts(
                    Counter(normalize_word(w) for s in sentences for w in s.words), max_words)
            elif spec.kind == "suffix":
                n = int(spec.arg)
                vocabs[spec.name] = Vocab.from_counts(
                    Counter(suffix(w, n) for s in sentences for w in s.words))
            else:  # column: every value seen, sorted
                values = {t for s in sentences for t in input_columns(s)[spec.arg]}
                vocabs[spec.name] = Vocab(sorted(values))
        return cls(specs, vocabs, gazetteer)

    # Word-level features (word, caps, suffix) depend on the word alone: they are computed
    # once per distinct word and kept in a table; the cache is emptied between batches once
    # it holds CACHE_WORDS words, so memory stays bounded on endless input.
    CACHE_WORDS = 50_000

    def _word_row(self, word: str) -> int:
        """Cache miss: the ids of every word-level feature of `word`, as a new table row."""
        norm = normalize_word(word)
        ids = []
        for spec in self.specs:
            if spec.kind == "word":
                ids.append(self.vocabs[spec.name].index.get(norm, 1))
            elif spec.kind == "caps":
                ids.append(caps_feature(word) + 1)
            elif spec.kind == "suffix":
                ids.append(self.vocabs[spec.name].index.get(suffix(word, int(spec.arg)), 1))
        self._rows.append(ids)
        self._cache[word] = len(self._rows) - 1
        return len(self._rows) - 1

    def _word_ids(self, words: Iterable[str], n: int) -> np.ndarray:
        """[n, number of word-level features] ids through the per-word cache."""
        if len(self._rows) >= self.CACHE_WORDS:
            self._cache, self._rows = _WordCache(self._word_row), []
            self._table = self._table[:0]
        index = np.fromiter(map(self._cache.__getitem__, words), np.intp, n)
        if len(self._rows) > len(self._table):
            new = np.array(self._rows[len(self._table):], dtype=np.int64)
            self._table = np.concatenate([self._table, new.reshape(len(new), -1)])
        return self._table[index]

    def encode_many(self, sentences: Sequence[Sequence[str]],
                    columns: Sequence[Mapping[str, Sequence[str]]] | None = None,
                    predicates: Sequence[int | None] | None = None) -> np.ndarray:
        """Sentences -> ids [sum T, F], one row per word, sentence after sentence (F = number
        of specs, in spec order).  `columns`/`predicates`: one per sentence."""
        lengths = [len(s) for s in sentences]
        n = sum(lengths)
        out = np.empty((n, len(self.specs)), dtype=np.int64)
        cached = [j for j, s in enumerate(self.specs) if s.kind in WORD_KINDS]
        if cached:
            out[:, cached] = self._word_ids(chain.from_iterable(sentences), n)
        gaz = [j for j, s in enumerate(self.specs) if s.kind == "gazetteer"]
        if gaz:
            assert self.gazetteer is not None
            found = self.gazetteer.match(sentences)
            kinds = self.gazetteer.kinds
            for j in gaz:
                arg = self.specs[j].arg
                out[:, j] = found[:, kinds.index(arg)] + 2 if arg in kinds else 2
        for j, spec in enumerate(self.specs):
            if spec.kind == "column":
                cols = columns or [{}] * len(sentences)
                if any(spec.arg not in c for c, k in zip(cols, lengths, strict=True) if k):
                    raise ValueError(f"feature {spec.name!r} needs input column {spec.arg!r}")
                if any(len(c[spec.arg]) != k for c, k in zip(cols, lengths, strict=True) if k):
                    raise ValueError(f"input column {spec.arg!r} is not one value per word")
                get = self.vocabs[spec.name].index.get
                values = chain.from_iterable(c[spec.arg] if k else () for c, k
                                             in zip(cols, lengths, strict=True))
                out[:, j] = np.fromiter(map(get, values, repeat(1)), np.int64, n)
            elif spec.kind == "pred_distance":
                preds = predicates or [None] * len(sentences)
                if any(p is None for p, k in zip(preds, lengths, strict=True) if k):
                    raise ValueError("the pred_distance feature needs a predicate position")
                clip = int(spec.arg)
                starts = np.cumsum(lengths) - lengths
                offset = np.repeat(starts + np.array([p or 0 for p in preds]), lengths)
                out[:, j] = np.clip(np.arange(n) - offset, -clip, clip) + clip + 2
        return out

    def encode(self, words: Sequence[str], columns: Mapping[str, Sequence[str]] | None = None,
               predicate: int | None = None) -> np.ndarray:
        """Sentence -> ids [T, F] (F = number of specs, in spec order)."""
        return self.encode_many([words], [columns or {}], [predicate])

    def sizes(self) -> list[int]:
        return [len(self.vocabs[s.name]) for s in self.specs]

    def config(self) -> list[dict]:
        return [asdict(s) for s in self.specs]
