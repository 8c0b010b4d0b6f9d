"""A word table over shared embeddings (config key "word_base").

A model whose word table started from a senna embeddings directory (`senna train
--embeddings DIR`) stores only the rows that differ from those embeddings (the words seen
in training), and reads the rest from DIR: five taggers that share one 130k-word embedding
table then cost one table plus their fine-tuned rows on disk (`OverlayTable` reads through
at run time).  Only the shipped models (senna/models, which travels as one folder) share a
DIR beside them; any other model keeps the rows it reads in its own `embeddings/` folder
when saved (`own_base`), so it needs nothing outside its folder and can be copied anywhere.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import numpy as np

from senna.embeddings import (
    DEFAULT_EMBEDDINGS,
    read_metadata,
    read_stored,
    save_embeddings,
    scaled,
)
from senna.io.manifest import MANIFEST, resolved, within
from senna.io.model_checks import WEIGHT_LIMIT, check_values, peak_magnitude
from senna.io.saved_model import ModelError
from senna.vocab import FileIndex, Vocab


def _base(base: dict, model_dir: Path) -> tuple[np.ndarray, FileIndex]:
    """-> (the embeddings as stored [N, D], float16 or float32, the index of their words),
    cached, so models sharing embeddings share one array."""
    where = Path(base["embeddings"])  # absolute in memory; relative only on disk
    try:
        stamp = (where / "vectors.npz").stat().st_mtime_ns if where.is_dir() else 0
        return _cached_embeddings(str(where.resolve()), stamp)
    except ModelError:
        raise
    except (ValueError, OSError) as e:
        raise ModelError(f"{model_dir}: needs the embeddings it was trained from ({e})") from None


def _base_rows(base: dict, vocab: Vocab, model_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """-> (the embeddings as stored, each vocab entry's row in them or -1)."""
    vectors, words = _base(base, model_dir)
    return vectors, np.asarray(words.ids(vocab.items, -1), dtype=np.int32)


@functools.lru_cache(maxsize=2)
def _cached_embeddings(path: str, stamp: int) -> tuple[np.ndarray, FileIndex]:
    """Read once per process (the shipped taggers share one table); `stamp` = file mtime.
    Kept in the stored precision (float16 halves the memory); the words are indexed only
    if many are looked up (`FileIndex`)."""
    if not os.path.isdir(path):
        raise ValueError(f"{path}: not an embeddings directory")
    words, vectors = read_stored(path)
    check_values(vectors, "vectors", Path(path) / "vectors.npz")
    index = FileIndex(words, str(Path(path) / "words.lst"))
    if not (Path(path) / MANIFEST).exists():
        index.built()   # no word twice: a manifest vouches for it, else checked now
    return vectors, index


def base_table(base: dict, vocab: Vocab, model_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """The word table a model started from -> (table [V, D] float32, rows found in the base).

    `base` = {"embeddings": absolute path (saved relative to the model directory),
    "divisor": the scale `senna.train.setup.initial_embeddings` divided the vectors by}.
    Rows of words missing from the embeddings are zero (a model always stores those).
    """
    vectors, rows = _base_rows(base, vocab, model_dir)
    found = rows >= 0
    table = np.zeros((len(vocab), vectors.shape[1]), dtype=np.float32)
    table[found] = scaled(vectors[rows[found]], base["divisor"])
    return table, found


class OverlayTable:
    """A word table read through: the model's own rows where it has them, else the shared
    embeddings.  Five taggers fine-tuned from one 130k-word table then hold one copy of it
    plus their own rows, instead of five full tables (the runtime only gathers rows).

    Where a dictionary row sits in the embeddings is found the first time the row is read
    (its word looked up in `words`), so loading costs nothing per dictionary entry."""

    UNKNOWN = np.iinfo(np.int32).min     # src of a row not looked up yet
    MISSING = np.iinfo(np.int32).max     # src of a word in neither: a row of zeros

    def __init__(self, base: np.ndarray, divisor: float, words: FileIndex, vocab: Vocab,
                 own_rows: np.ndarray, own: np.ndarray):
        self.base, self.divisor, self.words, self.vocab = base, divisor, words, vocab
        # in the stored precision (`senna compact`: float16 halves the memory too); the
        # gathered rows are float32
        self.own = own if own.dtype in (np.float16, np.float32) else own.astype(np.float32)
        self.src = np.full(len(vocab), self.UNKNOWN, dtype=np.int32)
        self.src[own_rows] = ~np.arange(len(own_rows))  # negative: -1 - (index into own)
        self.shape = (len(vocab), base.shape[1])
        self.dtype = np.dtype(np.float32)

    def _locate(self, ids: np.ndarray) -> None:
        """Find the rows of distinct `ids` in the embeddings (their words looked up; many
        rows of a dictionary read from its file: a join of the two files' indexes)."""
        index = getattr(self.vocab, "index", None)
        if isinstance(index, FileIndex) and len(ids) > FileIndex.FEW:
            rows = self.words.find(index, ids, -1)
        else:
            rows = np.asarray(self.words.ids(self.vocab.entries(ids.tolist()), -1))
        self.src[ids] = np.where(rows < 0, self.MISSING, rows)

    def preload(self) -> None:
        """Locate every row now rather than when first read."""
        self._locate(np.flatnonzero(self.src == self.UNKNOWN))

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        src = self.src[ids]
        todo = src == self.UNKNOWN
        if todo.any():
            self._locate(np.flatnonzero(np.bincount(ids[todo])))  # distinct; np.unique would
            src = self.src[ids]                                  # import numpy.ma (7 ms)
        out = scaled(self.base[np.clip(src, 0, len(self.base) - 1)], self.divisor)
        mine = src < 0
        if mine.any():
            out[mine] = self.own[~src[mine]]
        out[src == self.MISSING] = 0.0
        return out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self[np.arange(self.shape[0])].astype(dtype or np.float32, copy=False)


def pack_rows(weights: dict[str, np.ndarray], base: dict, vocab: Vocab, model_dir: Path
          ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Replace the word table by the rows that differ from the base table; -> (the
    weights to store, the ids of the rows read from the base)."""
    key = f"emb.tables.{base['table']}.weight"
    table = np.asarray(weights[key], dtype=np.float32)
    start, found = base_table(base, vocab, model_dir)
    mine = ~found | (table != start).any(1)
    keep = np.flatnonzero(mine)
    out = {k: v for k, v in weights.items() if k != key}
    out[f"emb.tables.{base['table']}.rows"] = keep.astype(np.int32)
    out[f"emb.tables.{base['table']}.values"] = table[keep]
    return out, np.flatnonzero(~mine)


OWN_BASE = "embeddings"   # a model's own copy of the embedding rows it reads
SHIPPED = DEFAULT_EMBEDDINGS.parent   # senna/models: its models share senna/models/embeddings


def within_dir(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def shipped_rows(own: Path) -> bool:
    """Are the rows of a model's own copy of embeddings (`own`) rows of the shipped
    embeddings: the same words, values and precision?  So is a model trained elsewhere from
    the shipped embeddings, then moved among the shipped models."""
    if not (DEFAULT_EMBEDDINGS / "vectors.npz").is_file():
        return False
    words, vectors = read_stored(own)
    shipped, index = _base({"embeddings": str(DEFAULT_EMBEDDINGS)}, own)
    rows = np.asarray(index.ids(words.decode("utf-8").splitlines(), -1))
    return (vectors.dtype == shipped.dtype and len(rows) == len(vectors)
            and bool((rows >= 0).all()) and np.array_equal(shipped[rows], vectors))


def own_base(base: dict, vocab: Vocab, used: np.ndarray, model_dir: Path) -> dict:
    """`base` as the model saved in `model_dir` refers to it: embeddings inside the model's
    folder, or the shipped ones for a shipped model, stay where they are; from any others
    the rows the model reads (`used`: dictionary ids) are copied, in their stored
    precision, to `model_dir`/embeddings, so that the folder needs nothing outside it (a
    copy, another machine, an installed package).  Same rows, same divisor: the model tags
    as before, bit for bit.  A model among the shipped ones whose own copy holds rows of
    the shipped embeddings (trained elsewhere, then moved there) reads those instead."""
    where = Path(base["embeddings"])
    if within_dir(model_dir, SHIPPED) and within_dir(where, model_dir) \
            and shipped_rows(where):
        return {**base, "embeddings": str(DEFAULT_EMBEDDINGS)}
    if within_dir(where, model_dir) or (within_dir(where, SHIPPED)
                                         and within_dir(model_dir, SHIPPED)):
        return base
    vectors, rows = _base_rows(base, vocab, model_dir)
    meta = {k: v for k, v in read_metadata(where).items()
            if k not in ("format", "version", "count", "dim", "dtype")}
    meta["rows_of"] = (f"the embeddings {where.name}/ this model was trained from: the rows "
                       "its dictionary reads")
    save_embeddings(model_dir / OWN_BASE, vocab.entries(used.tolist()), vectors[rows[used]],
                    meta, vectors.dtype.name)
    return {**base, "embeddings": str(model_dir / OWN_BASE)}


def unpack_rows(weights: dict[str, np.ndarray], base: dict, vocab: Vocab, model_dir: Path,
            shared: bool) -> None:
    j = base["table"]
    rows, values = weights.pop(f"emb.tables.{j}.rows"), weights.pop(f"emb.tables.{j}.values")
    if shared:
        vectors, words = _base(base, model_dir)
        if vectors.shape[1] != values.shape[1]:
            raise ModelError(f"{base['embeddings']}: vectors of {vectors.shape[1]} values, the "
                             f"model {model_dir} has word vectors of {values.shape[1]}")
        weights[f"emb.tables.{j}.weight"] = OverlayTable(vectors, base["divisor"], words, vocab,
                                                         rows, values)
        return
    table, _ = base_table(base, vocab, model_dir)
    table[rows] = values
    weights[f"emb.tables.{j}.weight"] = table


# where a model in a folder of models (the shipped ones: senna/models) reads the
# embeddings its taggers share: that folder's `embeddings/`, one to three levels up
# (psg/pt0, es/ner/seed-1)
_SHARED_BASE = re.compile(r"(\.\./){1,3}embeddings")


def base_dir(path: Path, named: str, anywhere: bool = False) -> Path:
    """The embeddings directory a model's word_base names (relative to its folder `path`):
    inside the folder (its own `embeddings/`), or the `embeddings/` of the folder of models
    holding it (`../embeddings`, ...); any other path, absolute ones included, is refused
    (a model's folder holds what it reads).  `anywhere`: a training checkpoint's, which
    reads the embeddings where its run found them."""
    where = Path(named)
    if anywhere:
        return where if where.is_absolute() else resolved(path / where)
    if _SHARED_BASE.fullmatch(named):
        return resolved(path / where)
    return resolved(within(path, named, "word_base.embeddings", path / "config.json"))


def check_divisor(base: dict, path: Path) -> None:
    """A divisor that scales the embeddings beyond any trained weight (a tiny one makes
    every row infinite) is refused: the tags would mean nothing."""
    peak = _base_peak(base, path)
    if peak > WEIGHT_LIMIT * base["divisor"]:
        raise ModelError(f"{path / 'config.json'}: word_base.divisor {base['divisor']!r} "
                         f"scales the embeddings' values (up to {peak:.3g}) beyond "
                         f"±{WEIGHT_LIMIT:g}; no trained weight is that large")


def _base_peak(base: dict, path: Path) -> float:
    """The largest magnitude among the embeddings' values (cached with them)."""
    vectors, _ = _base(base, path)
    key = id(vectors)
    if _PEAKS.get(key, (None,))[0] is not vectors:
        _PEAKS.clear()
        _PEAKS[key] = (vectors, peak_magnitude(vectors))
    return _PEAKS[key][1]


_PEAKS: dict[int, tuple[np.ndarray, float]] = {}
