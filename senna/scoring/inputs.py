"""The input columns a model reads (POS for PT0 and the parser, PT0 for SRL) predicted as
its training predicted them, so that a score on a data file is the score users get, and
the dev set a saved model was scored on, rebuilt from its recorded settings."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from senna.datasets import load_dev, parse_spec, rebase
from senna.runtime.ensemble import folder_config, folder_task, load_tagger
from senna.runtime.folders import default_model_dir
from senna.runtime.model import TaskModel
from senna.runtime.predict import tag_column
from senna.syntax.levels import GOLD_TREE, TREE
from senna.tasks import TaskSpec, get_task


def beside_package(path: str) -> Path:
    """A path as recorded by a run started in the repository root ("senna/models/pos"),
    found from anywhere: as given if it exists, else from the repository root."""
    given = Path(path)
    root = Path(__file__).resolve().parent.parent.parent
    return given if given.exists() or given.is_absolute() else root / given


def predict_inputs(spec: list[tuple[str, str]], sentences: list, model_path: str) -> list:
    """Copies of the sentences whose input columns `spec` names (column, model directory:
    those the model's training predicted) are tagged by those models, as training scored its
    dev set; ValueError naming --gold-inputs when such a model is not found."""
    if not spec:
        return sentences
    out = [replace(s, columns=dict(s.columns)) for s in sentences]
    for column, path in spec:
        found = beside_package(path)
        if not found.is_dir() or folder_task(found) is None:
            raise ValueError(f"{model_path} reads {column} tags predicted by {path}, which "
                             f"is not found: give that model there, or pass --gold-inputs "
                             f"to read the file's {column} column")
        tag_column(load_tagger(found), out, column)
    return out


def recorded_inputs(model: TaskModel) -> list[tuple[str, str]]:
    """The input columns `model`'s training predicted, and the models it predicted them
    with (its settings' `predicted_columns`)."""
    config = model.saved.info.get("training", {}).get("config", {})
    return parse_spec(config.get("predicted_columns"))


def runtime_inputs(model: TaskModel, task: TaskSpec, sentences: list, model_path: str) -> list:
    """Copies of the sentences with the columns of the tasks `task` requires (POS for the
    parser) predicted as the runtime predicts them: by the models the model's training
    named (`predicted_columns`), else by the shipped models."""
    spec = dict(recorded_inputs(model))
    for column in task.requires:
        spec.setdefault(column, str(default_model_dir() / column))
    return predict_inputs(list(spec.items()), sentences, model_path)


def recorded_dev_set(model_dir: str | Path, data_root: str | Path,
                     predicted: bool = True) -> tuple[TaskSpec, list]:
    """The dev sentences a saved model was scored on, read from `data_root`, with the input
    columns its training predicted (`predicted_columns`) predicted the same way (gold ones
    if not `predicted`, except those the data has no gold for, e.g. CHUNK on EWT; a parse
    tree's gold is the data's parse column).  An ensemble's are its first member's."""
    config = folder_config(model_dir)
    settings = dict(config["training"]["config"])
    for key in ("train", "dev"):
        settings[key] = rebase(settings.get(key), Path(data_root))
    extra = settings.get("extra_columns")
    if extra:
        settings["extra_columns"] = ",".join(rebase(p, Path(data_root)) for p in extra.split(","))
    task = get_task(config["task"])
    dev = load_dev(SimpleNamespace(**settings), task)
    for column, path in parse_spec(settings.get("predicted_columns")):
        gold = GOLD_TREE if column == TREE else column
        if predicted or any(gold not in s.columns for s in dev):
            tag_column(load_tagger(beside_package(path)), dev, column)
    return task, dev
