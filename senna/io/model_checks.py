"""The checks a model folder passes before any sentence is tagged: every field of config.json
has its type and a usable value (`check_config`); the settings agree with the vocabularies
and tags (`check_settings`); every array the network settings imply is present, with that
shape, floating point, finite and of a trained weight's magnitude (`check_model`).  Each
failure is one `ModelError` naming the file and the field or array."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from senna.io.npz import Check
from senna.io.saved_model import ModelError, SavedModel
from senna.tags import SCHEMES, split_tag
from senna.tasks import TASKS
from senna.text.tokenize import LANGUAGES

# Largest magnitude a stored weight may have: the shipped models' largest is 14.1 (PT0's
# tag embeddings; transitions reach 12.9), so this leaves a margin of 700 times, while a
# weight near float32's limit (3e38) overflows the network's sums.
WEIGHT_LIMIT = 1e4
# least value of each whole-number network setting (NetConfig checks how they combine)
_NET_LEAST = {"n_tags": 1, "window": 1, "hidden": 1, "conv": 0, "dist_dim": 0, "max_dist": 0,
              "predicate_window": 0, "stack": 0, "stack_hidden": 0,
              "level_hidden": 0}
_NAME = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*")   # a feature's vocabulary file name


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


def within_limit(a: np.ndarray, limit: float) -> bool:
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


def peak_magnitude(a: np.ndarray) -> float:
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


def all_finite(a: np.ndarray) -> bool:
    """No NaN or infinity."""
    return within_limit(a, np.inf)


def _float_only(dtype: np.dtype, name: str, file: Path) -> None:
    if dtype.kind != "f":
        raise ModelError(f"{file}: array '{name}' holds {dtype} values, expected floating "
                         "point")


def check_values(a: np.ndarray, name: str, file: Path) -> None:
    """Floating point, finite and at most WEIGHT_LIMIT in magnitude."""
    _float_only(a.dtype, name, file)
    if within_limit(a, WEIGHT_LIMIT):
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


def array_check(model: SavedModel, file: Path) -> Check:
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
        check_values(weights[name], name, file)
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
    check_values(values, values_name, file)
