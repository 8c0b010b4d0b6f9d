"""`senna train` and `senna lm train` settings: help and checks without PyTorch, one
`senna: error:` line and exit 2 for every bad setting (command line or --config file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import BASE, FIX, ROOT, bad_settings

# Run a senna command as if PyTorch (and the other training extras) were not installed.
NO_TORCH = ("import sys; sys.modules.update(torch=None, tqdm=None, matplotlib=None); "
            "from senna.cli.main import main; sys.exit(main(sys.argv[1:]))")


def without_torch(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", NO_TORCH, *args], capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.parametrize("command", [["train"], ["lm", "train"], ["lm"]])
def test_help_without_pytorch_describes_every_option(command):
    res = without_torch(*command, "--help")
    assert res.returncode == 0, res.stderr
    text = " ".join(res.stdout.split())
    if command == ["train"]:
        assert "sentences (SRL: predicates) per update, at least 1 (default: 16)" in text
        assert "{sgd,adam}" in text
        assert "a built-in one (pos, chunk, ner, pt0, vbs, srl, psg), or a name of your own" in text
        assert "conll2002 (WORD NER or WORD POS NER)" in text   # each format and what it reads
        assert "--dev-fraction" in text and "between 0 and 1" in text
    elif command == ["lm", "train"]:
        assert "windows per step and per process (default: 4096)" in text
        assert "{auto,cpu,cuda}" in text and "curriculum" in text
    else:
        assert "prepare" in text and "export" in text


def test_joint_settings_are_checked_without_pytorch():
    res = without_torch("train", "--tasks", "pos", "--out", "unused")
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith("senna: error: joint training needs a tagging task and at "
                                 "least one more task"), res.stderr


def test_the_joint_options_are_the_joint_settings():
    """Each multi-task option is a JointConfig setting: its help text and default there."""
    from dataclasses import fields

    from senna.cli.train import parser
    from senna.train.joint_config import JOINT_OPTIONS, JointConfig

    text = " ".join(parser().format_help().split())
    block = text.split("multi-task learning")[1].split("ensembles (section 6.1)")[0]
    by_name = {f.name: f for f in fields(JointConfig)}
    for name in ("tasks", *JOINT_OPTIONS):
        assert f"--{name.replace('_', '-')} " in block
        assert " ".join(by_name[name].metadata["help"].split()) in block, name
    assert "(default: proportional)" in block and "(default: True)" in block


def test_missing_pytorch_names_the_local_install():
    res = without_torch("train", "--task", "pos", "--train", str(FIX / "ewt_sample.pos"))
    assert res.returncode == 1
    assert res.stderr.startswith("senna: error: training needs PyTorch: pip install '.[train]'")
    assert res.stderr.count("\n") == 1 and "senna[train]" not in res.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--batch-size", "0"], "--batch-size must be at least 1, got 0"),
    (["--epochs", "0"], "--epochs must be at least 1, got 0"),
    (["--lr", "nan"], "--lr must be a finite number, got nan"),
    (["--lr", "-0.1"], "--lr must be a positive number"),
    (["--dev-fraction", "0"], "--dev-fraction must be between 0 and 1 (exclusive) when no "
                              "--dev file is given, got 0.0"),
    (["--window", "4"], "--window must be odd"),
    (["--predicate-window", "4"], "--predicate-window must be 0 or odd, got 4"),
    (["--predicate-window", "3"], "--predicate-window needs the sentence approach"),
    (["--optimizer", "rmsprop"], "argument --optimizer: invalid choice: 'rmsprop'"),
    (["--features", "window"], "features must be a preset"),
    (["--fixed-embeddings", "true"], "--fixed-embeddings needs --embeddings"),
])
def test_bad_training_settings(capsys, args, message):
    assert message in bad_settings(capsys, BASE + args)


def test_missing_task_and_bad_config_files(capsys, tmp_path):
    assert "senna train needs --task" in bad_settings(capsys, ["train", "--train", "x"])
    config = tmp_path / "recipe.json"
    config.write_text("{'task': 'ner'}")
    err = bad_settings(capsys, ["train", "--config", str(config)])
    assert f"{config}: not a JSON settings file" in err
    config.write_text(json.dumps({"task": "ner", "train": "x", "batchsize": 4}))
    assert f"{config}: unknown training settings ['batchsize']" in bad_settings(
        capsys, ["train", "--config", str(config)])
    config.write_text(json.dumps({"task": "ner", "train": "x", "lr": "0.1"}))
    assert "--lr must be a number, got '0.1'" in bad_settings(
        capsys, ["train", "--config", str(config)])
    assert f"{tmp_path / 'none.json'}: cannot read" in bad_settings(
        capsys, ["train", "--config", str(tmp_path / "none.json")])
    config.write_text("[1, 2]")
    assert "expected a JSON object" in bad_settings(capsys, ["lm", "train", "--config",
                                                             str(config)])
    assert "--batch must be at least 1" in bad_settings(capsys, ["lm", "train", "--batch", "0"])


def test_settings_are_checked_from_python_too():
    from senna.train.config import TrainConfig

    with pytest.raises(ValueError, match="--batch-size must be at least 1"):
        TrainConfig(task="ner", train="x", batch_size=0)
    assert TrainConfig(task="srl", train="x", dev="y", dev_fraction=0).dev_fraction == 0


@pytest.fixture
def planned(monkeypatch):
    """`senna train` parses its options into a plan and stops before training: -> the plans
    it hands to the library (each run prints its result's summary, seeds' ensembles from
    `ensembles` if the test sets it)."""
    import senna.cli.train as cli
    from senna.train.plan import TrainResult

    plans: list = []
    ensembles: dict = {}

    def execute(plan):
        plans.append(plan)
        if ensembles:
            return TrainResult(plan, ensembles=ensembles)
        best = {t: {"score": 0.0, "epoch": 0} for t in getattr(plan.config, "tasks", None)
                or [plan.config.task]}
        return TrainResult(plan, state={"best": best, "seconds": 0.0})

    monkeypatch.setattr(cli, "_import", lambda module, name: execute)
    monkeypatch.chdir(ROOT)
    return plans, ensembles


@pytest.mark.parametrize("recipe", sorted(p for p in (ROOT / "recipes").glob("*.json")
                                          if not p.name.startswith("lm")), ids=lambda p: p.name)
def test_every_training_recipe_is_valid_settings(recipe, planned):
    """`senna train --config recipes/<file>` accepts every shipped recipe (a joint one
    builds its JointConfig): checked without training, so a renamed setting or a joint
    recipe naming a task it does not train fails here and not in a 30-minute retrain."""
    import senna.cli.train as cli

    plans, _ = planned
    assert cli.main(["--config", str(recipe)]) == 0
    assert len(plans) == 1
    built = plans[0].config
    settings = json.loads(recipe.read_text())
    if "ship" in settings:   # a joint recipe's shipped tasks go to the models directory
        assert {t: str(built.model_dir(t)) for t in settings["ship"]} == \
            {t: f"{settings['models']}/{t}" for t in settings["ship"]}


def test_a_joint_config_finds_its_task_recipes_beside_it(tmp_path, planned):
    """A copied joint config reads the task settings next to it, not recipes/'s (which once
    trained a dropout experiment silently without its dropout)."""
    import senna.cli.train as cli

    (tmp_path / "srl.json").write_text(json.dumps(
        {**json.loads((ROOT / "recipes" / "srl.json").read_text()), "dropout_hidden": 0.7}))
    (tmp_path / "joint.json").write_text(json.dumps(
        {"tasks": {"srl": "srl.json"}, "lm_corpus": "corpus", "out": str(tmp_path / "run")}))
    plans, _ = planned
    assert cli.main(["--config", str(tmp_path / "joint.json")]) == 0
    assert plans[0].config.tasks["srl"]["dropout_hidden"] == 0.7
    assert cli.main(["--config", str(tmp_path / "joint.json"), "--recipes", "recipes"]) == 0
    assert plans[1].config.tasks["srl"].get("dropout_hidden") != 0.7


def test_a_joint_task_changes_some_settings_of_its_recipe(tmp_path, planned):
    """{"recipe": file, setting: value}: the recipe's settings with those changed (CHUNK
    and PT0's joint run trains its POS partner with the 300-unit layer they share, while
    the shipped POS recipe has 100)."""
    import senna.cli.train as cli

    (tmp_path / "joint.json").write_text(json.dumps(
        {"tasks": {"pos": {"recipe": "pos.json", "hidden": 240}, "chunk": "chunk.json"},
         "out": str(tmp_path / "run")}))
    plans, _ = planned
    assert cli.main(["--config", str(tmp_path / "joint.json"), "--recipes", "recipes"]) == 0
    recipe = json.loads((ROOT / "recipes" / "pos.json").read_text())
    assert plans[0].config.tasks["pos"] == {**recipe, "hidden": 240}
    assert plans[0].config.tasks["chunk"] == json.loads(
        (ROOT / "recipes" / "chunk.json").read_text())


def test_seeds_with_a_joint_config_train_one_run_per_seed(planned, capsys):
    """`senna train --config recipes/srl-teachers.json --seeds 1,2,3` (SRL's teachers):
    the joint settings go to the per-seed trainer; --joined-epochs is refused there."""
    import senna.cli.train as cli

    plans, ensembles = planned
    ensembles["srl"] = {"dev": {"seed-1": 1.0, "mean": 2.0}}
    assert cli.main(["--config", "recipes/srl-teachers.json", "--seeds", "1,2,3"]) == 0
    cfg, seeds = plans[0].config, plans[0].seeds
    assert seeds == (1, 2, 3) and cfg.out == "runs/srl-teachers"
    assert cfg.task_config("srl").teachers is None       # teachers are not taught
    # the ensemble's score is not read as the members' average
    assert ("srl dev scores: seed-1 1.00; their ensemble (the mean of their scores) 2.00, in "
            "runs/srl-teachers/srl") in capsys.readouterr().out
    err = bad_settings(capsys, ["train", "--config", "recipes/srl-teachers.json", "--seeds",
                                "1,2", "--joined-epochs", "2"])
    assert "--joined-epochs trains the joined layer of one task's ensemble" in err
