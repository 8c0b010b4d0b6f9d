"""Vocab: a two-way str <-> id map with PADDING at id 0 and RARE at id 1.

Every discrete feature of the network (words, caps, suffixes, gazetteer flags, tags used as
features) is one Vocab plus one lookup table, so id 0 always pads a window or a sentence and
id 1 always stands for anything unseen.  Saved as plain text, one entry per line.
"""

from __future__ import annotations

import hashlib
import os
import sys
import weakref
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import repeat

import numpy as np

from senna.text.normalize import PADDING, RARE

_IDS: list[int] = []   # one int object per id, shared by every Vocab's index


def _ids(n: int) -> list[int]:
    """At least n ids 0, 1, ...: the index dicts of several 100k-word vocabularies then hold
    the same int objects instead of 100k new ones each (2.8 MB apiece)."""
    if len(_IDS) < n:
        _IDS.extend(range(len(_IDS), n))
    return _IDS


SHARED_MIN = 10_000  # loaded vocabularies at least this large share one word dictionary
_WORDS: dict[str, int] = {}   # every word of those vocabularies -> its number


class SharedIndex(Mapping[str, int]):
    """word -> id of a large vocabulary through the process-wide dictionary _WORDS.

    Why: the taggers' 100k-word dictionaries (three distinct ones among the five shipped
    models) are mostly the same words, so one dict of their union plus an int32 array per
    vocabulary (number -> id) replaces a 4 MB dict each.  Lookups cost a method call: the
    featurizer makes them once per distinct word, not per token.
    """

    def __init__(self, items: list[str]):
        words = _WORDS
        numbers = [words.setdefault(w, len(words)) for w in items]
        self.local = np.full(len(words), -1, dtype=np.int32)
        self.local[numbers] = np.arange(len(items), dtype=np.int32)
        self.items = items

    def get(self, key: str, default: int | None = None) -> int | None:  # type: ignore[override]
        n = _WORDS.get(key)
        if n is None or n >= len(self.local) or self.local[n] < 0:
            return default
        return int(self.local[n])

    def ids(self, keys: Sequence[str], default: int) -> np.ndarray:
        """`get` over many keys at once (one array lookup for all of them)."""
        numbers = np.fromiter(map(_WORDS.get, keys, repeat(-1)), np.intp, len(keys))
        known = (numbers >= 0) & (numbers < len(self.local))
        out = np.full(len(keys), default, dtype=np.int64)
        found = self.local[numbers[known]]
        out[np.flatnonzero(known)[found >= 0]] = found[found >= 0]
        return out

    def __getitem__(self, key: str) -> int:
        i = self.get(key)
        if i is None:
            raise KeyError(key)
        return i

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[str]:
        return iter(self.items)


class Vocab:
    """Ordered entries; `PADDING` is id 0 and `RARE` id 1 (both always present)."""

    def __init__(self, entries: Sequence[str], shared: bool = False):
        items = [PADDING, RARE] + [e for e in entries if e not in (PADDING, RARE)]
        self.items: list[str] = list(dict.fromkeys(items))
        n = len(self.items)
        self.index: Mapping[str, int] = (
            SharedIndex(self.items) if shared else dict(zip(self.items, _ids(n)[:n],
                                                            strict=True)))

    pad_id = 0
    unk_id = 1

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, item: str) -> bool:
        return item in self.index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocab) and self.items == other.items

    def id(self, item: str) -> int:
        return self.index.get(item, 1)

    def ids(self, items: Sequence[str]) -> Sequence[int]:
        """Ids of many items (unknown -> RARE)."""
        if isinstance(self.index, SharedIndex):
            return self.index.ids(items, self.unk_id)
        return list(map(self.index.get, items, repeat(self.unk_id)))

    def encode(self, items: Iterable[str]) -> np.ndarray:
        """[T] strings -> [T] int64 ids (unknown -> RARE)."""
        get = self.index.get
        return np.fromiter((get(s, 1) for s in items), dtype=np.int64)

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self.items[i] for i in ids]

    @classmethod
    def from_counts(
        cls, counts: Counter[str], max_size: int | None = None, min_count: int = 1
    ) -> Vocab:
        """Most frequent first, ties broken alphabetically, so builds are reproducible."""
        ranked = sorted((w for w, c in counts.items() if c >= min_count),
                        key=lambda w: (-counts[w], w))
        if max_size is not None:
            ranked = ranked[: max(0, max_size - 2)]
        return cls(ranked)

    def save(self, path: str | os.PathLike) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(self.items) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> Vocab:
        """Files with the same content give the same (immutable) Vocab while one is in use:
        taggers trained from one dictionary (the shipped POS, PT0 and SRL models) then
        share it, its index and the time to build it."""
        with open(path, "rb") as f:
            data = f.read()
        key = hashlib.blake2b(data, digest_size=16).digest()
        vocab = _LOADED.get(key)
        if vocab is not None:
            return vocab
        items = data.decode("utf-8").split("\n")
        if items and items[-1] == "":
            items.pop()
        if items[:2] != [PADDING, RARE]:
            raise ValueError(f"{path}: a vocabulary must start with {PADDING}, {RARE}")
        # interned: the taggers' 100k-word dictionaries mostly hold the same words (those of
        # the shared embeddings), so they share one copy of each string in memory
        vocab = cls(list(map(sys.intern, items)), shared=len(items) >= SHARED_MIN)
        _LOADED[key] = vocab
        return vocab


_LOADED: weakref.WeakValueDictionary[bytes, Vocab] = weakref.WeakValueDictionary()


class TagSet:
    """Output labels of a task: a plain list, no padding or unknown entries."""

    def __init__(self, tags: Sequence[str]):
        self.items = list(tags)
        self.index = {t: i for i, t in enumerate(self.items)}

    def __len__(self) -> int:
        return len(self.items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TagSet) and self.items == other.items

    def encode(self, tags: Sequence[str]) -> np.ndarray:
        try:
            return np.array([self.index[t] for t in tags], dtype=np.int64)
        except KeyError as e:
            raise ValueError(f"unknown tag {e.args[0]!r}; known: {len(self)} tags") from None

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self.items[i] for i in ids]
