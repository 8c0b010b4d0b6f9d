"""Discrete features -> integer ids, one column per lookup table (paper section 3.1.1).

A `FeatureSpec` (data, saved with a model) names a feature kind, its argument and how wide
its embedding is; each kind is a small class (`KINDS`) that builds its vocabulary from
training sentences and computes ids, either per word (word, caps, suffix, and chars, whose
ids name spellings: cached per distinct word) or over a batch (gazetteer matches, another
tagger's column, the distance to the predicate).  Ids come from the kind's vocabulary, never
from literal offsets.  `Featurizer` turns sentences into ids [T, F], the only thing a network
sees.  Adding a cascade (POS for CHUNK, PT0 for SRL) means adding a spec; adding a kind means
adding a class.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from itertools import chain, repeat
from pathlib import Path

import numpy as np

from senna.io.npz import load_npy
from senna.syntax.levels import GOLD_TREE, TREE, column_levels
from senna.text.normalize import (
    CAPS_TAGS,
    caps_feature,
    normalize_word,
    normalize_words,
    suffix,
    suffixes,
)
from senna.vocab import FileIndex, Vocab


@dataclass(frozen=True)
class FeatureSpec:
    """One lookup table: `kind` says how ids are computed, `arg` parameterises it.

    word: normalised word; caps: caps pattern; suffix: last `arg` chars; gazetteer: is the word
    inside an entry of type `arg`; column: the sentence's column `arg` (e.g. "pos");
    pred_distance: distance to the predicate, clipped at `arg` (window approach for SRL);
    chars: the word's characters through a convolution of `dim` filters, `arg` =
    "<character embedding width>,<window>" (`CharsFeature`); cluster: the word's cluster,
    as written, among `arg` clusters of a `Lexicon` (`ClusterFeature`); level: the tags of
    level `arg` of the sentence's parse tree (`LevelFeature`).
    """

    name: str
    kind: str
    dim: int
    arg: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"feature kind must be one of {tuple(KINDS)}, got {self.kind!r}")


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


def clusters(size: int | None = None, dim: int = 10) -> tuple[FeatureSpec, ...]:
    """Word clusters from unlabeled text (senna.lm.clusters): one table per granularity,
    `size` clusters, or the usual three (64, 512, 4096) when not given."""
    return tuple(FeatureSpec(f"cluster{n}", "cluster", dim, str(n))
                 for n in ([size] if size else CLUSTER_SIZES))


CLUSTER_SIZES = (64, 512, 4096)


def levels(deepest: int = 4, dim: int = 5) -> tuple[FeatureSpec, ...]:
    """The parse tree's levels 1 to `deepest`, one table each (level 0 is PT0's column):
    SRL reading the parser's levels, as in JMLR 2011 Table 12."""
    return tuple(FeatureSpec(f"level{k}", "level", dim, str(k)) for k in range(1, deepest + 1))


def chars(filters: int = 50, char_dim: int = 10, window: int = 3) -> FeatureSpec:
    """CharWNN's setting (dos Santos & Zadrozny 2014): 10-d characters, window 3, 50 filters."""
    return FeatureSpec("chars", "chars", filters, f"{char_dim},{window}")


def chars_arg(spec: FeatureSpec) -> tuple[int, int]:
    """A chars spec's (character embedding width, convolution window)."""
    try:
        char_dim, window = (int(x) for x in spec.arg.split(","))
    except ValueError:
        raise ValueError(f"feature {spec.name!r}: arg must be '<char dim>,<window>', "
                         f"got {spec.arg!r}") from None
    if char_dim < 1 or window < 1 or window % 2 == 0:
        raise ValueError(f"feature {spec.name!r}: the character width must be positive and "
                         f"the window odd, got {spec.arg!r}")
    return char_dim, window


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


class Feature:
    """A feature kind: how one lookup table's ids are computed.  `per_word` kinds depend on
    the word alone (their ids are cached per distinct word); the others read the whole
    batch (gazetteer matches, other taggers' columns, the predicate's position)."""

    per_word = False
    shared = False   # one table for every task of a jointly trained model (words, caps)

    def __init__(self, spec: FeatureSpec, vocab: Vocab):
        self.spec, self.vocab = spec, vocab

    @classmethod
    def fit_vocab(cls, spec: FeatureSpec, sentences: Sequence, words: Vocab | None,
                  max_words: int) -> Vocab:
        """The vocabulary a new model gets for this feature (from the training sentences)."""
        raise NotImplementedError

    def word_ids(self, words: Sequence[str], norms: Sequence[str]) -> Sequence[int]:
        """Per-word kinds: the ids of new distinct `words` (`norms`: their normalised
        forms), all of a batch's at once so lookups can be batched too."""
        raise NotImplementedError

    def batch_ids(self, batch: Batch) -> np.ndarray:
        """Other kinds: [batch.n] ids, sentence after sentence."""
        raise NotImplementedError

    def net_shape(self) -> list[int]:
        """What the network needs besides the table's size and width (NetConfig.chars)."""
        return []

    def reset(self) -> None:
        """Forget state behind ids given so far (`Featurizer.forget`)."""


class WordFeature(Feature):
    """The normalised word (lower case, digit runs -> NUMBER); unseen -> RARE."""

    per_word = True
    shared = True

    @classmethod
    def fit_vocab(cls, spec, sentences, words, max_words):
        return words or Vocab.from_counts(
            Counter(normalize_word(w) for s in sentences for w in s.words), max_words)

    def word_ids(self, words: Sequence[str], norms: Sequence[str]) -> Sequence[int]:
        return self.vocab.ids(norms)


class CapsFeature(Feature):
    """The capitalisation class (senna.text.normalize.CAPS_TAGS)."""

    per_word = True
    shared = True

    def __init__(self, spec: FeatureSpec, vocab: Vocab):
        super().__init__(spec, vocab)
        self._ids = [vocab.index.get(t, Vocab.unk_id) for t in CAPS_TAGS]

    @classmethod
    def fit_vocab(cls, spec, sentences, words, max_words):
        return Vocab(CAPS_TAGS[1:])  # CAPS_TAGS[0] is PADDING, Vocab's own id 0

    def word_ids(self, words: Sequence[str], norms: Sequence[str]) -> Sequence[int]:
        return [self._ids[c] for c in map(caps_feature, words)]


class SuffixFeature(Feature):
    """The last `arg` characters of the normalised word (POS, Table 14)."""

    per_word = True

    @classmethod
    def fit_vocab(cls, spec, sentences, words, max_words):
        n = int(spec.arg)
        return Vocab.from_counts(Counter(suffix(w, n) for s in sentences for w in s.words))

    def word_ids(self, words: Sequence[str], norms: Sequence[str]) -> Sequence[int]:
        return self.vocab.ids(suffixes(norms, int(self.spec.arg)))


class Spellings:
    """Spelling ids of a chars feature: id -> the word, whose characters `padded` turns into
    ids of the feature's vocabulary (rare ones RARE), all words of a batch at once.  Ids are
    handed out as words come (a word keeps its id), so any word, seen in training or not,
    has one; id 0 is a window position beyond the sentence (one PADDING character).  Words
    longer than LONGEST characters keep their first and last LONGEST / 2, which bounds the
    convolution's cost."""

    LONGEST = 40

    def __init__(self, chars: Vocab):
        singles = [c for c in chars.items if len(c) == 1]   # PADDING and RARE are words
        # code points -> ids, sorted for searchsorted; the sentinel is above every character
        codes = np.array([ord(c) for c in singles] + [0xFFFFFFFF], dtype=np.uint32)
        ids = np.array([chars.index[c] for c in singles] + [Vocab.unk_id], dtype=np.int64)
        order = np.argsort(codes)
        self._codes, self._char_ids = codes[order], ids[order]
        self.ids: dict[str, int] = {}
        self.words: list[str] = [""]
        self.generation = 0   # bumped by `reset`: ids given before mean nothing any more

    def __len__(self) -> int:
        return len(self.words)

    def id(self, word: str) -> int:
        i = self.ids.get(word)
        if i is None:
            i = self.ids[word] = len(self.words)
            half = self.LONGEST // 2
            self.words.append(word if len(word) <= self.LONGEST else word[:half] + word[-half:])
        return i

    def padded(self, ids: Sequence[int] | np.ndarray, half: int
               ) -> tuple[np.ndarray, np.ndarray]:
        """-> (character ids [U, L + 2 half], PADDING around and after each word; lengths
        [U]) for the spellings `ids`: the input of a convolution whose output position i
        covers characters i - half .. i + half, valid for i < length.  An empty word is
        one RARE character."""
        words = list(map(self.words.__getitem__, np.asarray(ids).tolist()))
        lengths = np.fromiter(map(len, words), np.int64, len(words))
        codes = np.frombuffer("".join(words).encode("utf-32-le", "surrogatepass"), np.uint32)
        at = np.searchsorted(self._codes, codes)
        chars = np.where(self._codes[at] == codes, self._char_ids[at], Vocab.unk_id)
        out = np.zeros((len(words), int(lengths.max(initial=1)) + 2 * half), dtype=np.int64)
        starts = np.cumsum(lengths) - lengths
        rows = np.repeat(np.arange(len(words)), lengths)
        out[rows, np.arange(len(codes)) - np.repeat(starts, lengths) + half] = chars
        empty = lengths == 0
        out[empty & (np.asarray(ids) != 0), half] = Vocab.unk_id
        return out, np.maximum(lengths, 1)

    def reset(self) -> None:
        self.ids, self.words = {}, self.words[:1]
        self.generation += 1


class CharsFeature(Feature):
    """The word's characters, for a convolution over them with max-pooling (CharWNN, dos
    Santos & Zadrozny 2014): the network turns a spelling id (`Spellings`) into a vector.
    The vocabulary is the characters seen at least twice in the training words (white space
    aside: vocabulary files hold one entry a line)."""

    per_word = True
    shared = True

    def __init__(self, spec: FeatureSpec, vocab: Vocab):
        super().__init__(spec, vocab)
        self.char_dim, self.window = chars_arg(spec)
        self.spellings = Spellings(vocab)

    @classmethod
    def fit_vocab(cls, spec, sentences, words, max_words):
        chars_arg(spec)
        counts = Counter(c for s in sentences for w in s.words for c in w)
        return Vocab.from_counts(Counter({c: n for c, n in counts.items() if not c.isspace()}),
                                 min_count=2)

    def word_ids(self, words: Sequence[str], norms: Sequence[str]) -> Sequence[int]:
        return list(map(self.spellings.id, words))

    def net_shape(self) -> list[int]:
        return [self.char_dim, self.window]

    def reset(self) -> None:
        self.spellings.reset()


class ClusterFeature(Feature):
    """The cluster of the word as written, among `arg` clusters of the model's `Lexicon`:
    a coarse, cased view learnt from unlabeled text, beside the lower-cased embeddings
    (Turian et al. 2010 combined both).  Words outside the lexicon -> RARE."""

    per_word = True
    shared = True
    lexicon: Lexicon | None = None   # set by the Featurizer

    @classmethod
    def fit_vocab(cls, spec, sentences, words, max_words):
        return Vocab([str(i) for i in range(int(spec.arg))])

    def word_ids(self, words: Sequence[str], norms: Sequence[str]) -> Sequence[int]:
        offset = len(self.vocab) - int(self.spec.arg)   # cluster i is item str(i)
        found = self.lexicon.lookup(words, int(self.spec.arg))
        return np.where(found < 0, Vocab.unk_id, found + offset)


class GazetteerFeature(Feature):
    """Is the word inside a gazetteer entry of type `arg` (NER, section 6.2)."""

    def __init__(self, spec: FeatureSpec, vocab: Vocab):
        super().__init__(spec, vocab)
        self.no, self.yes = vocab.index["no"], vocab.index["yes"]

    @classmethod
    def fit_vocab(cls, spec, sentences, words, max_words):
        return Vocab(["no", "yes"])

    def batch_ids(self, batch: Batch) -> np.ndarray:
        kinds = batch.gazetteer.kinds
        if self.spec.arg not in kinds:
            return np.full(batch.n, self.no, dtype=np.int64)
        found = batch.matches[:, kinds.index(self.spec.arg)]
        return np.where(found, self.yes, self.no).astype(np.int64)

    def drop(self, ids: np.ndarray, p: float, rng: np.random.Generator) -> None:
        """Switch "yes" flags to "no" with probability p, in place (training only)."""
        ids[(ids == self.yes) & (rng.random(ids.shape) < p)] = self.no


class ColumnFeature(Feature):
    """Another column of the sentence, e.g. the POS tags for CHUNK (a cascade)."""

    @classmethod
    def fit_vocab(cls, spec, sentences, words, max_words):
        if any(spec.arg not in s.columns for s in sentences):
            raise ValueError(f"feature {spec.name!r} reads a {spec.arg!r} column, which the "
                             "training sentences lack")
        return Vocab(sorted({t for s in sentences for t in s.columns[spec.arg]}))

    def batch_ids(self, batch: Batch) -> np.ndarray:
        name, lengths = self.spec.arg, batch.lengths
        cols = batch.columns
        if any(name not in c for c, k in zip(cols, lengths, strict=True) if k):
            raise ValueError(f"feature {self.spec.name!r} needs input column {name!r}")
        if any(len(c[name]) != k for c, k in zip(cols, lengths, strict=True) if k):
            raise ValueError(f"input column {name!r} is not one value per word")
        values = chain.from_iterable(c[name] if k else () for c, k in zip(cols, lengths,
                                                                          strict=True))
        return np.fromiter(map(self.vocab.index.get, values, repeat(Vocab.unk_id)), np.int64,
                           batch.n)


def column_sources(specs: Sequence[FeatureSpec], predicted: Mapping[str, str],
                   file: str | None, files: Mapping[str, str] | None = None
                   ) -> dict[str, dict[str, str]]:
    """Where each column a model reads as a feature came from in training: predicted by a
    named model (`predicted`, column -> model folder) or the data `file`'s own column (or
    another file's: `files`, column -> file, e.g. a PT0 column given apart).  Saved
    in the model's config, so that a reader can tell whether training saw what the runtime
    feeds it (the upstream tagger's tags) or a file's gold tags, maybe in another tag set."""
    out: dict[str, dict[str, str]] = {}
    for spec in specs:
        if spec.kind != "column":
            continue
        if spec.arg in predicted:
            out[spec.arg] = {"source": "predicted", "model": str(predicted[spec.arg])}
        else:
            given = (files or {}).get(spec.arg, file)
            out[spec.arg] = {"source": "file", "file": str(given or "")}
    return out


@lru_cache(maxsize=4096)
def _levels_of(cells: tuple[str, ...]) -> list[list[str]]:
    return column_levels(cells)


def tree_cells(columns: Mapping[str, Sequence[str]]) -> Sequence[str] | None:
    """A sentence's parse tree as CoNLL cells: the parser's column (`TREE`: at run time, or
    predicted in training), else the data file's gold `parse` column (SRL and .gold_conll
    files carry one); None if it has neither."""
    return columns.get(TREE, columns.get(GOLD_TREE))


class LevelFeature(Feature):
    """The IOBES tags of level `arg` of the sentence's parse tree (`tree_cells`); `O` above
    the tree's highest level."""

    @classmethod
    def fit_vocab(cls, spec, sentences, words, max_words):
        k = int(spec.arg)
        trees = (tree_cells(s.columns) for s in sentences)
        return Vocab(sorted({"O"} | {t for cells in trees if cells
                                     for level in _levels_of(tuple(cells))[k : k + 1]
                                     for t in level}))

    def batch_ids(self, batch: Batch) -> np.ndarray:
        k, ids = int(self.spec.arg), []
        for c, n in zip(batch.columns, batch.lengths, strict=True):
            if not n:
                continue
            cells = tree_cells(c)
            if cells is None or len(cells) != n:
                raise ValueError(f"feature {self.spec.name!r} reads the parse tree (column "
                                 f"{TREE!r} or {GOLD_TREE!r}, one cell per word)")
            found = _levels_of(tuple(cells))
            tags = found[k] if k < len(found) else ("O",) * n
            ids.append(np.fromiter(map(self.vocab.index.get, tags, repeat(Vocab.unk_id)),
                                   np.int64, n))
        return np.concatenate(ids) if ids else np.zeros(0, np.int64)


class PredDistanceFeature(Feature):
    """Distance to the predicate, clipped at `arg` (SRL with the window approach)."""

    def __init__(self, spec: FeatureSpec, vocab: Vocab):
        super().__init__(spec, vocab)
        self.clip = int(spec.arg)
        self._ids = np.array([vocab.index[str(d)] for d in range(-self.clip, self.clip + 1)])

    @classmethod
    def fit_vocab(cls, spec, sentences, words, max_words):
        clip = int(spec.arg)
        return Vocab([str(d) for d in range(-clip, clip + 1)])

    def batch_ids(self, batch: Batch) -> np.ndarray:
        preds, lengths = batch.predicates, batch.lengths
        if any(p is None for p, k in zip(preds, lengths, strict=True) if k):
            raise ValueError("the pred_distance feature needs a predicate position")
        starts = np.cumsum(lengths) - lengths
        offset = np.repeat(starts + np.array([p or 0 for p in preds]), lengths)
        return self._ids[np.clip(np.arange(batch.n) - offset, -self.clip, self.clip) + self.clip]


KINDS: dict[str, type[Feature]] = {
    "word": WordFeature, "caps": CapsFeature, "suffix": SuffixFeature,
    "gazetteer": GazetteerFeature, "column": ColumnFeature, "pred_distance": PredDistanceFeature,
    "chars": CharsFeature, "cluster": ClusterFeature, "level": LevelFeature,
}


@dataclass
class Batch:
    """What non-per-word features read: the sentences' columns, predicates and gazetteer
    matches, one entry per sentence; `n` words in all."""

    lengths: list[int]
    columns: Sequence[Mapping[str, Sequence[str]]]
    predicates: Sequence[int | None]
    gazetteer: Gazetteer | None
    matches: np.ndarray | None

    @property
    def n(self) -> int:
        return sum(self.lengths)


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
