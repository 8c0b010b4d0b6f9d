"""The feature kinds: one small class each, which builds its vocabulary from training
sentences and computes its ids, per word or over a `Batch`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, repeat

import numpy as np

from senna.features.lexicons import Gazetteer, Lexicon
from senna.features.specs import FeatureSpec, chars_arg
from senna.syntax.levels import GOLD_TREE, TREE, column_levels
from senna.text.normalize import CAPS_TAGS, caps_feature, normalize_word, suffix, suffixes
from senna.vocab import Vocab


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

