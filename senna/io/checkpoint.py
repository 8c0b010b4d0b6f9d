"""A model is one directory that loads without pickle:

    config.json     format/version, task, network settings, feature specs, tags, training record
    weights.npz     float32 arrays named as in senna.nn.networks (np.load(allow_pickle=False))
    vocab/<feature>.lst   one entry per line
    gazetteer.lst   only for models with gazetteer features
    clusters.words, clusters.npy   only for models with cluster features: the lexicon's keys
                    and ids (senna.features.lexicons.Lexicon; older models kept the text lexicon,
                    clusters.lst, which still loads)

`load_model` rebuilds everything from the directory alone, rejects unknown versions and
checks the files against each other before any sentence is tagged (`senna.io.model_checks`);
a failure is one `ModelError` line naming the file and the array.  A word table trained
from embeddings stores only its own rows over them (`senna.io.word_base`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from senna.features.featurizer import Featurizer
from senna.features.lexicons import Gazetteer, Lexicon
from senna.features.specs import FeatureSpec
from senna.io.manifest import (
    MANIFEST,
    ManifestError,
    drop_manifest,
    inside,
    precheck,
    quiet,
    read_json,
    regular,
    sub_manifests,
    verify,
    warn_once,
    write_manifest,
)
from senna.io.model_checks import array_check, check_config, check_model, check_settings
from senna.io.npz import load_npz
from senna.io.saved_model import ModelError, SavedModel
from senna.io.word_base import (
    OWN_BASE,
    base_dir,
    check_divisor,
    own_base,
    pack_rows,
    unpack_rows,
    within_dir,
)
from senna.nn.config import NetConfig
from senna.tasks import register, task_from_record
from senna.vocab import FileVocab, TagSet, Vocab

FORMAT = "senna-model"
VERSION = 1
# files a model directory may hold besides config.json, weights.npz and vocab/
OPTIONAL_FILES = ("gazetteer.lst", *Lexicon.MODEL_FILES, "clusters.lst")
T = TypeVar("T")


def save_model(path: str | os.PathLike, model: SavedModel, portable: bool = True) -> None:
    """Write atomically enough for training: files are replaced one by one.  `portable`
    False: keep reading the embedding rows from where they are (`own_base` copies them
    otherwise), for a training checkpoint, which never leaves its run."""
    path = Path(path)
    weights = model.weights
    base = model.info.get("word_base")
    if base is not None:
        vocab = model.featurizer.vocabs[model.featurizer.specs[base["table"]].name]
        weights, used = pack_rows(weights, base, vocab, path)
        if portable:
            before, base = base, own_base(base, vocab, used, path)
            if within_dir(Path(before["embeddings"]), path) and not \
                    within_dir(Path(base["embeddings"]), path):   # its copy, now unread
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
    """config.json of a model directory, each field checked (`check_config`); where the
    directory has a manifest, every file it lists is checked against it first (`verify`),
    so that no changed file is ever parsed."""
    try:
        if (path / MANIFEST).exists():
            verify(path, ["config.json"])
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
    if "task_spec" in config:   # a user's own task: known to the runtime from here on
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
    sizes = config["net"]["vocab_sizes"]   # a bound on each list's lines, checked as read
    vocabs = {s.name: _reading(vocab_file(path, s.name),
                               lambda f, j=j: _read_vocab(f, sealed, sizes[j], j))
              for j, s in enumerate(specs)}
    gaz = (_reading(path / "gazetteer.lst", lambda f: _read_gazetteer(f, specs))
           if (path / "gazetteer.lst").exists() else None)
    lexicon = (_reading(path / "clusters.words", lambda _: Lexicon.load_model_files(path))
               if (path / "clusters.words").exists()
               else _reading(path / "clusters.lst", Lexicon.load)
               if (path / "clusters.lst").exists() else None)
    if lexicon is not None and not sealed:
        lexicon.preload()
    return Featurizer(specs, vocabs, gaz, lexicon)


def _read_vocab(file: Path, sealed: bool, entries: int, j: int) -> Vocab:
    vocab = Vocab.load(file, entries, f"but net.vocab_sizes[{j}] in config.json is "
                                      f"{entries:,}")
    if not sealed and isinstance(vocab, FileVocab):
        vocab.preload()   # indexing checks that no entry is listed twice
    return vocab


def load_model(path: str | os.PathLike, shared_tables: bool = False,
               base_anywhere: bool = False) -> SavedModel:
    """`shared_tables`: word tables trained from embeddings stay `OverlayTable`s (runtime).
    Every file is checked before the model is used (`check_config`, `check_model`, the
    arrays' headers before they are read), its size and checksum against the manifest
    before any file is parsed.  `base_anywhere`: a training checkpoint,
    which reads the embeddings where its run found them (`base_dir`)."""
    path = Path(path)
    try:
        inside(path, ["config.json"])
        config = read_config(path)   # with a manifest: every file checked first
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
        sealed = precheck(path, files) is not None   # each one the manifest vouched for
        featurizer = _read_featurizer(path, config, specs, sealed)
        net = NetConfig.from_dict(config["net"])
        model = SavedModel(config["task"], net, featurizer, TagSet(config["tags"]), {},
                           {k: v for k, v in config.items()
                            if k not in ("format", "version", "task", "net", "features",
                                         "tags")})
        if "task_spec" in config:
            model.task_spec = task_from_record(config["task_spec"])
        check_settings(model, path)
        model.weights = _reading(path / "weights.npz",
                                 lambda f: load_npz(f, array_check(model, f)))
        check_model(model, path)
        base = model.info.get("word_base")
        if base is not None:
            base["embeddings"] = str(base_dir(path, base["embeddings"], base_anywhere))
            check_divisor(base, path)
        if base is not None:
            unpack_rows(model.weights, base, featurizer.vocabs[specs[base["table"]].name], path,
                    shared_tables)
    except ModelError:
        raise
    except ManifestError as e:   # names the file already
        raise ModelError(str(e)) from None
    except (KeyError, TypeError, ValueError, OSError, RuntimeError, RecursionError) as e:
        raise ModelError(f"{path}: incomplete or corrupt model ({type(e).__name__}: {e})") from None
    return model


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
