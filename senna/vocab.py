"""Vocab: a two-way str <-> id map with PADDING at id 0 and RARE at id 1.

Every discrete feature of the network (words, caps, suffixes, gazetteer flags, tags used as
features) is one Vocab plus one lookup table, so id 0 always pads a window or a sentence and
id 1 always stands for anything unseen.  Saved as plain text, one entry per line.
"""

from __future__ import annotations

import gzip
import os
import weakref
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import repeat
from typing import BinaryIO

import numpy as np

from senna.io.lines import MAX_LINE
from senna.io.manifest import open_regular
from senna.text.normalize import PADDING, RARE

_IDS: list[int] = []   # one int object per id, shared by every Vocab's index


def _ids(n: int) -> list[int]:
    """At least n ids 0, 1, ...: the index dicts of several 100k-word vocabularies then hold
    the same int objects instead of 100k new ones each (2.8 MB apiece)."""
    if len(_IDS) < n:
        _IDS.extend(range(len(_IDS), n))
    return _IDS


LARGE = 10_000  # loaded vocabularies at least this large are read as `FileVocab`s


class ByGet(Mapping[str, int]):
    """A read-only word -> id mapping whose subclasses give `get` (their fast lookup); the
    rest of the mapping protocol follows from it."""

    def __getitem__(self, key: str) -> int:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None


class LineHashes(ByGet):
    """entry -> line number of a one-entry-a-line file, answered from the file's bytes through
    a sorted array of the lines' hashes.

    Why: a dict of a 130k-word file costs a string per entry and the dict's table (21 MB for
    the four large dictionaries of a run of all four tasks); this costs 21 bytes a line (a
    64-bit hash, its line number, the line's start and end, a flag).  A lookup hashes the key's
    UTF-8 bytes (Python's SipHash), binary-searches the hashes and takes the line whose hash
    and length equal the key's: a key outside the file is taken for a line only if both
    agree by chance, about once in 10^14 lookups for 130k lines.  Lines that share a hash
    (none in the shipped files) are told apart by their bytes.  Entries must be distinct.
    """

    STEP = 1 << 14   # lines hashed at a time: few temporary bytes objects

    def __init__(self, data: bytes, name: str = "vocabulary"):
        self._data = data
        ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        if len(data) < 2**31:   # 32-bit offsets: 8 bytes a line less than flatnonzero's
            ends = ends.astype(np.int32)
        starts = np.concatenate([[0], ends[:-1] + 1]).astype(ends.dtype)[: len(ends)]
        self._starts, self._ends = starts, ends
        n = len(ends)
        hashes = np.empty(n, dtype=np.int64)
        for i in range(0, n, self.STEP):
            j = min(i + self.STEP, n)
            lines = data[starts[i] : ends[j - 1]].split(b"\n")
            hashes[i:j] = np.fromiter(map(hash, lines), np.int64, j - i)
        order = np.argsort(hashes)
        self._hashes, self._order = hashes[order], order.astype(np.int32)
        # lines of one hash (runs in the sorted order, rare): their bytes must differ, and
        # lookups landing there compare bytes
        self._tied = np.zeros(n, dtype=bool)
        ties = np.flatnonzero(self._hashes[1:] == self._hashes[:-1])
        runs = np.split(ties, np.flatnonzero(np.diff(ties) > 1) + 1) if len(ties) else []
        for run in runs:
            self._tied[run[0] : run[-1] + 2] = True
            lines = [self._line(int(i)) for i in self._order[run[0] : run[-1] + 2]]
            if len(set(lines)) < len(lines):
                raise ValueError(f"{name}: lists an entry twice")

    def _line(self, i: int) -> bytes:
        return self._data[self._starts[i] : self._ends[i]]

    def _find(self, key: bytes, at: int, h: int) -> int | None:
        """The line of `key` among the sorted hashes from position `at` (equal to `h`)."""
        while at < len(self._hashes) and self._hashes[at] == h:
            line = int(self._order[at])
            if self._line(line) == key:
                return line
            at += 1
        return None

    def _match(self, h: np.ndarray, lengths: np.ndarray, key: Callable[[int], bytes],
               default: int) -> np.ndarray:
        """Line numbers of keys with hashes `h` and byte lengths `lengths` (`key(k)`: key k's
        bytes, asked for only where lines share a hash), `default` where none."""
        out = np.full(len(h), default, dtype=np.int64)
        if not len(self._hashes) or not len(h):
            return out
        at = np.minimum(np.searchsorted(self._hashes, h), len(self._hashes) - 1)
        line = self._order[at]
        same = self._hashes[at] == h
        tied = same & self._tied[at]
        ok = same & ~tied & (self._ends[line] - self._starts[line] == lengths)
        out[ok] = line[ok]
        for k in np.flatnonzero(tied).tolist():
            found = self._find(key(k), int(at[k]), int(h[k]))
            if found is not None:
                out[k] = found
        return out

    def get(self, key: str, default: int | None = None) -> int | None:  # type: ignore[override]
        found = int(self.ids([key], -1)[0])
        return default if found < 0 else found

    def ids(self, keys: Sequence[str], default: int) -> np.ndarray:
        """`get` over many keys at once (one binary search for all of them)."""
        raw = [k.encode("utf-8", "surrogatepass") for k in keys]
        h = np.fromiter(map(hash, raw), np.int64, len(raw))
        lengths = np.fromiter(map(len, raw), np.int64, len(raw))
        return self._match(h, lengths, raw.__getitem__, default)

    def find(self, other: LineHashes, ids: np.ndarray, default: int) -> np.ndarray:
        """The line numbers here of the lines `ids` of another file (a join by hash: no
        string is made)."""
        ids = np.asarray(ids, dtype=np.intp)
        position = np.empty(len(other._order), dtype=np.intp)
        position[other._order] = np.arange(len(other._order))
        h = other._hashes[position[ids]]
        lengths = other._ends[ids] - other._starts[ids]
        return self._match(h, lengths, lambda k: other._line(int(ids[k])), default)

    def lines(self, ids: Sequence[int]) -> list[str]:
        """The entries of line numbers `ids`, decoded one by one (not the whole file)."""
        return [self._line(i).decode("utf-8") for i in ids]

    def __len__(self) -> int:
        return len(self._hashes)

    def __iter__(self) -> Iterator[str]:
        return iter(self.lines(range(len(self))))


def lookup_many(index: Mapping[str, int], keys: Sequence[str], default: int
                ) -> Sequence[int]:
    """`index.get(key, default)` for many keys, batched where the index can batch."""
    many = getattr(index, "ids", None)
    if many is not None:
        return many(keys, default)
    return list(map(index.get, keys, repeat(default)))


_UNSEEN = object()


class FileIndex(ByGet):
    """entry -> line number of a one-entry-a-line UTF-8 file, answered from the file's bytes
    until an index pays off.

    Why: indexing a tagger's 100k-word dictionary costs about 15 ms (a string per entry, a
    dict), a run of all four tasks has three of them plus the embeddings' 130k words, and
    tagging one sentence looks up a few dozen words.  So a lookup first searches the bytes
    (`bytes.find`, in C; the files list frequent words first, so most are found near the
    start) and counts the bytes it scanned; once that reaches BUILD_AFTER times the file's
    size (a scan of the whole file costs about 1/30 of an index) the index (`LineHashes`,
    which keeps no string per entry) is built and answers from then on.  A short input
    then pays a few scans, a long one the index plus at most BUILD_AFTER scans.  Entries
    must be distinct: building the index checks it.
    """

    BUILD_AFTER = 8
    FEW = 256   # `ids` of more keys at once builds the index right away

    def __init__(self, data: bytes, name: str):
        data.decode("utf-8")   # UnicodeDecodeError now, not at some later lookup
        self._data = data if data.endswith(b"\n") or not data else data + b"\n"
        self.name = name
        self._count = self._data.count(b"\n")
        self._items: list[str] | None = None
        self._index: LineHashes | None = None
        self._found: dict[str, int | None] = {}   # lookups so far, while no index exists
        self._scanned = 0

    @property
    def data(self) -> bytes:
        """The file's bytes, one entry a line (what it was made from)."""
        return self._data

    @property
    def items(self) -> list[str]:
        """The entries in file order (decoded on first use: lookups never need them)."""
        if self._items is None:
            self._items = self._data.decode("utf-8").split("\n")[:-1]
        return self._items

    def built(self) -> LineHashes:
        """The index (built now if it was not)."""
        if self._index is None:
            self._index, self._found = LineHashes(self._data, self.name), {}
        return self._index

    def _search(self, key: str) -> int | None:
        if self._scanned >= self.BUILD_AFTER * len(self._data):
            return self.built().get(key)
        found = self._found.get(key, _UNSEEN)
        if found is not _UNSEEN:
            return found  # type: ignore[return-value]
        line = key.encode("utf-8", "surrogatepass") + b"\n"
        if "\n" in key:
            at = -1
        elif self._data.startswith(line):
            at = 0
        else:
            at = self._data.find(b"\n" + line) + 1   # 0: not found
            at = at or -1
        self._scanned += len(self._data) if at < 0 else 2 * at   # find, then count
        found = self._found[key] = None if at < 0 else self._data.count(b"\n", 0, at)
        return found

    def get(self, key: str, default: int | None = None) -> int | None:  # type: ignore[override]
        found = self._index.get(key) if self._index is not None else self._search(key)
        return default if found is None else found

    def ids(self, keys: Sequence[str], default: int) -> Sequence[int]:
        """`get` over many keys."""
        if self._index is None and len(keys) <= self.FEW:   # searching may do
            return [self.get(k, default) for k in keys]
        return self.built().ids(keys, default)              # the index pays off

    def find(self, other: FileIndex, ids: Sequence[int], default: int) -> np.ndarray:
        """Line numbers here of `other`'s lines `ids`, joined by hash (no string made)."""
        return self.built().find(other.built(), np.asarray(ids), default)

    def entries(self, ids: Sequence[int], known: Mapping[int, str]) -> list[str]:
        """The entries of line numbers `ids`: from `known` and the keys looked up so far
        while no index exists (a table asks for the rows of words it was just given the
        ids of), else from their lines of the file."""
        if self._items is not None:
            return [self._items[i] for i in ids]
        seen = {i: k for k, i in self._found.items() if i is not None}
        seen.update(known)
        if all(i in seen for i in ids):
            return [seen[i] for i in ids]
        return self.built().lines(ids)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return iter(self.items)


class Vocab:
    """Ordered entries; `PADDING` is id 0 and `RARE` id 1 (both always present)."""

    def __init__(self, entries: Sequence[str]):
        items = [PADDING, RARE] + [e for e in entries if e not in (PADDING, RARE)]
        self.items: list[str] = list(dict.fromkeys(items))
        n = len(self.items)
        self.index: Mapping[str, int] = dict(zip(self.items, _ids(n)[:n], strict=True))

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
        return lookup_many(self.index, items, self.unk_id)

    def entries(self, ids: Sequence[int]) -> list[str]:
        """The items of many ids (`FileVocab` answers without decoding its whole file)."""
        return [self.items[i] for i in ids]

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
        """One entry a line, UTF-8; gzip-compressed when the name ends in .gz (a third of the
        size: `senna compact` stores a shipped model's dictionaries so)."""
        data = ("\n".join(self.items) + "\n").encode("utf-8")
        if str(path).endswith(".gz"):
            data = gzip.compress(data, compresslevel=9, mtime=0)   # same bytes every time
        with open(path, "wb") as f:
            f.write(data)

    @classmethod
    def load(cls, path: str | os.PathLike, entries: int | None = None, expected: str = ""
             ) -> Vocab:
        """Files with the same content give the same (immutable) Vocab while one is in use:
        taggers trained from one dictionary (the shipped POS, PT0 and SRL models) then
        share it, its index and the time to build it.  `entries`: the most lines the
        settings allow (`read_vocabulary`)."""
        data = read_vocabulary(path, entries=entries, expected=expected)
        if data and not data.endswith(b"\n"):
            data += b"\n"
        vocab = _LOADED.get(data)   # the content is the key (hashed and compared in C)
        if vocab is not None:
            return vocab
        if not data.startswith(f"{PADDING}\n{RARE}\n".encode()):
            raise ValueError(f"{path}: a vocabulary must start with {PADDING}, {RARE}")
        try:
            if data.count(b"\n") >= LARGE:   # duplicates: found when it is indexed
                vocab: Vocab = FileVocab(FileIndex(data, str(path)))
            else:
                items = data.decode("utf-8").split("\n")[:-1]
                if len(set(items)) != len(items):
                    raise ValueError(f"{path}: lists an entry twice")
                vocab = cls(items)
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: not UTF-8 ({e})") from None
        _LOADED[data] = vocab
        return vocab


_LOADED: weakref.WeakValueDictionary[bytes, Vocab] = weakref.WeakValueDictionary()

#: Largest vocabulary file read, once decompressed: 64 MiB, about 6 million entries (the
#: shipped word dictionaries are 1.2 MB).  A longer one is refused before it takes memory.
MAX_BYTES = 64 << 20


def read_vocabulary(path: str | os.PathLike, limit: int | None = None,
                    entries: int | None = None, expected: str = "") -> bytes:
    """A vocabulary file's bytes (decompressed when its name ends in .gz), refused with one
    line naming the file when it is not a regular file (a FIFO would block), holds more
    than `limit` bytes (default MAX_BYTES), a line longer than MAX_LINE bytes, or more than
    `entries` lines (what the settings call for, `expected` saying where): read and
    decompressed in pieces and checked as it reads, so that a small gzip of gigabytes of
    newlines, or of one line, stops within a few MiB."""
    limit = MAX_BYTES if limit is None else limit
    bound = _Bound(path, limit, entries, expected)
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise ValueError(f"{path}: {size:,} bytes, more than a vocabulary may have "
                             f"({limit:,})")
        if not str(path).endswith(".gz"):
            while piece := f.read(_PIECE):
                bound.add(piece)
            return bound.data()
        try:
            _gunzip(f, bound)
        except zlib.error as e:
            raise ValueError(f"{path}: not a gzip file ({e})") from None
    return bound.data()


_PIECE = MAX_LINE   # no line inside one piece is longer than MAX_LINE: only runs across


def _gunzip(f: BinaryIO, bound: _Bound) -> None:
    """Decompress the gzip members of `f`, one after another (as gzip.decompress reads
    them), into `bound`, a piece at a time."""
    unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)
    while True:
        if unpack.eof:
            rest = unpack.unused_data or f.read(_PIECE)
            if not rest:
                return
            unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)
        else:
            rest = unpack.unconsumed_tail or f.read(_PIECE)
            if not rest:
                raise ValueError(f"{bound.path}: not a gzip file (cut short)")
        bound.add(unpack.decompress(rest, _PIECE))


class _Bound:
    """The pieces of a vocabulary read so far, checked against its limits as they come."""

    def __init__(self, path: str | os.PathLike, limit: int, entries: int | None,
                 expected: str):
        self.path, self.limit, self.entries, self.expected = path, limit, entries, expected
        self.pieces: list[bytes] = []
        self.size = self.lines = self.run = 0   # run: bytes since the last line break

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.size > self.limit:
            raise ValueError(f"{self.path}: more than {self.limit:,} bytes once "
                             "decompressed, more than a vocabulary may have")
        first, last = piece.find(b"\n"), piece.rfind(b"\n")
        if self.run + (len(piece) if first < 0 else first) > MAX_LINE:
            raise ValueError(f"{self.path}:{self.lines + 1}: a line longer than "
                             f"{MAX_LINE:,} bytes, no vocabulary entry is that long")
        self.run = self.run + len(piece) if first < 0 else len(piece) - last - 1
        self.lines += piece.count(b"\n")
        if self.entries is not None and self.lines > self.entries:
            raise ValueError(f"{self.path}: more than {self.entries:,} entries"
                             f"{', ' + self.expected if self.expected else ''}")
        self.pieces.append(piece)

    def data(self) -> bytes:
        return b"".join(self.pieces)


class FileVocab(Vocab):
    """A large vocabulary as read from its file: `FileIndex` answers lookups, and the items
    are decoded only when asked for (a one-sentence run never does)."""

    def __init__(self, index: FileIndex):   # noqa: D107 (no Vocab.__init__: no item list)
        self.index = index

    @property  # type: ignore[override]
    def items(self) -> list[str]:
        return self.index.items

    def __len__(self) -> int:
        return len(self.index)

    def entries(self, ids: Sequence[int]) -> list[str]:
        return self.index.entries(ids, {self.pad_id: PADDING, self.unk_id: RARE})

    def preload(self) -> None:
        """Build the index now rather than when many words are first looked up."""
        self.index.built()


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
