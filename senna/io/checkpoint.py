"""A model is one directory that loads without pickle:

    config.json     format/version, task, network settings, feature specs, tags, training record
    weights.npz     float32 arrays named as in senna.nn.networks (np.load(allow_pickle=False))
    vocab/<feature>.lst   one entry per line
    gazetteer.lst   only for models with gazetteer features
    clusters.words, clusters.npy   only for models with cluster features: the lexicon's keys
                    and ids (senna.features.lexicons.Lexicon; older models kept the text lexicon,
                    clusters.lst, which still loads)

`load_model` rebuilds everything from the directory alone, rejects unknown versions and
checks the files against each other before any sentence is tagged (`check_model`): every
array the network settings imply is present, with that shape, floating point and finite;
stored row ids index the dictionary; the settings agree with the vocabularies and tags.
A failure names the file and the array.

A model whose word table started from a senna embeddings directory (`senna train
--embeddings DIR`) stores only the rows that differ from those embeddings (the words seen
in training; config key "word_base"), and reads the rest from DIR: five taggers that share
one 130k-word embedding table then cost one table plus their fine-tuned rows on disk.
Only the shipped models (senna/models, which travels as one folder) share a DIR beside
them; any other model keeps the rows it reads in its own `embeddings/` folder when saved
(`own_base`), so it needs nothing outside its folder and can be copied anywhere.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import re
import shutil
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np

from senna.embeddings import (
    DEFAULT_EMBEDDINGS,
    read_metadata,
    read_stored,
    save_embeddings,
    scaled,
)
from senna.features.featurizer import Featurizer
from senna.features.lexicons import Gazetteer, Lexicon
from senna.features.specs import FeatureSpec
from senna.io.manifest import (
    MANIFEST,
    ManifestError,
    Verifying,
    drop_manifest,
    inside,
    quiet,
    read_json,
    regular,
    resolved,
    sub_manifests,
    warn_once,
    within,
    write_manifest,
)
from senna.io.npz import Check, load_npz
from senna.nn.config import NetConfig
from senna.tags import SCHEMES, split_tag
from senna.tasks import TASKS, register
from senna.text.tokenize import LANGUAGES
from senna.vocab import FileIndex, FileVocab, TagSet, Vocab

FORMAT = "senna-model"
VERSION = 1
# Largest magnitude a stored weight may have: the shipped models' largest is 14.1 (PT0's
# tag embeddings; transitions reach 12.9), so this leaves a margin of 700 times, while a
# weight near float32's limit (3e38) overflows the network's sums.
WEIGHT_LIMIT = 1e4
# files a model directory may hold besides config.json, weights.npz and vocab/
OPTIONAL_FILES = ("gazetteer.lst", *Lexicon.MODEL_FILES, "clusters.lst")
# least value of each whole-number network setting (NetConfig checks how they combine)
_NET_LEAST = {"n_tags": 1, "window": 1, "hidden": 1, "conv": 0, "dist_dim": 0, "max_dist": 0,
              "predicate_window": 0, "stack": 0, "stack_hidden": 0,
              "level_hidden": 0}
_NAME = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*")   # a feature's vocabulary file name
T = TypeVar("T")


class ModelError(ValueError):
    """A model directory is missing, incomplete or corrupt."""


@dataclass
class SavedModel:
    task: str
    net: NetConfig
    featurizer: Featurizer
    tags: TagSet
    weights: dict[str, np.ndarray]
    info: dict = field(default_factory=dict)   # scheme, training record, dev scores ...


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
    _check_values(vectors, "vectors", Path(path) / "vectors.npz")
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


def _pack(weights: dict[str, np.ndarray], base: dict, vocab: Vocab, model_dir: Path
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


def _within_dir(path: Path, root: Path) -> bool:
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
    if _within_dir(model_dir, SHIPPED) and _within_dir(where, model_dir) \
            and shipped_rows(where):
        return {**base, "embeddings": str(DEFAULT_EMBEDDINGS)}
    if _within_dir(where, model_dir) or (_within_dir(where, SHIPPED)
                                         and _within_dir(model_dir, SHIPPED)):
        return base
    vectors, rows = _base_rows(base, vocab, model_dir)
    meta = {k: v for k, v in read_metadata(where).items()
            if k not in ("format", "version", "count", "dim", "dtype")}
    meta["rows_of"] = (f"the embeddings {where.name}/ this model was trained from: the rows "
                       "its dictionary reads")
    save_embeddings(model_dir / OWN_BASE, vocab.entries(used.tolist()), vectors[rows[used]],
                    meta, vectors.dtype.name)
    return {**base, "embeddings": str(model_dir / OWN_BASE)}


def _unpack(weights: dict[str, np.ndarray], base: dict, vocab: Vocab, model_dir: Path,
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


def save_model(path: str | os.PathLike, model: SavedModel, portable: bool = True) -> None:
    """Write atomically enough for training: files are replaced one by one.  `portable`
    False: keep reading the embedding rows from where they are (`own_base` copies them
    otherwise), for a training checkpoint, which never leaves its run."""
    path = Path(path)
    weights = model.weights
    base = model.info.get("word_base")
    if base is not None:
        vocab = model.featurizer.vocabs[model.featurizer.specs[base["table"]].name]
        weights, used = _pack(weights, base, vocab, path)
        if portable:
            before, base = base, own_base(base, vocab, used, path)
            if _within_dir(Path(before["embeddings"]), path) and not \
                    _within_dir(Path(base["embeddings"]), path):   # its copy, now unread
                shutil.rmtree(path / OWN_BASE, ignore_errors=True)
    (path / "vocab").mkdir(parents=True, exist_ok=True)
    drop_manifest(path)
    gz = model.info.get("vocab") == "gzip"
    for spec in model.featurizer.specs:
        name = path / "vocab" / f"{spec.name}.lst"
        model.featurizer.vocabs[spec.name].save(name.with_suffix(".lst.gz") if gz else name)
        (name if gz else name.with_suffix(".lst.gz")).unlink(missing_ok=True)
    if model.featurizer.gazetteer is not None:
        model.featurizer.gazetteer.save(path / "gazetteer.lst")
    if model.featurizer.lexicon is not None:
        model.featurizer.lexicon.save_model_files(path)
        (path / "clusters.lst").unlink(missing_ok=True)   # the text form older models kept
    rows_dtype = np.dtype(model.info.get("rows_dtype", "float32"))   # see senna.cli.compact
    matrix_dtype = np.dtype(model.info.get("weights_dtype", "float32"))

    def stored(name: str, v: np.ndarray) -> np.ndarray:
        if name.endswith(".rows"):
            return v
        if name.endswith(".values"):
            return np.asarray(v, dtype=rows_dtype)
        # the layers' matrices; the transition scores, start scores and biases stay float32
        matrix = np.ndim(v) >= 2 and name != "transitions"
        return np.asarray(v, dtype=matrix_dtype if matrix else np.float32)

    tmp = path / "weights.tmp.npz"
    np.savez(tmp, **{k: stored(k, v) for k, v in weights.items()})
    os.replace(tmp, path / "weights.npz")
    info = dict(model.info)
    if base is not None:  # relative, so that a model directory moves with its embeddings
        info["word_base"] = {**base, "embeddings": os.path.relpath(
            Path(base["embeddings"]).resolve(), path.resolve())}
    config = {"format": FORMAT, "version": VERSION, "task": model.task,
              "net": model.net.to_dict(), "features": model.featurizer.config(),
              "tags": model.tags.items, **info}
    (path / "config.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    write_manifest(path, model_files(path, model.featurizer.specs))


def read_config(path: Path) -> dict:
    """config.json of a model directory, each field checked (`check_config`)."""
    try:
        config = read_json(path / "config.json")
    except FileNotFoundError:
        raise ModelError(f"{path}: not a model directory (no config.json)") from None
    except ManifestError as e:
        raise ModelError(str(e)) from None
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise ModelError(f"{path}/config.json: not a {FORMAT} file")
    if config.get("version") != VERSION:
        raise ModelError(f"{path}: model format version {config.get('version')!r}, "
                         f"this senna reads version {VERSION}")
    check_config(config, path / "config.json")
    if "task_spec" in config:   # a user's own task: known from here on
        if not isinstance(config["task_spec"], dict):
            raise ModelError(f"{path}/config.json: task_spec must be an object")
        try:
            register(config["task_spec"])
        except ValueError as e:
            raise ModelError(f"{path}/config.json: {e}") from None
    return config


def _reading(file: Path, read: Callable[[Path], T]) -> T:
    """`read(file)`, its failures as one ModelError line that names the file."""
    try:
        return read(file)
    except ModelError:
        raise
    except FileNotFoundError:
        raise ModelError(f"{file}: missing") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        text = str(e)
        named = text.startswith(str(file.parent))   # names the file (or its partner)
        raise ModelError(text if named else f"{file}: corrupt ({text})") from None


def vocab_file(path: Path, name: str) -> Path:
    """A feature's dictionary in a model directory: vocab/NAME.lst, or vocab/NAME.lst.gz as
    `senna compact` stores it."""
    gz = path / "vocab" / f"{name}.lst.gz"
    return gz if gz.exists() else path / "vocab" / f"{name}.lst"


def model_files(path: Path, specs: Sequence[FeatureSpec]) -> list[str]:
    """The files of a model directory that loading it reads (relative, '/'-separated),
    with the manifests of its sub-folders that hold models or embeddings of their own
    (the parser's `pt0/` and `nml/`, its own `embeddings/`)."""
    names = ["config.json", "weights.npz",
             *(vocab_file(path, s.name).relative_to(path).as_posix() for s in specs)]
    return names + [n for n in OPTIONAL_FILES if (path / n).exists() or (path / n).is_symlink()] \
        + sub_manifests(path)


def _read_gazetteer(file: Path, specs: Sequence[FeatureSpec]) -> Gazetteer:
    """The model's gazetteer, with an entry of every type its features read."""
    gaz = Gazetteer.load(file, strict=True)
    for spec in specs:
        if spec.kind == "gazetteer" and spec.arg not in gaz.entries:
            raise ModelError(f"{file}: no {spec.arg} entries, which feature {spec.name} reads")
    return gaz


def _read_featurizer(path: Path, config: dict, specs: list[FeatureSpec], sealed: bool
                     ) -> Featurizer:
    """Vocabularies, gazetteer and cluster lexicon.  Without a manifest (`sealed` False)
    the large vocabularies are checked for duplicates now (else a manifest vouches for
    them: `senna.io.manifest`)."""
    vocabs = {s.name: _reading(vocab_file(path, s.name),
                               lambda f: _read_vocab(f, sealed)) for s in specs}
    gaz = (_reading(path / "gazetteer.lst", lambda f: _read_gazetteer(f, specs))
           if (path / "gazetteer.lst").exists() else None)
    lexicon = (_reading(path / "clusters.words", lambda _: Lexicon.load_model_files(path))
               if (path / "clusters.words").exists()
               else _reading(path / "clusters.lst", Lexicon.load)
               if (path / "clusters.lst").exists() else None)
    if lexicon is not None and not sealed:
        lexicon.preload()
    return Featurizer(specs, vocabs, gaz, lexicon)


def _read_vocab(file: Path, sealed: bool) -> Vocab:
    vocab = Vocab.load(file)
    if not sealed and isinstance(vocab, FileVocab):
        vocab.preload()   # indexing checks that no entry is listed twice
    return vocab


def load_model(path: str | os.PathLike, shared_tables: bool = False,
               base_anywhere: bool = False) -> SavedModel:
    """`shared_tables`: word tables trained from embeddings stay `OverlayTable`s (runtime).
    Every file is checked before the model is used (`check_config`, `check_model`, the
    arrays' headers before they are read), its size against the manifest before it is
    parsed and its checksum beside the parsing.  `base_anywhere`: a training checkpoint,
    which reads the embeddings where its run found them (`base_dir`)."""
    path = Path(path)
    try:
        inside(path, ["config.json"])
        config = read_config(path)
        if config.get("training", {}).get("finished") is False:
            warn_once(path, unfinished_text(config["training"]))
        if "word_base" in config:   # where it reads: checked before anything is read
            base_dir(path, config["word_base"]["embeddings"], base_anywhere)
        specs = [FeatureSpec(**s) for s in config["features"]]
        files = model_files(path, specs)
        inside(path, files)
        for name in files:   # a FIFO would hang its reader, with or without a manifest
            with contextlib.suppress(FileNotFoundError):
                regular(path / name)
        checksums = Verifying(path, files)
        featurizer = _read_featurizer(path, config, specs, (path / MANIFEST).exists())
        net = NetConfig.from_dict(config["net"])
        model = SavedModel(config["task"], net, featurizer, TagSet(config["tags"]), {},
                           {k: v for k, v in config.items()
                            if k not in ("format", "version", "task", "net", "features",
                                         "tags")})
        check_settings(model, path)
        model.weights = _reading(path / "weights.npz",
                                 lambda f: load_npz(f, _array_check(model, f)))
        check_model(model, path)
        base = model.info.get("word_base")
        if base is not None:
            base["embeddings"] = str(base_dir(path, base["embeddings"], base_anywhere))
            _check_divisor(base, path)
        checksums.result()
        if base is not None:
            _unpack(model.weights, base, featurizer.vocabs[specs[base["table"]].name], path,
                    shared_tables)
    except ModelError:
        raise
    except ManifestError as e:   # names the file already
        raise ModelError(str(e)) from None
    except (KeyError, TypeError, ValueError, OSError, RuntimeError, RecursionError) as e:
        raise ModelError(f"{path}: incomplete or corrupt model ({type(e).__name__}: {e})") from None
    return model


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


def _check_divisor(base: dict, path: Path) -> None:
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
        _PEAKS[key] = (vectors, _peak(vectors))
    return _PEAKS[key][1]


_PEAKS: dict[int, tuple[np.ndarray, float]] = {}


def unfinished_text(training: dict) -> str:
    """What loading a model saved by a run that has not ended says: its weights are the
    best so far and may still be replaced."""
    return (f"the best model so far (epoch {training.get('epochs', '?')}) of a training run "
            "that has not ended: still running, or stopped before its end; running its "
            "command again resumes it")


def finish_model(path: str | os.PathLike) -> None:
    """Record that the run which saved the model in `path` has ended, so that loading it
    no longer warns (config.json rewritten, the manifest with it)."""
    path = Path(path)
    config = read_config(path)
    if config.get("training", {}).get("finished") is False:
        drop_manifest(path)   # first: a kill before the seal leaves no stale manifest
        config["training"]["finished"] = True
        tmp = path / "config.tmp.json"
        tmp.write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path / "config.json")
    elif (path / MANIFEST).exists() or "finished" not in config.get("training", {}):
        return   # nothing to do, unless an earlier call was killed before its seal
    seal_model(path)


def seal_model(path: str | os.PathLike) -> None:
    """Load a model with every check, then write its manifest (`senna.io.manifest`)."""
    path = Path(path)
    with quiet():
        model = load_model(path)
    write_manifest(path, model_files(path, model.featurizer.specs))


def expected_shapes(model: SavedModel) -> dict[str, tuple[int, ...]]:
    """The arrays (name -> shape) that a model's network settings imply, as
    senna.nn.networks names them; a word table stored as rows over shared embeddings
    (config "word_base") is checked apart (`check_model`)."""
    net, n_tags = model.net, model.net.n_tags
    base = model.info.get("word_base")
    chars = net.chars or [[]] * len(net.dims)
    shapes = {}
    for j in range(len(net.dims)):
        if chars[j]:   # a character convolution (senna.nn.chars)
            width, window = chars[j]
            shapes |= {f"emb.tables.{j}.chars.weight": (net.vocab_sizes[j], width),
                       f"emb.tables.{j}.conv.weight": (net.dims[j], width, window),
                       f"emb.tables.{j}.conv.bias": (net.dims[j],)}
        elif base is None or base.get("table") != j:
            shapes[f"emb.tables.{j}.weight"] = (net.vocab_sizes[j], net.dims[j])
    if net.approach == "bilstm":   # senna.nn.networks.BiLSTMNet: no l1
        h, lh = net.hidden, net.level_hidden
        lstms = [("lstm", net.input_dim - (net.dims[-1] if lh else 0), h)]
        if lh:
            lstms.append(("levels", 2 * h + net.dims[-1], lh))
        for name, n_in, n_h in lstms:
            for way in ("", "_reverse"):
                shapes |= {f"{name}.weight_ih_l0{way}": (4 * n_h, n_in),
                           f"{name}.weight_hh_l0{way}": (4 * n_h, n_h),
                           f"{name}.bias_ih_l0{way}": (4 * n_h,),
                           f"{name}.bias_hh_l0{way}": (4 * n_h,)}
        shapes["l2.weight"] = (n_tags, 2 * h + 2 * lh)
    elif net.approach == "window":
        shapes["l1.weight"] = (net.hidden, net.window * net.input_dim)
        for name, width in net.stacked:
            shapes |= {f"{name}.weight": (net.top_hidden, net.stack * width),
                       f"{name}.bias": (net.top_hidden,)}
    else:
        n_dist = 2 * net.max_dist + 1
        shapes |= {"conv.weight": (net.conv, net.input_dim + 2 * net.dist_dim, net.window),
                   "conv.bias": (net.conv,), "dist_word.weight": (n_dist, net.dist_dim),
                   "dist_pred.weight": (n_dist, net.dist_dim), "l1.weight": (net.hidden, net.conv)}
        if net.predicate_window:
            shapes["pred.weight"] = (net.hidden, net.predicate_window * net.input_dim)
    if net.approach != "bilstm":
        shapes |= {"l1.bias": (net.hidden,), "l2.weight": (n_tags, net.top_hidden)}
    shapes["l2.bias"] = (n_tags,)
    if net.criterion == "sll":
        shapes |= {"transitions": (n_tags, n_tags), "start": (n_tags,)}
    return shapes


_MAGNITUDE = {2: np.uint16, 4: np.uint32}   # float16, float32: the bits without the sign


def _within(a: np.ndarray, limit: float) -> bool:
    """Every value finite and at most `limit` in magnitude.  float16/32: an IEEE float's
    magnitude orders as its bits without the sign (NaN and infinities above every finite
    value), an integer test, in blocks (a few times faster than comparing floats, and no
    temporary as large as the 13 MB embeddings); else in float64."""
    if a.dtype.itemsize not in _MAGNITUDE or a.dtype.kind != "f" or not a.flags.c_contiguous:
        x = np.abs(a.astype(np.float64))
        return bool(np.isfinite(x).all() and (x <= limit).all())
    kind = _MAGNITUDE[a.dtype.itemsize]
    mask = kind(np.iinfo(kind).max >> 1)
    top = np.array(min(limit, float(np.finfo(a.dtype).max)), dtype=a.dtype).view(kind)
    bits = a.reshape(-1).view(kind)
    step = 1 << 18
    buf = np.empty(min(step, len(bits)), dtype=kind)
    for i in range(0, len(bits), step):
        part = np.bitwise_and(bits[i : i + step], mask, out=buf[: len(bits[i : i + step])])
        if (part > top).any():
            return False
    return True


def _peak(a: np.ndarray) -> float:
    """The largest magnitude in a finite array (float16/32: from the bits, in blocks)."""
    if not a.size:
        return 0.0
    if a.dtype.itemsize not in _MAGNITUDE or a.dtype.kind != "f" or not a.flags.c_contiguous:
        return float(np.abs(a.astype(np.float64)).max())
    kind = _MAGNITUDE[a.dtype.itemsize]
    mask = kind(np.iinfo(kind).max >> 1)
    bits, step, top = a.reshape(-1).view(kind), 1 << 18, kind(0)
    for i in range(0, len(bits), step):
        top = max(top, np.bitwise_and(bits[i : i + step], mask).max())
    return float(np.array(top, dtype=kind).view(a.dtype))


def _all_finite(a: np.ndarray) -> bool:
    """No NaN or infinity."""
    return _within(a, np.inf)


def _float_only(dtype: np.dtype, name: str, file: Path) -> None:
    if dtype.kind != "f":
        raise ModelError(f"{file}: array '{name}' holds {dtype} values, expected floating "
                         "point")


def _check_values(a: np.ndarray, name: str, file: Path) -> None:
    """Floating point, finite and at most WEIGHT_LIMIT in magnitude."""
    _float_only(a.dtype, name, file)
    if _within(a, WEIGHT_LIMIT):
        return
    bad = int(a.size - np.isfinite(a).sum())
    if bad:
        raise ModelError(f"{file}: array '{name}' holds {bad} value{'s' * (bad != 1)} that "
                         f"{'are' if bad != 1 else 'is'} not finite (NaN or infinite)")
    big = int((np.abs(a.astype(np.float64)) > WEIGHT_LIMIT).sum())
    raise ModelError(f"{file}: array '{name}' holds {big} value{'s' * (big != 1)} beyond "
                     f"±{WEIGHT_LIMIT:g}, no trained weight is that large")


def _whole(value: object, at: str, file: Path, least: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        what = "positive" if least > 0 else "non-negative"
        raise ModelError(f"{file}: {at} must be a {what} whole number, got {value!r}")


def _check_net(net: object, file: Path) -> None:
    """Types and ranges of the network settings (their consistency: NetConfig)."""
    if not isinstance(net, dict):
        raise ModelError(f"{file}: 'net' must be an object of network settings")
    for key, least in _NET_LEAST.items():
        if key in net:
            _whole(net[key], f"net.{key}", file, least)
    for key in ("approach", "criterion"):
        if key in net and not isinstance(net[key], str):
            raise ModelError(f"{file}: net.{key} must be a string, got {net[key]!r}")
    for key in ("vocab_sizes", "dims", "chars"):
        if not isinstance(net.get(key, []), list):
            raise ModelError(f"{file}: net.{key} must be a list, got {net[key]!r}")
    for key in ("vocab_sizes", "dims"):
        for i, v in enumerate(net.get(key, [])):
            _whole(v, f"net.{key}[{i}]", file, 1)
    for i, c in enumerate(net.get("chars", [])):
        if not isinstance(c, list) or len(c) not in (0, 2):
            raise ModelError(f"{file}: net.chars[{i}] must be [] or [width, window], got {c!r}")
        for v in c:
            _whole(v, f"net.chars[{i}]", file, 1)


def _check_features(features: object, file: Path) -> None:
    if not isinstance(features, list) or not all(isinstance(f, dict) for f in features):
        raise ModelError(f"{file}: 'features' must be a list of feature objects")
    for i, f in enumerate(features):
        name = f.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ModelError(f"{file}: features[{i}].name must be a plain file name "
                             f"(letters, digits, _ . + -), got {name!r}")
        if not isinstance(f.get("kind"), str) or not isinstance(f.get("arg", ""), str):
            raise ModelError(f"{file}: features[{i}] ({name}): kind and arg must be strings")
        _whole(f.get("dim"), f"features[{i}].dim", file, 1)
        if f["kind"] in _ARG_RANGE:
            least, most = _ARG_RANGE[f["kind"]]
            arg = f.get("arg", "")
            if not (arg.isascii() and arg.isdigit()) or not least <= int(arg) <= most:
                raise ModelError(f"{file}: features[{i}] ({name}): a {f['kind']} feature's "
                                 f"arg must be a whole number from {least} to {most}, got "
                                 f"{arg[:20]!r}")


# the whole-number argument of a feature kind: its least and largest sensible value (a
# suffix of 100,000 characters is every word whole; the shipped models' largest is 4)
_ARG_RANGE = {"suffix": (1, 64), "pred_distance": (0, 1000), "level": (0, 1000),
              "cluster": (1, 10_000_000)}
# a label of a parse tree's tags (the TYPE of B-TYPE, chains joined by '#'): brackets,
# '*' and spaces would break the CoNLL parse cells (`(S(NP*`) the parser writes
_LABEL = re.compile(r"[A-Za-z0-9_$=+.-]+(#[A-Za-z0-9_$=+.-]+)*")


def _check_tags(tags: object, scheme: object, file: Path, tree: bool = False) -> None:
    """A list of distinct names, each one of the scheme's (IOBES: O or B-/I-/E-/S-TYPE);
    a parser's (`tree`) types are labels joined by '#' (`_LABEL`)."""
    if not isinstance(tags, list) or not tags \
            or not all(isinstance(t, str) and t and not any(c.isspace() for c in t)
                       for t in tags):
        raise ModelError(f"{file}: 'tags' must be a list of tag names, got "
                         f"{str(tags)[:60]}")
    if len(set(tags)) != len(tags):
        raise ModelError(f"{file}: tags are listed twice")
    if scheme is not None and scheme not in SCHEMES and scheme != "tags":
        raise ModelError(f"{file}: scheme must be one of {('tags', *SCHEMES)}, got {scheme!r}")
    prefixes = "BIES" if scheme == "iobes" else "BI" if scheme in SCHEMES else None
    for t in tags:
        prefix, kind = split_tag(t)
        if prefixes and t != "O" and not (prefix in prefixes and len(prefix) == 1 and kind):
            raise ModelError(f"{file}: tag {t!r} is not one of the {scheme} scheme (O or "
                             f"{'/'.join(prefixes)}-TYPE)")
        if tree and t != "O" and not _LABEL.fullmatch(kind):
            raise ModelError(f"{file}: tag {t!r} is not a parser's tag (O or B-/I-/E-/S- and "
                             "phrase labels of letters, digits and _$=+.- joined by '#')")


def _check_base(base: object, file: Path) -> None:
    """word_base: where the word table's other rows come from and how they are scaled."""
    if not isinstance(base, dict) or not isinstance(base.get("embeddings"), str):
        raise ModelError(f"{file}: word_base must give the embeddings directory as a string")
    divisor = base.get("divisor")
    if not isinstance(divisor, int | float) or isinstance(divisor, bool) \
            or not math.isfinite(divisor) or divisor <= 0:
        raise ModelError(f"{file}: word_base.divisor must be a positive number, got "
                         f"{divisor!r}")
    _whole(base.get("table"), "word_base.table", file, 0)


def check_config(config: dict, file: Path) -> None:
    """ModelError, naming config.json and the field, unless every field the runtime reads
    has its type and a usable value."""
    if not isinstance(config.get("task"), str) or not config["task"]:
        raise ModelError(f"{file}: 'task' must be a task name, got {config.get('task')!r}")
    _check_net(config.get("net"), file)
    _check_features(config.get("features"), file)
    known = TASKS.get(config["task"])
    _check_tags(config.get("tags"), config.get("scheme"), file,
                tree=bool(known is not None and known.tree))
    for key in ("rows_dtype", "weights_dtype"):
        if config.get(key, "float32") not in ("float16", "float32"):
            raise ModelError(f"{file}: {key} must be float16 or float32, got "
                             f"{config[key]!r}")
    if config.get("vocab", "text") not in ("text", "gzip"):
        raise ModelError(f"{file}: vocab must be text or gzip, got {config['vocab']!r}")
    if config.get("language", "en") not in LANGUAGES:
        raise ModelError(f"{file}: language must be one of {', '.join(LANGUAGES)}, got "
                         f"{config['language']!r}")
    if config.get("first_level") not in (None, "pt0"):
        raise ModelError(f"{file}: first_level must be pt0, got {config['first_level']!r}")
    if "word_base" in config:
        _check_base(config["word_base"], file)
        table = config["word_base"]["table"]
        if table >= len(config["features"]):
            raise ModelError(f"{file}: word_base.table is {table}, not a feature index")


def check_settings(model: SavedModel, path: Path) -> None:
    """ModelError, naming the file, unless the settings in config.json, the vocabularies
    and the tags agree (each field alone: `check_config`)."""
    net, specs, config = model.net, model.featurizer.specs, path / "config.json"
    if len(specs) != len(net.dims):
        raise ModelError(f"{config}: {len(specs)} features, but net.dims has {len(net.dims)}")
    chars = net.chars or [[]] * len(specs)
    if chars != [k.net_shape() for k in model.featurizer.kinds]:
        raise ModelError(f"{config}: the network's character settings {net.chars} do not "
                         "match the features")
    for j, spec in enumerate(specs):
        size = len(model.featurizer.vocabs[spec.name])
        if size != net.vocab_sizes[j]:
            raise ModelError(f"{path / 'vocab' / spec.name}.lst: {size} entries, but "
                             f"net.vocab_sizes[{j}] in config.json is {net.vocab_sizes[j]}")
        if spec.dim != net.dims[j]:
            raise ModelError(f"{config}: feature {spec.name} has dim {spec.dim}, but "
                             f"net.dims[{j}] is {net.dims[j]}")
    if len(model.tags) != net.n_tags or not model.tags.items:
        raise ModelError(f"{config}: {len(model.tags)} tags, but net.n_tags is {net.n_tags}")


def _array_check(model: SavedModel, file: Path) -> Check:
    """What `load_npz` asks of each array's header before reading it: a name and shape the
    network settings call for, floating point (row ids: integers)."""
    shapes = expected_shapes(model)
    base = model.info.get("word_base")
    j = base["table"] if base is not None else -1
    n = model.net.vocab_sizes[j] if base is not None else 0

    def check(name: str, shape: tuple[int, ...], dtype: np.dtype) -> None:
        if name == f"emb.tables.{j}.rows":
            if len(shape) != 1 or dtype.kind not in "iu" or shape[0] > n:
                raise ModelError(f"{file}: array '{name}' must be at most {n} row ids (1-D "
                                 f"integers), got {dtype} of shape {shape}")
            return
        if name == f"emb.tables.{j}.values":
            dim = model.net.dims[j]
            if len(shape) != 2 or shape[0] > n or shape[1] != dim:
                raise ModelError(f"{file}: array '{name}' has shape {shape}, expected at "
                                 f"most {n} rows of {dim}")
            _float_only(dtype, name, file)
            return
        want = shapes.get(name)
        if want is None:
            raise ModelError(f"{file}: array '{name}' is not one the network settings in "
                             "config.json call for")
        if shape != want:
            raise ModelError(f"{file}: array '{name}' has shape {shape}, expected {want}")
        _float_only(dtype, name, file)

    return check


def check_model(model: SavedModel, path: Path) -> None:
    """ModelError, naming the file and the array, unless the settings in config.json, the
    vocabularies, the tags and the arrays of weights.npz agree (see the module doc)."""
    check_settings(model, path)
    file = path / "weights.npz"
    weights = model.weights
    for name, shape in expected_shapes(model).items():
        if name not in weights:
            raise ModelError(f"{file}: array '{name}' is missing (expected shape {shape})")
        if weights[name].shape != shape:
            raise ModelError(f"{file}: array '{name}' has shape {weights[name].shape}, "
                             f"expected {shape}")
        _check_values(weights[name], name, file)
    base = model.info.get("word_base")
    if base is not None:
        _check_base_rows(model, base, file)


def _check_base_rows(model: SavedModel, base: dict, file: Path) -> None:
    """A word table stored as its own rows (ids into the dictionary) and their values."""
    j = base.get("table")
    if not isinstance(j, int) or not 0 <= j < len(model.net.dims):
        raise ModelError(f"{file.parent / 'config.json'}: word_base.table is {j!r}, not a "
                         "feature index")
    rows_name, values_name = f"emb.tables.{j}.rows", f"emb.tables.{j}.values"
    for name in (rows_name, values_name):
        if name not in model.weights:
            raise ModelError(f"{file}: array '{name}' is missing")
    rows, values = model.weights[rows_name], model.weights[values_name]
    if rows.ndim != 1 or rows.dtype.kind not in "iu":
        raise ModelError(f"{file}: array '{rows_name}' must be a list of row ids (1-D "
                         f"integers), got {rows.dtype} of shape {rows.shape}")
    n, dim = model.net.vocab_sizes[j], model.net.dims[j]
    if values.shape != (len(rows), dim):
        raise ModelError(f"{file}: array '{values_name}' has shape {values.shape}, expected "
                         f"{(len(rows), dim)} (one row of {dim} per id in '{rows_name}')")
    outside = rows[(rows < 0) | (rows >= n)]
    if len(outside):
        raise ModelError(f"{file}: array '{rows_name}' holds row ids outside [0, {n}): "
                         f"{', '.join(map(str, outside[:5].tolist()))}")
    _check_values(values, values_name, file)
