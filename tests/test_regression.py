"""Shipped models, loaded by the NumPy runtime, score at least a floor written here on their
full dev set, with the input columns their training used: predicted by the shipped models
where the recipe says `predicted_columns` (CHUNK, PT0, VBS and SRL read predicted POS or PT0,
as users get them), gold otherwise.  The floors are the shipped models' dev scores rounded
down by about 0.1: a retrained model must do as well, and a worse one fails (floors are
never read back from a model's own card)."""

import json

import pytest
from conftest import MODELS, shipped

from senna.runtime.ensemble import load_tagger
from senna.runtime.predict import predict_gold_inputs
from senna.scoring.inputs import recorded_dev_set
from senna.scoring.predictions import score_predictions

FLOORS = {"pos": 95.1, "chunk": 95.3, "ner": 93.55, "pt0": 89.8, "vbs": 95.3, "srl": 77.15,
          "es/ner": 82.05, "nl/ner": 82.95, "psg/pt0": 90.65}


@pytest.mark.regression
@pytest.mark.parametrize("task", sorted(FLOORS))
def test_shipped_model_reaches_its_dev_floor(task, data_dir):
    path = shipped(task)
    spec, dev = recorded_dev_set(path, data_dir)
    predicted = predict_gold_inputs(load_tagger(path), spec, dev)
    score, _ = score_predictions(spec, dev, predicted)
    assert score["score"] >= FLOORS[task], f"{task}: {score['score']:.2f} < {FLOORS[task]}"


# SRL as users get it: its POS and PT0 columns predicted by the shipped POS tagger and the
# shipped PT0 model reading those tags (the floors above use the gold columns of training).
CASCADE_FLOORS = {"srl": (("pos", "pt0"), 74.5)}


@pytest.mark.regression
@pytest.mark.parametrize("task", sorted(CASCADE_FLOORS))
def test_shipped_model_reaches_its_floor_through_the_cascade(task, data_dir):
    from senna.runtime.model import TaskModel
    from senna.runtime.predict import tag_column

    path = shipped(task)
    spec, dev = recorded_dev_set(path, data_dir)
    inputs, floor = CASCADE_FLOORS[task]
    for column in inputs:
        tag_column(TaskModel.load(shipped(column)), dev, column)
    predicted = predict_gold_inputs(load_tagger(path), spec, dev)
    score, _ = score_predictions(spec, dev, predicted)
    assert score["score"] >= floor, f"{task} (cascade): {score['score']:.2f} < {floor}"


# The parser's labelled bracket F1 (evalb's conventions) on EWT dev trees, parsing the POS
# tags of the shipped POS tagger, its first level keeping the phrases of its own PT0 tagger
# (psg/pt0, reading those tags) and its NML tagger's nodes put back (psg/nml), as
# `senna -psg` does: greedily (the default) and with a beam of two partial parses
# (`--psg-beam 2`).
PSG_FLOORS = {None: 84.0, 2: 84.0}


@pytest.mark.regression
@pytest.mark.parametrize("beam", list(PSG_FLOORS))
def test_shipped_parser_reaches_its_dev_floor(data_dir, beam):
    from senna.scoring.trees import tree_scores
    from senna.tasks import get_task

    score = tree_scores(get_task("psg"), str(data_dir / "ewt" / "ewt.dev.gold_conll"),
                        str(shipped("psg")), beam=beam)
    assert score.sentences == 1972
    assert score.f1 >= PSG_FLOORS[beam], f"psg, beam {beam}: {score.f1:.2f} < {PSG_FLOORS[beam]}"


def packaged(patterns: list[str]) -> set:
    """The files under senna/ that pyproject's package-data patterns put in the wheel."""
    return {f for p in patterns for f in MODELS.parent.glob(p) if f.is_file()}


def test_the_wheel_ships_every_file_a_shipped_model_reads():
    """`pip install .` (the README's first command) installs what each shipped model's
    manifest lists: a file kind missing from package-data (say, compressed dictionaries)
    would load in a clone and fail once installed."""
    tomllib = pytest.importorskip("tomllib")     # Python 3.11+
    patterns = tomllib.loads((MODELS.parents[1] / "pyproject.toml").read_text())[
        "tool"]["setuptools"]["package-data"]["senna"]
    wheel = packaged(patterns)
    manifests = sorted(m for m in MODELS.glob("**/manifest.json")   # not a training run's
                       if "checkpoint" not in m.relative_to(MODELS).parts)   # checkpoint
    if not manifests:
        pytest.skip("no shipped models")
    for manifest in manifests:
        listed = json.loads(manifest.read_text())["files"]
        missing = [n for n in listed if manifest.parent / n not in wheel]
        assert not missing, f"{manifest.parent}: not in the wheel: {missing}"


def test_shipped_models_fit_the_60_mb_budget():
    """What the wheel ships of senna/models (pyproject's package-data patterns; training
    checkpoints stay out) stays under the 60 MB the project allows its models."""
    tomllib = pytest.importorskip("tomllib")     # Python 3.11+
    patterns = tomllib.loads((MODELS.parents[1] / "pyproject.toml").read_text())[
        "tool"]["setuptools"]["package-data"]["senna"]
    files = packaged([p for p in patterns if p.startswith("models/")])
    if not files:
        pytest.skip("no shipped models")
    total = sum(f.stat().st_size for f in files)
    assert total < 60_000_000, f"shipped models: {total / 1e6:.1f} MB"
