"""Shipped models, loaded by the NumPy runtime, score at least their card's dev score minus a
small margin on their full dev set (gold input columns, as during training)."""

import json
import os
from pathlib import Path

import pytest

from senna.io.conll import read_dataset, split_train_dev
from senna.runtime.model import TaskModel
from senna.runtime.predict import predict_gold_inputs
from senna.scoring import score_predictions
from senna.tasks import get_task
from senna.train.setup import attach_columns

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "senna" / "models"
DATA = Path(os.environ.get("SENNA_DATA", ROOT.parent / "shared" / "data"))
MARGIN = 0.3  # runtime and training compute the same tags; the margin only absorbs rounding


def shipped(task: str) -> Path:
    path = MODELS / task
    if not (path / "config.json").exists():
        pytest.skip(f"no shipped {task} model")
    if not DATA.exists():
        pytest.skip(f"no data at {DATA} (set SENNA_DATA)")
    return path


def resolve(p: str) -> Path:
    """Recipe paths are relative to the repository root ('../shared/data/...')."""
    parts = Path(p).parts
    return DATA.joinpath(*parts[parts.index("data") + 1 :]) if "data" in parts else Path(p)


@pytest.mark.regression
@pytest.mark.parametrize("task", ["pos", "chunk", "ner", "pt0", "srl"])
def test_shipped_model_reaches_its_dev_floor(task):
    path = shipped(task)
    config = json.loads((path / "config.json").read_text())
    settings = config["training"]["config"]
    spec = get_task(task)
    if settings.get("dev"):
        dev = read_dataset(resolve(settings["dev"]), spec.fmt)
    else:
        _, dev = split_train_dev(read_dataset(resolve(settings["train"]), spec.fmt),
                                 settings["dev_fraction"])
    if settings.get("extra_columns"):
        attach_columns(dev, str(resolve(settings["extra_columns"].split(",")[1])))
    predicted = predict_gold_inputs(TaskModel.load(path), spec, dev)
    score, _ = score_predictions(spec, dev, predicted)
    floor = config["dev"]["score"] - MARGIN
    assert score["score"] >= floor, f"{task}: {score['score']:.2f} < floor {floor:.2f}"
