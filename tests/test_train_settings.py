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


@pytest.mark.parametrize(("args", "message"), [
    (["--explore", "3"], "--explore is for a parser (--task psg), not --task"),
    (["--task", "psg", "--criterion", "wll", "--explore", "1"],
     "--explore must be 0 (off) or at least 2 folds, got 1"),
    (["--task", "psg", "--criterion", "wll", "--explore-epochs", "4"],
     "--explore-epochs needs --explore"),
    (["--task", "psg", "--criterion", "wll", "--explore", "2", "--explore-epochs", "-1"],
     "--explore-epochs must be 0 (--epochs) or more, got -1"),
])
def test_explore_is_for_a_parser_with_two_folds_or_more(capsys, args, message):
    assert message in bad_settings(capsys, BASE + args)


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


def test_every_setting_is_in_one_section_and_the_help_lists_them_so(capsys):
    from dataclasses import fields

    from senna.cli.train import parser
    from senna.train.config import SECTIONS, TrainConfig

    listed = [n for names in SECTIONS.values() for n in names]
    assert sorted(listed) == sorted(f.name for f in fields(TrainConfig))   # once each
    text = parser().format_help()
    for title, names in SECTIONS.items():
        block = text.split(f"{title} settings:\n")[1].split("\n\n")[0]
        assert all(f"--{n.replace('_', '-')} " in block for n in names), title


def test_the_network_settings_are_checked_as_a_saved_network_is():
    """One set of checks: the training settings' messages name the options, a saved
    model's network the fields."""
    import pytest

    from senna.nn.config import NetConfig
    from senna.train.config import TrainConfig

    with pytest.raises(ValueError, match="--window must be odd and positive, got 4; --stack must"):
        TrainConfig(task="ner", train="x", stack=2, window=4)
    with pytest.raises(ValueError, match="^window must be odd and positive, got 4$"):
        NetConfig(window=4)
    with pytest.raises(ValueError, match="predicate_window needs the sentence approach"):
        NetConfig(predicate_window=3)
