"""A model is one directory that loads without pickle:

    config.json     format/version, task, network settings, feature specs, tags, training record
    weights.npz     float32 arrays named as in senna.nn.networks (np.load(allow_pickle=False))
    vocab/<feature>.lst   one entry per line
    gazetteer.lst   only for models with gazetteer features

`load_model` rebuilds everything from the directory alone and rejects unknown versions.
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

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


def save_model(path: str | os.PathLike, model: SavedModel) -> None:
    """Write atomically enough for training: files are replaced one by one."""
    path = Path(path)
    (path / "vocab").mkdir(parents=True, exist_ok=True)
    for spec in model.featurizer.specs:
        model.featurizer.vocabs[spec.name].save(path / "vocab" / f"{spec.name}.lst")
    if model.featurizer.gazetteer is not None:
        model.featurizer.gazetteer.save(path / "gazetteer.lst")
    tmp = path / "weights.tmp.npz"
    np.savez(tmp, **{k: np.asarray(v, dtype=np.float32) for k, v in model.weights.items()})
    os.replace(tmp, path / "weights.npz")
    config = {"format": FORMAT, "version": VERSION, "task": model.task,
              "net": model.net.to_dict(), "features": model.featurizer.config(),
              "tags": model.tags.items, **model.info}
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


def load_model(path: str | os.PathLike) -> SavedModel:
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
    except ModelError:
        raise
    except (KeyError, TypeError, ValueError, OSError) as e:
        raise ModelError(f"{path}: incomplete or corrupt model ({type(e).__name__}: {e})") from None
    check_shapes(model, path)
    return model


def check_shapes(model: SavedModel, path: Path) -> None:
    """Weights must agree with the vocabularies and the network settings."""
    for j, spec in enumerate(model.featurizer.specs):
        w = model.weights.get(f"emb.tables.{j}.weight")
        want = (len(model.featurizer.vocabs[spec.name]), model.net.dims[j])
        if w is None or w.shape != want:
            raise ModelError(f"{path}: lookup table {spec.name} has shape "
                             f"{None if w is None else w.shape}, expected {want}")
    l2 = model.weights.get("l2.weight")
    if l2 is None or l2.shape[0] != len(model.tags):
        raise ModelError(f"{path}: output layer does not match the {len(model.tags)} tags")
