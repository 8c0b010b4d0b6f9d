"""Shipped models, loaded by the NumPy runtime, score at least their card's dev score minus a
small margin on their full dev set (gold input columns, as during training)."""

import json
import os
from pathlib import Path

import pytest

from senna.datasets import recorded_dev_set
from senna.runtime.model import TaskModel
from senna.runtime.predict import predict_gold_inputs
from senna.scoring import score_predictions

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


@pytest.mark.regression
@pytest.mark.parametrize("task", ["pos", "chunk", "ner", "pt0", "srl"])
def test_shipped_model_reaches_its_dev_floor(task):
    path = shipped(task)
    spec, dev = recorded_dev_set(path, DATA)
    predicted = predict_gold_inputs(TaskModel.load(path), spec, dev)
    score, _ = score_predictions(spec, dev, predicted)
    card_score = json.loads((path / "config.json").read_text())["dev"]["score"]
    floor = card_score - MARGIN
    assert score["score"] >= floor, f"{task}: {score['score']:.2f} < floor {floor:.2f}"
