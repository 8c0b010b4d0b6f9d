"""Two models of users' tasks that share a name but not their layout (their training
files' columns, their tag sets) load and tag side by side in one process: each model
carries its own task description, and loading one never replaces the other's."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import tiny_model

import senna
from senna import tasks
from senna.io.checkpoint import load_model, save_model
from senna.io.saved_model import ModelError

DATES = ["O", "S-DATE", "B-DATE", "I-DATE", "E-DATE"]
MONEY = ["O", "S-MONEY", "B-MONEY", "I-MONEY", "E-MONEY", "S-CURRENCY"]
WORDS = "Anna paid 5 euros on March 3 in Paris .".split()


@pytest.fixture
def registry():
    """The task table as it was before the test, restored in place (the runtime's modules
    hold the same dict)."""
    before, aliases = dict(tasks.TASKS), dict(tasks.ALIASES)
    yield
    tasks.TASKS.clear()
    tasks.TASKS.update(before)
    tasks.ALIASES.clear()
    tasks.ALIASES.update(aliases)


def user_model(out: Path, tags: list[str], layout: str, scheme: str, seed: int) -> Path:
    model = tiny_model("twin", tags, seed=seed)
    model.info["task_spec"] = tasks.task_record(tasks.declare("twin", layout, scheme))
    save_model(out, model)
    return out


def test_two_models_of_one_task_name_with_other_layouts_tag_side_by_side(tmp_path, registry):
    first = user_model(tmp_path / "a", DATES, "word,_,twin", "iob2", seed=1)
    second = user_model(tmp_path / "b", MONEY, "twin,word", "iobes", seed=2)
    a, b = senna.load(first), senna.load(second)
    for tagger, own in ((a, DATES), (b, MONEY)):
        assert tagger.tasks == ("twin",)
        tags = tagger(WORDS).sentences[0].columns["twin"]
        assert len(tags) == len(WORDS) and set(tags) <= set(own), tags
    assert load_model(first).task_spec.fmt == "columns:word,_,twin"    # each its own
    assert load_model(second).task_spec.fmt == "columns:twin,word"
    assert load_model(second).task_spec.source_scheme == "iobes"
    assert set(a(WORDS).sentences[0].columns["twin"]) <= set(DATES)   # still its own


def test_one_task_name_written_two_ways_is_one_line_naming_the_fix(tmp_path, registry):
    spans = user_model(tmp_path / "a", DATES, "word,_,twin", "iob2", seed=1)
    labels = tiny_model("twin", ["O", "DATE", "MONEY"], seed=3)
    labels.info = {"scheme": "tags",
                   "task_spec": tasks.task_record(tasks.declare("twin", "word,twin", "tags"))}
    save_model(tmp_path / "b", labels)
    senna.load(spans)
    with pytest.raises(ModelError, match=r"b/config\.json: another model of a task named "
                                         r"twin is loaded whose tags are written otherwise "
                                         r"\(scheme 'iobes', here 'tags'\); give one of the "
                                         r"tasks another name"):
        senna.load(tmp_path / "b")
