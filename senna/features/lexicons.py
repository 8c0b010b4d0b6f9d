"""Lexical resources a model carries besides its vocabularies: a gazetteer's typed entries
and a cluster lexicon (word -> cluster ids), each with its file formats."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from itertools import chain
from pathlib import Path

import numpy as np

from senna.io.npz import load_npy
from senna.vocab import FileIndex


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
    def load(cls, path: str | os.PathLike, strict: bool = False) -> Gazetteer:
        """Read `TYPE word word ...` lines (the CoNLL-2003 list format).  `strict` (a
        model's own copy, which `save` wrote): UTF-8 and every line an entry, else
        ValueError naming the line; otherwise undecodable bytes and other lines are
        passed over, as in lists found elsewhere."""
        entries: dict[str, set[tuple[str, ...]]] = {}
        with open(path, encoding="utf-8", errors="strict" if strict else "replace") as f:
            for n, line in enumerate(f, 1):
                parts = line.split()
                if len(parts) >= 2:
                    entries.setdefault(parts[0], set()).add(tuple(parts[1:]))
                elif strict:
                    raise ValueError(f"{path}:{n}: expected 'TYPE word ...', got "
                                     f"{line.strip()[:40]!r}")
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


_DIGIT = re.compile(r"\d")


def cluster_key(word: str) -> str:
    """A word's key in a cluster lexicon: as written, every digit 0 ("1,250" -> "0,000")."""
    return _DIGIT.sub("0", word)


class Lexicon:
    """Cased word keys (`cluster_key`) -> one cluster id per granularity (senna.lm.clusters
    builds it).  File: a header ``#clusters <size> <size> ...``, then ``key<TAB>id<TAB>id
    ...`` lines, most frequent words first.

    Why not a dict: 150,000 keys as strings and tuples cost about 30 MB in a tagger that
    stays under 150 MB; here the keys stay one block of bytes (`FileIndex`, searched, then
    indexed at 21 bytes a key once lookups pay for it) and the ids one uint16 array."""

    def __init__(self, sizes: Sequence[int], entries: Mapping[str, Sequence[int]]):
        keys = list(entries)
        if any(not k or k != k.strip() or "\n" in k or "\t" in k for k in keys):
            raise ValueError("cluster lexicon keys must be words without white space")
        ids = np.array([tuple(v) for v in entries.values()], dtype=np.int64)
        self._set(sizes, "".join(k + "\n" for k in keys).encode("utf-8", "surrogatepass"),
                  ids.reshape(len(keys), len(sizes)), "cluster lexicon")

    def _set(self, sizes: Sequence[int], keys: bytes, ids: np.ndarray, name: str) -> None:
        self.sizes = [int(s) for s in sizes]
        if not self.sizes or any(not 2 <= n <= 65535 for n in self.sizes) \
                or ids.shape[1:] != (len(self.sizes),) \
                or (ids.size and ((ids < 0) | (ids >= self.sizes)).any()):
            raise ValueError(f"{name}: sizes must be 2..65535 and each id below its size")
        self._keys = FileIndex(keys, name)
        if len(self._keys) != len(ids):
            raise ValueError(f"{name}: {len(self._keys)} keys for {len(ids)} rows of ids")
        self._ids = ids.astype(np.uint16)
        self._last: tuple[Sequence[str], np.ndarray] | None = None

    @property
    def entries(self) -> dict[str, tuple[int, ...]]:
        """key -> ids (a dict made on demand: for tests and inspection, not lookups)."""
        return dict(zip(self._keys.items, map(tuple, self._ids.tolist()), strict=True))

    def lookup(self, words: Sequence[str], size: int) -> np.ndarray:
        """[len(words)] cluster ids at granularity `size`; -1 for words not in the lexicon.
        The Featurizer asks once per granularity with the same list of new words: the keys
        are looked up for the first and kept for the others."""
        if self._last is None or self._last[0] is not words:
            rows = np.asarray(self._keys.ids([cluster_key(w) for w in words], -1), np.int64)
            self._last = (words, rows)
        rows = self._last[1]
        return np.where(rows >= 0, self._ids[rows, self.sizes.index(size)].astype(np.int64), -1)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Lexicon:
        """Checked and parsed by NumPy, never a Python object per line, so that loading
        neither raises the tagger's peak memory nor costs a one-sentence run much time."""
        with open(path, "rb") as f:
            head, _, body = f.read().partition(b"\n")
        try:
            words = head.split()
            if not words or words[0] != b"#clusters":
                raise ValueError
            sizes = [int(s) for s in words[1:]]
            n = len(sizes)
            if not n:
                raise ValueError
            if body and not body.endswith(b"\n"):
                body += b"\n"
            raw = np.frombuffer(body, dtype=np.uint8)
            ends = np.flatnonzero(raw == 10)
            starts = np.r_[0, ends[:-1] + 1]
            tabs = np.flatnonzero(raw == 9)
            # every line: a key of no white space, then n tab-separated digit runs
            if len(ends) and (
                    not (np.diff(np.r_[0, np.searchsorted(tabs, ends)]) == n).all()
                    or (tabs[::n] == starts).any()):
                raise ValueError
            mark = np.zeros(len(raw) + 1, dtype=np.int8)           # +1 at a line's start,
            mark[starts] = 1                                       # -1 at its first tab (keys
            mark[tabs[::n]] = -1                                   # are never empty): > 0 in it
            in_key = np.cumsum(mark[:-1], dtype=np.int8) > 0
            key_bytes, rest = raw[in_key], raw[~in_key]
            digit = (rest >= 48) & (rest <= 57)
            after_tab = raw[tabs + 1]   # a digit run starts after every tab
            if ((key_bytes == 32) | (key_bytes == 13)).any() \
                    or not (digit | (rest == 9) | (rest == 10)).all() \
                    or ((after_tab < 48) | (after_tab > 57)).any():
                raise ValueError
            in_key[ends] = True                                     # one key a line
            keys = raw[in_key].tobytes()
            ids = np.fromstring(raw[~in_key].tobytes().decode("ascii"), dtype=np.int64,
                                sep=" ") if body else np.zeros(0, np.int64)
            lexicon = cls.__new__(cls)
            lexicon._set(sizes, keys, ids.reshape(-1, len(sizes)), str(path))
            lexicon._keys.built()   # distinct keys, valid UTF-8: checked now, not in use
        except ValueError as e:
            detail = f" ({e})" if str(e) else ""
            raise ValueError(f"{path}: not a cluster lexicon ('#clusters <size> ...', then "
                             f"'word<TAB>id ...' lines){detail}") from None
        return lexicon

    def save(self, path: str | os.PathLike) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write("#clusters " + " ".join(map(str, self.sizes)) + "\n")
            f.writelines(k + "\t" + "\t".join(map(str, v)) + "\n"
                         for k, v in zip(self._keys.items, self._ids.tolist(), strict=True))

    MODEL_FILES = ("clusters.words", "clusters.npy")

    def save_model_files(self, path: str | os.PathLike) -> None:
        """A model's copy, in two files: the keys one a line under the ``#clusters`` header,
        and the ids as a uint16 ``.npy``.  Why not the text lexicon: parsing and checking its
        150,000 lines takes about 65 ms, a fifth of a one-sentence run; these load in a few
        (the keys are checked as UTF-8, the ids against the sizes; distinct keys, as for
        every dictionary, when the index is built)."""
        words, ids = (Path(path) / name for name in self.MODEL_FILES)
        header = ("#clusters " + " ".join(map(str, self.sizes)) + "\n").encode("ascii")
        words.write_bytes(header + self._keys.data)
        with open(ids, "wb") as f:
            np.save(f, self._ids)

    @classmethod
    def load_model_files(cls, path: str | os.PathLike) -> Lexicon:
        """What `save_model_files` wrote into the model directory `path`."""
        words, ids_file = (Path(path) / name for name in cls.MODEL_FILES)
        head, _, keys = words.read_bytes().partition(b"\n")
        try:
            fields = head.split()
            if not fields or fields[0] != b"#clusters":
                raise ValueError("no '#clusters <size> ...' header")
            sizes = [int(s) for s in fields[1:]]
            count = keys.count(b"\n") + (not keys.endswith(b"\n") and bool(keys))
        except ValueError as e:   # UnicodeDecodeError too
            raise ValueError(f"{words}: corrupt cluster lexicon ({e})") from None

        def expect(name: str, shape: tuple[int, ...], dtype: np.dtype) -> None:
            if dtype != np.uint16 or shape != (count, len(sizes)):
                raise ValueError(f"{dtype} array of shape {shape}, expected uint16 of shape "
                                 f"{(count, len(sizes))} ({words.name}: {count} keys, "
                                 f"{len(sizes)} sizes)")

        try:
            ids = load_npy(ids_file, expect)
        except (ValueError, EOFError) as e:
            detail = str(e).removeprefix(str(ids_file)).removeprefix(":").strip()
            raise ValueError(f"{ids_file}: corrupt cluster ids ({detail})") from None
        lexicon = cls.__new__(cls)
        try:
            lexicon._set(sizes, keys, ids, str(words))
        except ValueError as e:   # UnicodeDecodeError too
            raise ValueError(f"{words}: corrupt cluster lexicon ({e})") from None
        return lexicon

    def preload(self) -> None:
        """Index the keys now (which checks that none is listed twice)."""
        self._keys.built()

