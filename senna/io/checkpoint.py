"""A model is one directory that loads without pickle:

    config.json     format/version, task, network settings, feature specs, tags, training record
    weights.npz     float32 arrays named as in senna.nn.networks (np.load(allow_pickle=False))
    vocab/<feature>.lst   one entry per line
    gazetteer.lst   only for models with gazetteer features
    clusters.words, clusters.npy   only for models with cluster features: the lexicon's keys
                    and ids (senna.features.Lexicon; older models kept the text lexicon,
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
"""

from __future__ import annotations

import functools
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from senna.embeddings import read_stored, scaled
from senna.features import FeatureSpec, Featurizer, Gazetteer, Lexicon
from senna.io.npz import load_npz
from senna.nn.config import NetConfig
from senna.vocab import FileIndex, TagSet, Vocab

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
    return vectors, FileIndex(words, str(Path(path) / "words.lst"))


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
    if model.featurizer.lexicon is not None:
        model.featurizer.lexicon.save_model_files(path)
        (path / "clusters.lst").unlink(missing_ok=True)   # the text form older models kept
    rows_dtype = np.dtype(model.info.get("rows_dtype", "float32"))   # see senna.cli.compact

    def stored(name: str, v: np.ndarray) -> np.ndarray:
        if name.endswith(".rows"):
            return v
        return np.asarray(v, dtype=rows_dtype if name.endswith(".values") else np.float32)

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
    if model.featurizer.fold_caps:   # written only when set: older models' files unchanged
        config["fold_caps"] = True
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
        return load_npz(path / "weights.npz")
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
        lexicon = (Lexicon.load_model_files(path) if (path / "clusters.words").exists()
                   else Lexicon.load(path / "clusters.lst") if (path / "clusters.lst").exists()
                   else None)
        net = NetConfig.from_dict(config["net"])
        featurizer = Featurizer(specs, vocabs, gaz, lexicon, bool(config.get("fold_caps")))
        model = SavedModel(config["task"], net, featurizer,
                           TagSet(config["tags"]), _read_weights(path),
                           {k: v for k, v in config.items()
                            if k not in ("format", "version", "task", "net", "features", "tags",
                                         "fold_caps")})
        base = model.info.get("word_base")
        check_model(model, path)
        if base is not None:
            where = Path(base["embeddings"])
            base["embeddings"] = str(where if where.is_absolute() else (path / where).resolve())
            _unpack(model.weights, base, vocabs[specs[base["table"]].name], path, shared_tables)
    except ModelError:
        raise
    except (KeyError, TypeError, ValueError, OSError) as e:
        raise ModelError(f"{path}: incomplete or corrupt model ({type(e).__name__}: {e})") from None
    return model


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
    if net.approach == "bilstm":   # senna.nn.networks.BiLSTMNet (a teacher): no l1
        h = net.hidden
        for way in ("", "_reverse"):
            shapes |= {f"lstm.weight_ih_l0{way}": (4 * h, net.input_dim),
                       f"lstm.weight_hh_l0{way}": (4 * h, h),
                       f"lstm.bias_ih_l0{way}": (4 * h,), f"lstm.bias_hh_l0{way}": (4 * h,)}
        shapes["l2.weight"] = (n_tags, 2 * h)
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


_EXPONENT = {2: (np.uint16, 0x7C00), 4: (np.uint32, 0x7F800000)}   # float16, float32


def _all_finite(a: np.ndarray) -> bool:
    """No NaN or infinity.  float16/32: an IEEE float is one exactly when its exponent bits
    are all ones, an integer test on the bits, in blocks (a few times faster than summing,
    and no temporary as large as the 13 MB embeddings); else a float64 sum, finite exactly
    when every value is."""
    if a.dtype.itemsize not in _EXPONENT or not a.flags.c_contiguous:
        return bool(np.isfinite(a.sum(dtype=np.float64)))
    kind, mask = _EXPONENT[a.dtype.itemsize]
    bits = a.reshape(-1).view(kind)
    step = 1 << 18
    buf = np.empty(min(step, len(bits)), dtype=kind)
    for i in range(0, len(bits), step):
        part = np.bitwise_and(bits[i : i + step], mask, out=buf[: len(bits[i : i + step])])
        if (part == mask).any():
            return False
    return True


def _check_values(a: np.ndarray, name: str, file: Path) -> None:
    """Floating point and finite."""
    if a.dtype.kind != "f":
        raise ModelError(f"{file}: array '{name}' holds {a.dtype} values, expected floating "
                         "point")
    if not _all_finite(a):
        bad = int(a.size - np.isfinite(a).sum())
        raise ModelError(f"{file}: array '{name}' holds {bad} value{'s' * (bad != 1)} that "
                         f"{'are' if bad != 1 else 'is'} not finite (NaN or infinite)")


def check_model(model: SavedModel, path: Path) -> None:
    """ModelError, naming the file and the array, unless the settings in config.json, the
    vocabularies, the tags and the arrays of weights.npz agree (see the module doc)."""
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
    if len(set(model.tags.items)) != len(model.tags):
        raise ModelError(f"{config}: tags are listed twice")
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
