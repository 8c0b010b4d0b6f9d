"""`Featurizer`: sentences -> ids [T, F] through the kinds of a model's specs, the only
thing a network sees."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from itertools import chain, repeat

import numpy as np

from senna.features.kinds import KINDS, Batch, ClusterFeature, Feature, GazetteerFeature
from senna.features.lexicons import Gazetteer, Lexicon
from senna.features.specs import FeatureSpec
from senna.text.normalize import normalize_words
from senna.vocab import Vocab


class Featurizer:
    """Specs + their vocabularies (+ a gazetteer, a cluster lexicon): sentence -> ids [T, F]."""

    def __init__(self, specs: Sequence[FeatureSpec], vocabs: Mapping[str, Vocab],
                 gazetteer: Gazetteer | None = None, lexicon: Lexicon | None = None):
        self.specs = list(specs)
        self.vocabs = dict(vocabs)
        self.gazetteer = gazetteer
        self.lexicon = lexicon
        missing = [s.name for s in self.specs if s.name not in self.vocabs]
        if missing:
            raise ValueError(f"no vocabulary for features {missing}")
        self.kinds = [KINDS[s.kind](s, self.vocabs[s.name]) for s in self.specs]
        if gazetteer is None and any(isinstance(k, GazetteerFeature) for k in self.kinds):
            raise ValueError("a gazetteer feature needs a gazetteer list")
        for k in self.of_kind(ClusterFeature):
            if lexicon is None or int(k.spec.arg) not in lexicon.sizes:
                raise ValueError(f"feature {k.spec.name!r} needs a cluster lexicon with "
                                 f"{k.spec.arg} clusters (--clusters FILE)")
            if len(k.vocab) != int(k.spec.arg) + 2:
                raise ValueError(f"feature {k.spec.name!r}: its vocabulary does not list "
                                 f"{k.spec.arg} clusters")
            k.lexicon = lexicon
        self._per_word = [j for j, k in enumerate(self.kinds) if k.per_word]
        self._clear_cache()

    def _clear_cache(self) -> None:
        self._cache: dict[str, int] = {}   # word -> its row of _table
        self._table = np.empty((0, len(self._per_word)), dtype=np.int64)

    @classmethod
    def fit(cls, specs: Sequence[FeatureSpec], sentences: Sequence,
            gazetteer: Gazetteer | None = None, words: Vocab | None = None,
            max_words: int = 100_000, vocabs: Mapping[str, Vocab] | None = None,
            lexicon: Lexicon | None = None) -> Featurizer:
        """Build vocabularies from training sentences (`words` given: use that dictionary;
        `vocabs`: features whose vocabulary is given, e.g. those shared by joint tasks)."""
        given = vocabs or {}
        fitted = {s.name: given[s.name] if s.name in given
                  else KINDS[s.kind].fit_vocab(s, sentences, words, max_words) for s in specs}
        return cls(specs, fitted, gazetteer, lexicon)

    def index(self, kind: type[Feature]) -> int:
        """Position of the first feature of a kind (e.g. the word table)."""
        return next(j for j, k in enumerate(self.kinds) if isinstance(k, kind))

    def of_kind(self, kind: type[Feature]) -> list[Feature]:
        return [k for k in self.kinds if isinstance(k, kind)]

    def net_shapes(self) -> list[list[int]]:
        """NetConfig.chars: per feature, what its network part needs ([] for a lookup
        table); [] when every feature is a lookup table."""
        shapes = [k.net_shape() for k in self.kinds]
        return shapes if any(shapes) else []

    def forget(self) -> None:
        """Drop every per-word id given so far and the state behind them (spellings), to
        bound memory: only when no ids encoded before are used again (the runtime between
        batches; never while training examples are kept)."""
        self._clear_cache()
        for k in self.kinds:
            k.reset()

    # Word-level features (word, caps, suffix) depend on the word alone: they are computed
    # once per distinct word and kept in a table; the cache is emptied between batches once
    # it holds CACHE_WORDS words, so memory stays bounded on endless input.
    CACHE_WORDS = 50_000

    def _add_words(self, words: list[str]) -> None:
        """New distinct words -> new table rows: each kind computes all of its ids at once."""
        norms = normalize_words(words)
        cols = [self.kinds[j].word_ids(words, norms) for j in self._per_word]
        rows = np.array(cols, dtype=np.int64).reshape(len(cols), len(words)).T
        first = len(self._table)
        self._cache.update(zip(words, range(first, first + len(words)), strict=True))
        self._table = np.concatenate([self._table, rows])

    def _word_ids(self, words: list[str]) -> np.ndarray:
        """[len(words), number of word-level features] ids through the per-word cache."""
        if len(self._table) >= self.CACHE_WORDS:
            self._clear_cache()  # kinds keep their state: ids already given stay valid
        cache = self._cache
        index = np.fromiter(map(cache.get, words, repeat(-1)), np.intp, len(words))
        missing = np.flatnonzero(index < 0)
        if len(missing):
            self._add_words([w for w in dict.fromkeys(words) if w not in cache])
            if 4 * len(missing) < len(words):   # patch the few, else look all up again
                index[missing] = [cache[words[i]] for i in missing.tolist()]
            else:
                index = np.fromiter(map(cache.__getitem__, words), np.intp, len(words))
        return self._table[index]

    def encode_many(self, sentences: Sequence[Sequence[str]],
                    columns: Sequence[Mapping[str, Sequence[str]]] | None = None,
                    predicates: Sequence[int | None] | None = None) -> np.ndarray:
        """Sentences -> ids [sum T, F], one row per word, sentence after sentence (F = number
        of specs, in spec order).  `columns`/`predicates`: one per sentence."""
        lengths = [len(s) for s in sentences]
        n = sum(lengths)
        out = np.empty((n, len(self.specs)), dtype=np.int64)
        if self._per_word:
            out[:, self._per_word] = self._word_ids(list(chain.from_iterable(sentences)))
        others = [j for j, k in enumerate(self.kinds) if not k.per_word]
        if others:
            matches = self._matches(sentences)
            batch = Batch(lengths, columns or [{}] * len(sentences),
                          predicates or [None] * len(sentences), self.gazetteer, matches)
            for j in others:
                out[:, j] = self.kinds[j].batch_ids(batch)
        return out

    def _matches(self, sentences: Sequence[Sequence[str]]) -> np.ndarray | None:
        """Gazetteer flags of the words."""
        return None if self.gazetteer is None else self.gazetteer.match(sentences)

    def encode(self, words: Sequence[str], columns: Mapping[str, Sequence[str]] | None = None,
               predicate: int | None = None) -> np.ndarray:
        """Sentence -> ids [T, F] (F = number of specs, in spec order)."""
        return self.encode_many([words], [columns or {}], [predicate])

    def sizes(self) -> list[int]:
        return [len(self.vocabs[s.name]) for s in self.specs]

    def config(self) -> list[dict]:
        return [asdict(s) for s in self.specs]
