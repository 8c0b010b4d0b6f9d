"""A model is one directory that loads without pickle:

    config.json     format/version, task, network settings, feature specs, tags, training record
    weights.npz     float32 arrays named as in senna.nn.networks (np.load(allow_pickle=False))
    vocab/<feature>.lst   one entry per line
    gazetteer.lst   only for models with gazetteer features

`load_model` rebuilds everything from the directory alone and rejects unknown versions.

A model whose word table started from a senna embeddings directory (`senna train
--embeddings DIR`) stores only the rows that differ from those embeddings (the words seen
in training; config key "word_base"), and reads the rest from DIR: five taggers that share
one 130k-word embedding table then cost one table plus their fine-tuned rows on disk.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from senna.embeddings import read_embeddings, read_metadata, scaled
from senna.features import FeatureSpec, Featurizer, Gazetteer
from senna.nn.config import NetConfig
from senna.vocab import TagSet, Vocab

FORMAT = "senna-model"
VERSION = 1


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


def _base_rows(base: dict, vocab: Vocab, model_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """-> (the embeddings as stored [N, D], float16 or float32, each vocab entry's row in them
    or -1); both cached, so models sharing embeddings share one array."""
    where = Path(base["embeddings"])  # absolute in memory; relative only on disk
    try:
        stamp = (where / "vectors.npz").stat().st_mtime_ns if where.is_dir() else 0
        vectors, index = _cached_embeddings(str(where.resolve()), stamp)
    except (ValueError, OSError) as e:
        raise ModelError(f"{model_dir}: needs the embeddings it was trained from ({e})") from None
    return vectors, np.array([index.get(w, -1) for w in vocab.items], dtype=np.int32)


@functools.lru_cache(maxsize=2)
def _cached_embeddings(path: str, stamp: int) -> tuple[np.ndarray, dict[str, int]]:
    """Read once per process (the shipped taggers share one table); `stamp` = file mtime.
    Kept in the stored precision (float16 halves the memory; the conversion is exact)."""
    words, vectors = read_embeddings(path)
    if read_metadata(path).get("dtype") == "float16":
        vectors = vectors.astype(np.float16)
    return vectors, {sys.intern(w): i for i, w in enumerate(words)}


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
    plus their own rows, instead of five full tables (the runtime only gathers rows)."""

    def __init__(self, base: np.ndarray, divisor: float, rows: np.ndarray,
                 own_rows: np.ndarray, own: np.ndarray):
        self.base, self.divisor = base, divisor
        self.own = np.asarray(own, dtype=np.float32)
        self.src = rows.astype(np.int32)
        self.src[own_rows] = ~np.arange(len(own_rows))  # negative: -1 - (index into own)
        self.shape = (len(rows), base.shape[1])
        self.dtype = np.dtype(np.float32)

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        src = self.src[ids]
        out = scaled(self.base[np.maximum(src, 0)], self.divisor)
        mine = src < 0
        if mine.any():
            out[mine] = self.own[~src[mine]]
        return out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self[np.arange(self.shape[0])].astype(dtype or np.float32, copy=False)


def _pack(weights: dict[str, np.ndarray], base: dict, vocab: Vocab, model_dir: Path
          ) -> dict[str, np.ndarray]:
    """Replace the word table by the rows that differ from the base table."""
    key = f"emb.tables.{base['table']}.weight"
    table = np.asarray(weights[key], dtype=np.float32)
    start, found = base_table(base, vocab, model_dir)
    keep = np.flatnonzero(~found | (table != start).any(1))
    out = {k: v for k, v in weights.items() if k != key}
    out[f"emb.tables.{base['table']}.rows"] = keep.astype(np.int32)
    out[f"emb.tables.{base['table']}.values"] = table[keep]
    return out


def _unpack(weights: dict[str, np.ndarray], base: dict, vocab: Vocab, model_dir: Path,
            shared: bool) -> None:
    j = base["table"]
    rows, values = weights.pop(f"emb.tables.{j}.rows"), weights.pop(f"emb.tables.{j}.values")
    if shared:
        vectors, index = _base_rows(base, vocab, model_dir)
        weights[f"emb.tables.{j}.weight"] = OverlayTable(vectors, base["divisor"], index, rows,
                                                         values)
        return
    table, _ = base_table(base, vocab, model_dir)
    table[rows] = values
    weights[f"emb.tables.{j}.weight"] = table


def save_model(path: str | os.PathLike, model: SavedModel) -> None:
    """Write atomically enough for training: files are replaced one by one."""
    path = Path(path)
    weights = model.weights
    base = model.info.get("word_base")
    if base is not None:
        spec = model.featurizer.specs[base["table"]]
        weights = _pack(weights, base, model.featurizer.vocabs[spec.name], path)
    (path / "vocab").mkdir(parents=True, exist_ok=True)
    for spec in model.featurizer.specs:
        model.featurizer.vocabs[spec.name].save(path / "vocab" / f"{spec.name}.lst")
    if model.featurizer.gazetteer is not None:
        model.featurizer.gazetteer.save(path / "gazetteer.lst")
    tmp = path / "weights.tmp.npz"
    np.savez(tmp, **{k: v if k.endswith(".rows") else np.asarray(v, dtype=np.float32)
                     for k, v in weights.items()})
    os.replace(tmp, path / "weights.npz")
    info = dict(model.info)
    if base is not None:  # relative, so that a model directory moves with its embeddings
        info["word_base"] = {**base, "embeddings": os.path.relpath(
            Path(base["embeddings"]).resolve(), path.resolve())}
    config = {"format": FORMAT, "version": VERSION, "task": model.task,
              "net": model.net.to_dict(), "features": model.featurizer.config(),
              "tags": model.tags.items, **info}
    (path / "config.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")


def _read_config(path: Path) -> dict:
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{path}: not a model directory (no config.json)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ModelError(f"{path}/config.json: corrupt ({e})") from None
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise ModelError(f"{path}/config.json: not a {FORMAT} file")
    if config.get("version") != VERSION:
        raise ModelError(f"{path}: model format version {config.get('version')!r}, "
                         f"this senna reads version {VERSION}")
    return config


def _read_weights(path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(path / "weights.npz", allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise ModelError(f"{path}: weights.npz is missing") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise ModelError(f"{path}/weights.npz: corrupt ({e})") from None


def load_model(path: str | os.PathLike, shared_tables: bool = False) -> SavedModel:
    """`shared_tables`: word tables trained from embeddings stay `OverlayTable`s (runtime)."""
    path = Path(path)
    config = _read_config(path)
    try:
        specs = [FeatureSpec(**s) for s in config["features"]]
        vocabs = {s.name: Vocab.load(path / "vocab" / f"{s.name}.lst") for s in specs}
        gaz = Gazetteer.load(path / "gazetteer.lst") if (path / "gazetteer.lst").exists() else None
        net = NetConfig.from_dict(config["net"])
        model = SavedModel(config["task"], net, Featurizer(specs, vocabs, gaz),
                           TagSet(config["tags"]), _read_weights(path),
                           {k: v for k, v in config.items()
                            if k not in ("format", "version", "task", "net", "features", "tags")})
        base = model.info.get("word_base")
        if base is not None:
            where = Path(base["embeddings"])
            base["embeddings"] = str(where if where.is_absolute() else (path / where).resolve())
            _unpack(model.weights, base, vocabs[specs[base["table"]].name], path, shared_tables)
    except ModelError:
        raise
    except (KeyError, TypeError, ValueError, OSError) as e:
        raise ModelError(f"{path}: incomplete or corrupt model ({type(e).__name__}: {e})") from None
    check_shapes(model, path)
    return model


def check_shapes(model: SavedModel, path: Path) -> None:
    """Weights must agree with the vocabularies and the network settings."""
    chars = model.net.chars or [[]] * len(model.featurizer.specs)
    if chars != [k.net_shape() for k in model.featurizer.kinds]:
        raise ModelError(f"{path}: the network's character settings {model.net.chars} do not "
                         "match the features")
    for j, spec in enumerate(model.featurizer.specs):
        rows, dim = len(model.featurizer.vocabs[spec.name]), model.net.dims[j]
        wants = {f"emb.tables.{j}.weight": (rows, dim)}
        if chars[j]:  # a character convolution (senna.nn.chars)
            width, window = chars[j]
            wants = {f"emb.tables.{j}.chars.weight": (rows, width),
                     f"emb.tables.{j}.conv.weight": (dim, width, window)}
        for key, want in wants.items():
            w = model.weights.get(key)
            if w is None or w.shape != want:
                raise ModelError(f"{path}: {key} ({spec.name}) has shape "
                                 f"{None if w is None else w.shape}, expected {want}")
    l2 = model.weights.get("l2.weight")
    if l2 is None or l2.shape[0] != len(model.tags):
        raise ModelError(f"{path}: output layer does not match the {len(model.tags)} tags")
