"""A run that diverges stops with one clear error line and saves nothing of the diverged
epochs: a NaN or runaway loss at once, a dev score of 0 after `ZERO_EPOCHS` epochs."""

import re
from pathlib import Path

import pytest
from conftest import FIX

torch = pytest.importorskip("torch")

from senna.cli.main import main  # noqa: E402
from senna.train import tagging  # noqa: E402
from senna.train.config import TrainConfig  # noqa: E402
from senna.train.guard import ZERO_EPOCHS, Diverged, check_loss  # noqa: E402
from senna.train.joint import JointConfig, train_joint  # noqa: E402
from senna.train.loop import train  # noqa: E402

TINY = ["--hidden", "10", "--word-dim", "6", "--batch-size", "4", "--threads", "1"]


def tiny(out: Path, **kw) -> TrainConfig:
    settings = dict(task="ner", train=str(FIX / "ner_small.conll"), out=str(out), epochs=2,
                    hidden=10, word_dim=6, batch_size=4, threads=1, dev_fraction=0.3)
    return TrainConfig(**{**settings, **kw})


def files(out: Path) -> dict[str, bytes]:
    """The best model's and the checkpoint's files (not the plot or the card)."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.suffix in (".npz", ".json", ".pt", ".lst")}


def test_a_loss_is_checked_against_a_uniform_guess():
    check_loss(59_000, words=20, n_tags=20, epoch=1, hint="lower --lr")  # 20 log 20 = 59.9
    with pytest.raises(Diverged, match=r"loss 6.1e\+04 is over 1000 times that of guessing "
                                       r"its tags \(59.9\); lower --lr;"):
        check_loss(61_000, words=20, n_tags=20, epoch=1, hint="lower --lr")
    with pytest.raises(Diverged, match="loss is inf"):
        check_loss(float("inf"), words=20, n_tags=20, epoch=1, hint="lower --lr")
    check_loss(5.0, words=3, n_tags=1, epoch=1, hint="")   # one tag: log 1 = 0, bound 1/word


@pytest.mark.slow
def test_a_huge_learning_rate_stops_at_once_and_saves_no_model(tmp_path, capsys):
    out = tmp_path / "m"
    args = ["train", "--task", "ner", "--train", str(FIX / "ner_small.conll"), "--out",
            str(out), "--epochs", "3", "--lr", "1e30", *TINY]
    assert main(args) == 1
    err = capsys.readouterr().err.split("\r")[-1]   # after the progress bar
    assert err.count("\n") == 1, err
    assert re.match(r"senna: error: training diverged in epoch 1: a batch's loss (is nan|"
                    r"\S+ is over 1000 times that of guessing its tags)", err), err
    assert "lower --lr (now 1e+30)" in err and "nothing of this epoch was saved" in err
    assert not (out / "weights.npz").exists() and not (out / "checkpoint").exists()


@pytest.mark.slow
def test_a_nan_loss_stops_the_run_and_keeps_the_last_good_epoch(tmp_path, monkeypatch):
    cfg = tiny(tmp_path / "m", epochs=1)
    train(cfg)
    before = files(Path(cfg.out))
    real = tagging.step_loss

    def nan_in_epoch_2(*args, **kw):
        return real(*args, **kw) * float("nan")

    monkeypatch.setattr(tagging, "step_loss", nan_in_epoch_2)
    with pytest.raises(Diverged, match=r"training diverged in epoch 2: a batch's loss is nan"):
        train(tiny(tmp_path / "m", epochs=3))
    assert files(Path(cfg.out)) == before


@pytest.mark.slow
def test_a_dev_score_of_0_for_several_epochs_stops_the_run(tmp_path, monkeypatch):
    real = tagging.score_epoch

    def nothing_found(*args, **kw):
        score, kept, last = real(*args, **kw)
        return {**score, "score": 0.0}, kept, last

    monkeypatch.setattr(tagging, "score_epoch", nothing_found)
    cfg = tiny(tmp_path / "m", epochs=ZERO_EPOCHS + 3)
    with pytest.raises(Diverged, match=rf"training stopped in epoch {ZERO_EPOCHS}: the dev "
                                       rf"score was 0 for {ZERO_EPOCHS} epochs in a row"):
        train(cfg)
    # the checkpoint is that of the epoch before: a resumed run stops there again
    assert '"epoch": 4' in (Path(cfg.out) / "checkpoint" / "state.json").read_text()
    with pytest.raises(Diverged, match=f"in epoch {ZERO_EPOCHS}:"):
        train(cfg)


@pytest.mark.slow
def test_a_joint_run_with_a_huge_learning_rate_stops_and_saves_no_model(tmp_path):
    small = dict(hidden=10, dev_fraction=0.3, lr=1e30)
    cfg = JointConfig.from_dict(dict(
        tasks={"pos": dict(train=str(FIX / "ewt_sample.pos"), **small),
               "ner": dict(train=str(FIX / "ner_small.conll"), **small)},
        out=str(tmp_path / "joint"), epochs=2, lr=1e30, word_dim=6, batch_size=4, threads=1))
    with pytest.raises(Diverged, match=r"training diverged in epoch 1 \((pos|ner)\)"):
        train_joint(cfg)
    assert not any((tmp_path / "joint").rglob("weights.npz"))
