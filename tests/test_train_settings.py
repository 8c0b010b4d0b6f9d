"""Training settings that cannot lie: invalid numbers are refused before training with an
error naming the option, and a missing matplotlib costs the plot, not the run."""

import sys
from pathlib import Path

import pytest
from conftest import BASE, FIX, ROOT, bad_settings


@pytest.mark.parametrize(("args", "message"), [
    (["--seed", "-1"], "--seed must be between 0 and 4294967295, got -1"),
    (["--seed", str(2**32)], "--seed must be between 0 and 4294967295, got 4294967296"),
    (["--seeds=-1,2"], "--seeds: expected seeds between 0 and 4294967295, got '-1,2'"),
    (["--tasks", "pos,ner", "--seed", "-1"], "--seed must be between 0 and 4294967295"),
])
def test_a_bad_seed_is_refused_naming_the_option(capsys, monkeypatch, args, message):
    monkeypatch.chdir(ROOT)   # a joint run reads the tasks' recipes/
    base = ["train", "--out", "unused"] if "--tasks" in args else BASE
    assert message in bad_settings(capsys, base + args)


TINY = dict(task="ner", train=str(FIX / "ner_small.conll"), epochs=2, hidden=10, word_dim=6,
            batch_size=8, threads=1, dev_fraction=0.3)


@pytest.mark.slow
def test_without_matplotlib_training_finishes_without_the_plot(tmp_path, monkeypatch,
                                                                capsys):
    pytest.importorskip("torch")
    from senna.train.config import TrainConfig
    from senna.train.loop import train

    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import matplotlib: ImportError
    out = tmp_path / "m"
    state = train(TrainConfig(out=str(out), **TINY))
    assert state["epoch"] == 2 and (out / "weights.npz").exists()
    assert not (out / "curve.png").exists()
    assert capsys.readouterr().out.count("note: no curve.png is drawn: matplotlib is not "
                                         "installed (pip install matplotlib)") == 1


@pytest.mark.slow
def test_a_joint_run_without_matplotlib_finishes_without_the_plots(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from senna.train.joint import JointConfig, train_joint

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    small = dict(hidden=10, dev_fraction=0.3)
    cfg = JointConfig.from_dict(dict(
        tasks={"pos": dict(train=str(FIX / "ewt_sample.pos"), **small),
               "ner": dict(train=str(FIX / "ner_small.conll"), **small)},
        out=str(tmp_path / "joint"), epochs=2, word_dim=6, batch_size=8, threads=1))
    assert train_joint(cfg)["epoch"] == 2
    assert (Path(cfg.out) / "history.json").exists()
    assert not list(Path(cfg.out).rglob("curve.png"))
