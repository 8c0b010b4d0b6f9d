"""The top-level Makefile that rebuilds the shipped models: the order of its steps, where
they write, which steps it reuses, and that the model cards name its targets.  Checked with
`make -n` (nothing is trained)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT

from senna.train.card import MAKE_RECIPES

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")
TASKS = ("pos", "chunk", "pt0", "ner", "srl", "vbs")


def make(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60)


def steps(*args: str) -> list[str]:
    """Every step `make` would run for these targets, finished ones included (-B)."""
    res = make("-n", "-B", *args)
    assert res.returncode == 0, res.stderr
    return res.stdout.replace("\\\n", " ").splitlines()


def first(lines: list[str], text: str) -> int:
    """Index of the first step containing text."""
    return next(i for i, line in enumerate(lines) if text in line)


def test_models_runs_each_step_after_what_it_reads():
    lines = steps("models")
    order = [  # (earlier, later)
        ("--config recipes/pos.json --out senna/models/pos", "compact senna/models/pos "),
        ("compact senna/models/pos ", "recipes/chunk-pt0.json"),
        ("compact senna/models/pos ", "recipes/pt0-joint.json"),
        ("compact senna/models/pos ", "recipes/vbs.json"),
        ("lm clusters", "runs/ner-teachers/cl-seed3 "),
        ("runs/ner-teachers/cl-seed2-lr", "senna.train.silver"),
        ("senna.train.silver", "recipes/ner-bilstm.json"),
        ("recipes/ner-bilstm.json", "recipes/ner-silver.json"),
        ("recipes/ner-silver.json", "compact senna/models/ner "),
        ("--out runs/lm/corpus-small", "--seed 1 --out runs/srl-teachers/seed-1"),
        ("--seed 3 --out runs/srl-teachers/seed-3", "recipes/srl-teachers.json --seeds 1,2,3"),
        ("recipes/srl-teachers.json", "recipes/srl-lm.json"),
        ("recipes/srl-lm.json", "compact senna/models/srl "),
    ]
    for before, after in order:
        assert first(lines, before) < first(lines, after), (before, after)
    for task in TASKS:   # every shipped model is compacted after its training
        assert first(lines, MAKE_RECIPES[task]) < first(lines, f"compact senna/models/{task} ")


def shipped_texts() -> list[str]:
    """The texts the shipped embeddings record they were trained on, as LM_EN paths."""
    record = (ROOT / "senna" / "models" / "embeddings" / "embeddings.json").read_text()
    return [f"../shared/data/lm/{t}"
            for t in sorted(set(re.findall(r"[A-Za-z0-9_]+\.txt\.xz", record)))]


def test_models_does_not_retrain_the_embeddings():
    """Hours of training: while the embeddings' texts are LM_EN's, only `make embeddings`
    runs it."""
    same = steps("models", "LM_EN=" + " ".join(shipped_texts()))
    assert not any("lm train" in line or "lm export" in line for line in same)
    lines = steps("embeddings")
    assert first(lines, "lm prepare") < first(lines, "lm train --config recipes/lm.json") < \
        first(lines, "lm export --model runs/lm/model --to senna/models/embeddings")


@pytest.mark.parametrize("task", TASKS)
def test_each_target_trains_the_recipe_its_model_card_names(task):
    lines = steps(task)
    assert any(f"train --config {MAKE_RECIPES[task]}" in line for line in lines)
    assert lines[-1] == f"python -m senna compact senna/models/{task} --rows float16"


def test_spanish_trains_three_bilstms_then_their_ensemble():
    """`make ner-es` is one command: three BiLSTMs into senna/models/es/ner/seed-S (a step
    each), each compacted with its matrices in float16, then their ensemble; `make models`
    leaves it alone."""
    lines = steps("ner-es")
    recipe = f"--config {MAKE_RECIPES['ner-es']}"
    compacted = [first(lines, f"compact senna/models/es/ner/seed-{s} --rows float16 "
                              "--weights float16") for s in (1, 2, 3)]
    seeds = [first(lines, f"{recipe} --seed {s} --out senna/models/es/ner/seed-{s}")
             for s in (1, 2, 3)]
    assert max(seeds + compacted) < first(lines, f"{recipe} --seeds 1,2,3")
    assert lines[-1].endswith("--out senna/models/es/ner")
    assert not any("ner-es" in line for line in steps("models"))


def test_dutch_trains_teachers_then_its_ner():
    """`make ner-nl` is one command: three BiLSTM teachers (a step each), their ensemble,
    then the NER recipe, distilled from them, into senna/models/nl/ner, compacted with its
    matrices in float16; `make models` leaves them alone."""
    lines = steps("ner-nl")
    teachers = "--config recipes/ner-nl-teachers.json"
    seeds = [first(lines, f"{teachers} --seed {s} --out runs/ner-nl-teachers/seed-{s}")
             for s in (1, 2, 3)]
    assert max(seeds) < first(lines, f"{teachers} --seeds 1,2,3") < \
        first(lines, f"train --config {MAKE_RECIPES['ner-nl']} --out senna/models/nl/ner")
    assert lines[-1] == \
        "python -m senna compact senna/models/nl/ner --rows float16 --weights float16"
    assert not any("ner-nl" in line for line in steps("models"))


@pytest.mark.skipif(shutil.which("flock") is None, reason="needs flock (util-linux)")
def test_steps_that_train_jackknife_folds_take_turns_under_j2():
    """Two jobs training the same fold into runs/jackknife/ at once would corrupt it: every
    step whose recipe (or a joint recipe's task) jackknifes holds one lock."""
    def jackknifes(recipe: str) -> bool:
        settings = json.loads((ROOT / recipe).read_text())
        tasks = settings.get("tasks", {}).values()
        names = [t if isinstance(t, str) else t["recipe"] for t in tasks]
        return bool(settings.get("jackknife")) or any(jackknifes(f"recipes/{n}") for n in names)

    checked = 0
    for line in steps("models"):
        if " train --config " in line:
            recipe = line.split(" train --config ")[1].split()[0]
            assert line.startswith("flock runs/.jackknife.lock ") == jackknifes(recipe), line
            checked += jackknifes(recipe)
    assert checked == 3   # CHUNK's and PT0's joint runs, VBS


def test_models_variable_writes_pos_vbs_and_ner_elsewhere(tmp_path):
    lines = steps("pos", "vbs", "ner", f"MODELS={tmp_path}")
    assert f"python -m senna train --config recipes/pos.json --out {tmp_path}/pos" in lines
    assert f"python -m senna compact {tmp_path}/pos --rows float16" in lines
    vbs = lines[first(lines, "recipes/vbs.json")]
    assert f"--out {tmp_path}/vbs --predicted-columns pos={tmp_path}/pos" in vbs
    assert any(line.endswith(f"recipes/ner-silver.json --out {tmp_path}/ner") for line in lines)
    assert not any("senna/models/" in line and "embeddings" not in line for line in lines)


@pytest.mark.parametrize("args", [["chunk", "MODELS=elsewhere"], ["MODELS=elsewhere"],
                                  ["pos", "DATA=/nowhere"]])
def test_places_the_recipes_cannot_follow_are_refused_in_one_line(args):
    res = make("-n", *args)
    assert res.returncode != 0 and res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1
    assert "MODELS applies to pos, vbs and ner" in res.stderr or "DATA must be" in res.stderr


def test_a_finished_step_is_reused_until_its_recipe_changes(tmp_path):
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    files = ["recipes/pos.json", "senna/models/embeddings/vectors.npz",
             "senna/models/pos/history.json", "senna/models/pos/weights.npz"]
    for age, name in enumerate(files):   # each file newer than the one before
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
        os.utime(path, (1_000_000 + age, 1_000_000 + age))
    res = make("-n", "pos", cwd=tmp_path)
    assert res.returncode == 0 and "train" not in res.stdout and "compact" not in res.stdout
    os.utime(tmp_path / "recipes/pos.json", (2_000_000, 2_000_000))
    res = make("-n", "pos", cwd=tmp_path)
    assert res.stdout.splitlines() == [
        "python -m senna train --config recipes/pos.json --out senna/models/pos",
        "python -m senna compact senna/models/pos --rows float16"]


def test_the_parser_trains_its_own_taggers_after_pos():
    """`make psg` is one command: the level network, the parser's own PT0 tagger (in
    senna/models/psg/pt0, reading the POS tagger's tags, so after it) and its NML tagger
    (senna/models/psg/nml, from files made of the EWT trees first), all compacted with
    their matrices in float16; the POS tagger keeps its own compaction."""
    lines = steps("psg")
    own = first(lines, f"train --config {MAKE_RECIPES['psg-pt0']} --out senna/models/psg/pt0 "
                       "--predicted-columns pos=senna/models/pos")
    assert first(lines, "compact senna/models/pos ") < own
    assert first(lines, f"train --config {MAKE_RECIPES['psg']} --out senna/models/psg") < \
        first(lines, "compact senna/models/psg --rows float16 --weights float16")
    assert own < first(lines, "compact senna/models/psg/pt0 --rows float16 --weights float16")
    nml = first(lines, f"train --config {MAKE_RECIPES['psg-nml']} --out senna/models/psg/nml "
                       "--predicted-columns pos=senna/models/pos")
    assert first(lines, "recipes/nml_data.py --data ../shared/data --out runs/nml") < nml
    assert first(lines, "compact senna/models/pos ") < nml
    assert nml < first(lines, "compact senna/models/psg/nml --rows float16 --weights float16")
    assert "python -m senna compact senna/models/pos --rows float16" in lines
    assert not any("psg" in line for line in steps("models"))


def test_models_rebuild_the_embeddings_when_their_texts_change():
    """The shipped embeddings record the texts they were trained on: `make models` retrains
    them first (and every tagger after them) only when LM_EN names other texts."""
    same = make("-n", "models", "LM_EN=" + " ".join(shipped_texts()))
    other = make("-n", "models", "LM_EN=../shared/data/lm/en_voa_gmb_news.txt.xz")
    assert same.returncode == other.returncode == 0, same.stderr + other.stderr
    assert "lm train --config recipes/lm.json" not in same.stdout
    train = other.stdout.index("lm train --config recipes/lm.json")
    assert train < other.stdout.index("--config recipes/pos.json")
