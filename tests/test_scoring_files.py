"""The scoring package as a library (what `senna evaluate` and the benchmarks call), model
folders read through the one checked reader, and data reading without the runtime."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import FIX, ROOT

from senna.io.checkpoint import seal_model
from senna.io.manifest import MANIFEST
from senna.io.saved_model import ModelError
from senna.runtime.ensemble import folder_config
from senna.scoring.files import score_file
from senna.tasks import get_task


def test_a_file_scored_against_itself_by_the_library_scores_100():
    gold = str(FIX / "conll2000_sample.txt")
    scored = score_file(get_task("chunk"), gold, "conll2000", pred_path=gold)
    assert scored.scores["score"] == 100.0
    assert scored.report.startswith("processed ") and "FB1: 100.00" in scored.report
    assert scored.scheme_note.startswith(f"{gold}: gold tags read as")


def _with_settings(models, tmp_path, name: str, settings: dict):
    """A copy of the tiny POS model recording training `settings`, sealed (manifest)."""
    folder = tmp_path / name
    shutil.copytree(models / "pos", folder)
    (folder / MANIFEST).unlink(missing_ok=True)   # sealed again below, with the settings
    config = json.loads((folder / "config.json").read_text())
    config["training"] = {"config": settings}
    (folder / "config.json").write_text(json.dumps(config))
    seal_model(folder)
    return folder


def test_recorded_settings_are_read_as_the_model_is_checked(models, tmp_path):
    """A model's recorded settings (for jackknife folds, a dev set rebuilt) come through the
    model reader: a config.json changed after its manifest is refused, not read."""
    from senna.train.folds import recorded_settings

    folder = _with_settings(models, tmp_path, "pos", {"task": "pos", "train": "a.txt"})
    assert recorded_settings(str(folder)) == {"task": "pos", "train": "a.txt"}
    config = json.loads((folder / "config.json").read_text())
    config["training"]["config"]["train"] = "b.txt"
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="config.json"):
        recorded_settings(str(folder))


def test_an_ensembles_recorded_settings_are_its_first_members(models, tmp_path):
    from senna.train.folds import recorded_settings

    ensemble = tmp_path / "ensemble"
    ensemble.mkdir()
    for i in (1, 2):
        _with_settings(models, ensemble, f"seed-{i}", {"task": "pos", "seed": i})
    (ensemble / "ensemble.json").write_text(json.dumps(
        {"format": "senna-ensemble", "version": 1, "task": "pos", "combine": "vote",
         "members": ["seed-1", "seed-2"]}))
    assert recorded_settings(str(ensemble)) == {"task": "pos", "seed": 1}
    assert folder_config(ensemble)["task"] == "pos"


def test_reading_data_does_not_load_the_runtime():
    """Data readers stand below the runtime: importing them imports no tagger code."""
    code = ("import sys, senna.datasets; "
            "print(sorted(m for m in sys.modules if m.startswith('senna.runtime')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == "[]"
