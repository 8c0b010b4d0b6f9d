"""Model cards (senna.train.card): what a user needs to know and redo, and nothing about the
machine or the history of the run."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIX, ROOT

from senna.train.card import card_text

MODELS = ROOT / "senna/models"
SHIPPED = sorted(p.parent.name for p in MODELS.glob("*/config.json"))
HISTORY = re.compile(r"\b(session|issue)s? ?#?[0-9]", re.IGNORECASE)


def config_of(model: Path) -> dict:
    return json.loads((model / "config.json").read_text(encoding="utf-8"))


def shipped_config(task: str) -> dict:
    return config_of(MODELS / task)


def commands(card: str) -> list[str]:
    """The card's indented command lines."""
    return [line.strip() for line in card.splitlines() if line.startswith("    ")
            and line.strip().startswith(("python", "make", "senna"))]


def test_the_card_states_the_threads_used_and_no_machine():
    config = shipped_config("pos")
    config["training"]["config"]["threads"] = 2
    card = card_text(config)
    assert "min (wall clock, 2 threads)" in card
    assert "machine" not in card and "2-core" not in card and "one thread" not in card
    config["training"]["config"]["threads"] = 0
    assert "wall clock, torch's default number of threads)" in card_text(config)


@pytest.mark.parametrize("task, target", [*((t, t) for t in SHIPPED), ("psg/pt0", "psg-pt0"),
                                          ("psg/nml", "psg-nml")])
def test_every_shipped_card_names_its_make_target_and_no_history(task, target):
    card = (MODELS / task / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert f"Rebuild with `make {target}` from the repository root" in card
    assert not HISTORY.search(card), HISTORY.search(card)
    assert "copied here" not in card and "2-core" not in card
    for command in commands(card):   # a renamed or deleted recipe must not stay named
        files = [w for w in command.split() if w.startswith("recipes/")]
        assert all((ROOT / f).is_file() for f in files), command
    assert any(c.startswith(f"python -m senna compact senna/models/{task} --rows float16")
               for c in commands(card))


def test_the_embeddings_card_names_its_make_target():
    card = (MODELS / "embeddings" / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert "Rebuild: `make embeddings`" in card and not HISTORY.search(card)


def test_a_model_from_a_replaced_script_gets_the_makefile_step():
    """NER records `bash recipes/silver.sh ner`, the script the Makefile replaced."""
    config = shipped_config("ner")
    assert config["training"]["command"] == "bash recipes/silver.sh ner"
    card = card_text(config)
    assert "    python -m senna train --config recipes/ner-silver.json\n" in card
    assert "silver.sh" not in card and "`make ner`" in card


@pytest.mark.parametrize("command, out, expected", [
    ("senna train --config recipes/pos.json --out runs/rebuild/pos", "runs/rebuild/pos",
     "Rebuild with `make pos MODELS=runs/rebuild`"),
    ("senna train --config recipes/pos.json --out mine", "mine", "Retrain with:"),
    ("senna train --config recipes/ner-es.json --out senna/models/es/ner",
     "senna/models/es/ner", "Rebuild with `make ner-es` from the repository root (its "
     "Makefile: `make -n ner-es`"),
    ("senna train --config recipes/ner-es.json --out runs/es/ner", "runs/es/ner",
     "Rebuild with `make ner-es MODELS=runs`"),
    ("senna train --config recipes/ner-es.json --out runs/ner", "runs/ner", "Retrain with:"),
    ("senna train --config recipes/ner-es.json --seed 2 --out senna/models/es/ner/seed-2",
     "senna/models/es/ner/seed-2", "Rebuild with `make ner-es` from"),   # an ensemble member
    ("senna train --task psg --out runs/psg", "runs/psg", "Retrain with:"),   # no recipe
    ("senna train --config my-pos.json", "senna/models/pos", "Retrain with:"),
])
def test_the_make_target_only_where_the_makefile_trains_the_model(command, out, expected):
    config = copy.deepcopy(shipped_config("pos"))
    config["training"].update(command=command)
    config["training"]["config"]["out"] = out
    card = card_text(config)
    assert expected in card and f"    python -m {command}\n" in card
    if expected == "Retrain with:":
        assert "make pos" not in card


def test_a_run_started_by_python_m_senna_records_its_command(tmp_path):
    """The Makefile runs `python -m senna train ...`: the card must name that command (it
    said "(called from Python)", and then no make target)."""
    out = tmp_path / "pos"
    args = ["train", "--task", "pos", "--train", str(FIX / "ewt_sample.pos"), "--epochs", "1",
            "--max-words", "1000", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, "-m", "senna", *args], capture_output=True,
                         text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr
    command = shlex.join(["senna", *args])
    assert config_of(out)["training"]["command"] == command
    assert f"    python -m {command}\n" in (out / "MODEL_CARD.md").read_text(encoding="utf-8")


def test_the_licence_line_is_the_runs_else_the_built_in_datas_else_not_stated():
    """A model trained under a built-in task's name on other data (Spanish NER) does not
    claim the licence of the task's own data."""
    config = copy.deepcopy(shipped_config("chunk"))
    own = "CoNLL-2000 shared task data"
    assert f"Licence of the data: {own}" in card_text(config)
    settings = config["training"]["config"]
    settings["train"] = "/elsewhere/data/conll2000/train.txt"   # the same file elsewhere
    assert f"Licence of the data: {own}" in card_text(config)
    settings["train"] = "../shared/data/conll2002/esp.train"
    assert "- Licence of the data: not stated" in card_text(config)
    settings["licence"] = "CC BY 4.0"
    assert "- Licence of the data: CC BY 4.0\n" in card_text(config)
    ner = shipped_config("ner")   # silver data made from the task's own training file
    assert "Licence of the data: CoNLL-2003 English (Reuters)" in card_text(ner)
    ner["training"]["train_source"]["gold"] = "../shared/data/conll2002/esp.train"
    assert "Licence of the data: not stated" in card_text(ner)


def test_a_licence_must_be_one_line(capsys):
    from conftest import BASE, bad_settings

    err = bad_settings(capsys, [*BASE, "--licence", "a\nb"])
    assert "--licence must be one line of text" in err


def test_a_card_names_the_text_of_embeddings_kept_in_the_models_folder():
    """A model trained from a language model of its own (senna lm) keeps those rows and the
    text they came from: the card names that text and its licence, not the shipped one's."""
    config = copy.deepcopy(shipped_config("pos"))
    config["training"]["config"]["embeddings"] = "runs/embeddings-nl"
    card = card_text(config, ["nl_wetten_bwb_2017.txt.xz"])
    assert ("initialised from `runs/embeddings-nl`: a language model's, trained on "
            "`nl_wetten_bwb_2017.txt.xz`. Dutch statutes") in card
    assert "Reuters" not in card.split("Dev scores")[0]


def test_an_averaged_model_says_so():
    config = shipped_config("pos")
    config["training"]["config"]["average"] = 0.9997
    assert "- Its weights are a moving average of those training went through (decay 0.9997" \
        in card_text(config)
    config["training"]["config"]["average"] = 0.0
    assert "moving average" not in card_text(config)
