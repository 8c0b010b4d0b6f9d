"""Discrete features -> integer ids, one column per lookup table (paper section 3.1.1).

A feature is data, not code: a `FeatureSpec` names what to extract (the normalised word, the
caps pattern, a suffix, a gazetteer flag, another tagger's output column, the distance to the
predicate) and how wide its embedding is.  `Featurizer` turns a sentence into ids [T, F], the
only thing a network sees.  Adding a cascade (POS for CHUNK, PT0 for SRL) means adding a spec.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from senna.text.normalize import CAPS_TAGS, caps_feature, normalize_word, suffix
from senna.vocab import Vocab

KINDS = ("word", "caps", "suffix", "gazetteer", "column", "pred_distance")


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

    def flags(self, words: Sequence[str], kind: str) -> np.ndarray:
        """[T] bool: word is inside some entry of type `kind` (case-sensitive match)."""
        out = np.zeros(len(words), dtype=bool)
        table = self.entries.get(kind, set())
        for i in range(len(words)):
            for n in range(1, min(self.max_len, len(words) - i) + 1):
                if tuple(words[i : i + n]) in table:
                    out[i : i + n] = True
        return out


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

    def column_ids(self, spec: FeatureSpec, words: Sequence[str],
                   columns: Mapping[str, Sequence[str]], predicate: int | None) -> np.ndarray:
        """[T] ids of one feature."""
        vocab = self.vocabs[spec.name]
        if spec.kind == "word":
            return vocab.encode(normalize_word(w) for w in words)
        if spec.kind == "caps":
            return np.fromiter((caps_feature(w) + 1 for w in words), np.int64, len(words))
        if spec.kind == "suffix":
            return vocab.encode(suffix(w, int(spec.arg)) for w in words)
        if spec.kind == "gazetteer":
            assert self.gazetteer is not None
            return self.gazetteer.flags(words, spec.arg).astype(np.int64) + 2
        if spec.kind == "pred_distance":
            if predicate is None:
                raise ValueError("the pred_distance feature needs a predicate position")
            clip = int(spec.arg)
            dist = np.clip(np.arange(len(words)) - predicate, -clip, clip)
            return dist + clip + 2
        if spec.arg not in columns:
            raise ValueError(f"feature {spec.name!r} needs input column {spec.arg!r}")
        return vocab.encode(columns[spec.arg])

    def encode(self, words: Sequence[str], columns: Mapping[str, Sequence[str]] | None = None,
               predicate: int | None = None) -> np.ndarray:
        """Sentence -> ids [T, F] (F = number of specs, in spec order)."""
        columns = columns or {}
        out = np.empty((len(words), len(self.specs)), dtype=np.int64)
        for j, spec in enumerate(self.specs):
            out[:, j] = self.column_ids(spec, words, columns, predicate)
        return out

    def sizes(self) -> list[int]:
        return [len(self.vocabs[s.name]) for s in self.specs]

    def config(self) -> list[dict]:
        return [asdict(s) for s in self.specs]
