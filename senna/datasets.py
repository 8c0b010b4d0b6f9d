"""A task's train/dev sentences as a training run's settings name them (no PyTorch here:
evaluation, regression tests and benchmarks rebuild a model's dev set from its config)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from senna.io.conll import read_dataset, read_pt0, split_train_dev
from senna.tasks import TaskSpec, get_task


def attach_columns(sentences: list, path: str, name: str = "pt0") -> None:
    """Add another file's tag column (e.g. PT0 for SRL) to sentences with the same words."""
    other = read_pt0(path)
    if len(other) != len(sentences):
        raise ValueError(f"{path}: {len(other)} sentences, expected {len(sentences)}")
    for i, (s, o) in enumerate(zip(sentences, other, strict=True)):
        if o.words != s.words:
            raise ValueError(f"{path}: sentence {i + 1} has other words than the task data")
        s.columns[name] = o.columns[name]


def reader_format(cfg, task: TaskSpec) -> str:
    """The settings' file format, else the task's (older models' settings lack one)."""
    return getattr(cfg, "format", "") or task.fmt


def load_splits(cfg, task: TaskSpec) -> tuple[list, list]:
    """cfg has train, dev (None: the last dev_fraction of train), dev_fraction, extra_columns
    and extra_train (sentences for training only, after the split), all in the settings'
    `format` or else the task's."""
    fmt = reader_format(cfg, task)
    train = read_dataset(cfg.train, fmt)
    if cfg.dev:
        dev = read_dataset(cfg.dev, fmt)
    else:
        train, dev = split_train_dev(train, cfg.dev_fraction)
    if cfg.extra_columns:  # "train.pt0,dev.pt0"
        paths = cfg.extra_columns.split(",")
        if len(paths) != 2 or not cfg.dev:
            raise ValueError("extra_columns takes 'TRAIN_FILE,DEV_FILE' and needs a dev file")
        attach_columns(train, paths[0])
        attach_columns(dev, paths[1])
    if getattr(cfg, "extra_train", None):   # older models' settings lack it
        train = train + read_dataset(cfg.extra_train, fmt)
    return train, dev


def load_dev(cfg, task: TaskSpec) -> list:
    """The dev half of `load_splits`, reading the training file only when dev is cut from it:
    a run's training file may be a derived one (silver data under runs/) that is not kept."""
    if not cfg.dev:
        return load_splits(cfg, task)[1]
    dev = read_dataset(cfg.dev, reader_format(cfg, task))
    if cfg.extra_columns:
        attach_columns(dev, cfg.extra_columns.split(",")[-1])
    return dev


def rebase(path: str | None, data_root: Path) -> str | None:
    """'../shared/data/ewt/x' or '/any/where/data/ewt/x' -> str(data_root / 'ewt/x')."""
    if not path:
        return path
    parts = Path(path).parts
    return str(data_root.joinpath(*parts[parts.index("data") + 1 :])) if "data" in parts else path


def model_config(model_dir: str | Path) -> dict:
    """A model directory's config.json; an ensemble's first member's."""
    ensemble = Path(model_dir) / "ensemble.json"
    if ensemble.exists():
        model_dir = Path(model_dir) / json.loads(ensemble.read_text(encoding="utf-8"))["members"][0]
    return json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8"))


def recorded_dev_set(model_dir: str | Path, data_root: str | Path,
                     predicted: bool = True) -> tuple[TaskSpec, list]:
    """The dev sentences a saved model was scored on, read from `data_root`, with the input
    columns its training predicted (`predicted_columns`) predicted the same way (gold ones
    if not `predicted`, except those the data has no gold for, e.g. CHUNK on EWT).  An
    ensemble's are its first member's."""
    config = model_config(model_dir)
    settings = dict(config["training"]["config"])
    for key in ("train", "dev"):
        settings[key] = rebase(settings.get(key), Path(data_root))
    extra = settings.get("extra_columns")
    if extra:
        settings["extra_columns"] = ",".join(rebase(p, Path(data_root)) for p in extra.split(","))
    task = get_task(config["task"])
    dev = load_dev(SimpleNamespace(**settings), task)
    from senna.runtime.model import TaskModel
    from senna.train.cascade import parse_spec, tag_column  # no torch needed
    for column, path in parse_spec(settings.get("predicted_columns")):
        if predicted or any(column not in s.columns for s in dev):
            tag_column(TaskModel.load(beside_package(path)), dev, column)
    return task, dev


def beside_package(path: str) -> Path:
    """A path as recorded by a run started in the repository root ("senna/models/pos"),
    found from anywhere: as given if it exists, else from the repository root."""
    given = Path(path)
    root = Path(__file__).resolve().parent.parent
    return given if given.exists() or given.is_absolute() else root / given
