"""Checkpoints that cannot lie: a run killed at any moment and resumed ends with the weights
of an uninterrupted one; an unreadable checkpoint is one error line naming the file and the
way out."""

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import FIX

torch = pytest.importorskip("torch")

from senna.cli.main import main  # noqa: E402
from senna.io.checkpoint import load_model  # noqa: E402
from senna.train.config import TrainConfig  # noqa: E402
from senna.train.loop import train  # noqa: E402
from senna.vocab import Vocab  # noqa: E402


class Killed(BaseException):
    """A simulated kill -9: no `except Exception` and no cleanup code stops it (the writer
    must not rely on any)."""


def tiny(out: Path, **kw) -> TrainConfig:
    settings = dict(task="ner", train=str(FIX / "ner_small.conll"), out=str(out), epochs=2,
                    hidden=10, word_dim=6, batch_size=8, threads=1, dev_fraction=0.3,
                    optimizer="adam", lr=5e-3)   # its dev score rises in epoch 2
    return TrainConfig(**{**settings, **kw})


def outcome(out: Path) -> dict:
    """What a finished run leaves: the best model's and the checkpoint's weights, and the
    dev scores and losses of its history."""
    state = json.loads((out / "history.json").read_text())
    return {"best": load_model(out).weights, "last": load_model(out / "checkpoint" / "ner").weights,
            "history": [(h["epoch"], h["loss"], h["dev"]) for h in state["history"]]}


def assert_same(a: dict, b: dict, where: str) -> None:
    assert a["history"] == b["history"], where
    for part in ("best", "last"):
        assert a[part].keys() == b[part].keys(), where
        for k in a[part]:
            np.testing.assert_array_equal(a[part][k], b[part][k], err_msg=f"{where}: {k}")


# Every call that finishes writing, renaming or removing a file or folder of a run, and
# the position of the path among its arguments.
WRITERS = [(Path, "write_text", 0), (Vocab, "save", 1), (np, "savez", 0), (torch, "save", 1),
           (os, "replace", 1), (shutil, "rmtree", 0)]


def kill_after(monkeypatch, n: int, kill=None) -> list[str]:
    """Make the `n`-th write (counted over WRITERS) call `kill` (default: raise Killed) right
    after it finished; -> the writes so far, as "function path"."""
    done: list[str] = []
    for owner, name, at in WRITERS:
        original = getattr(owner, name)

        def wrapped(*args, _original=original, _name=name, _at=at, **kw):
            result = _original(*args, **kw)
            done.append(f"{_name} {args[_at]}")
            if len(done) == n:
                (kill or _raise)(done[-1])
            return result

        monkeypatch.setattr(owner, name, wrapped)
    return done


def _raise(where: str) -> None:
    raise Killed(where)


@pytest.mark.slow
def test_a_run_killed_after_any_file_resumes_to_the_uninterrupted_result(tmp_path,
                                                                          monkeypatch):
    train(tiny(tmp_path / "a"))
    reference = outcome(tmp_path / "a")
    train(tiny(tmp_path / "b"))
    assert_same(reference, outcome(tmp_path / "b"), "two uninterrupted runs")
    n = 0
    while True:
        n += 1
        out = tmp_path / f"kill{n}"
        with monkeypatch.context() as m:
            done = kill_after(m, n)
            try:
                train(tiny(out))
            except Killed:
                pass
            else:
                break   # the run wrote fewer files than n: every boundary was tried
        train(tiny(out))   # resumed
        assert_same(reference, outcome(out), f"killed after write {n}, {done[-1]}")
        assert finished(out), f"killed after write {n}, {done[-1]}: not marked finished"
        assert sorted(p.name for p in out.iterdir() if p.name.startswith("checkpoint")) \
            == ["checkpoint"], f"leftovers after write {n}"
        shutil.rmtree(out)
    # both epochs saved a best model and published a checkpoint, the second one replacing
    # the first
    assert sum(w == f"replace {out / 'weights.npz'}" for w in done) == 2
    assert sum(w.startswith("replace") and w.endswith("/checkpoint") for w in done) == 2
    assert any(w.startswith("rmtree") and w.endswith("/checkpoint.old") for w in done)


def finished(model: Path) -> bool:
    """Is the model marked as its run's final one, with a manifest that matches?"""
    config = json.loads((model / "config.json").read_text())
    load_model(model)   # the manifest matches
    return config["training"]["finished"] is True and (model / "manifest.json").is_file()


def test_a_model_saved_by_a_run_that_has_not_ended_says_so(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    with monkeypatch.context() as m:   # killed as epoch 2 begins: epoch 1's model is kept
        m.setattr("senna.train.loop.epoch_random",
                  lambda seed, epoch, alone: _raise("epoch 2") if epoch == 2
                  else np.random.default_rng(seed))
        with pytest.raises(Killed):
            train(tiny(out))
    capsys.readouterr()
    load_model(out)
    err = capsys.readouterr().err
    assert f"senna: warning: {out}: the best model so far (epoch 1) of a training run " \
           "that has not ended" in err and len(err.splitlines()) == 1
    assert "**Provisional:**" in (out / "MODEL_CARD.md").read_text()
    train(tiny(out))   # resumed to its end
    assert finished(out)
    assert capsys.readouterr().err.count("senna: warning") == 0
    load_model(out)
    assert "warning" not in capsys.readouterr().err
    assert "Provisional" not in (out / "MODEL_CARD.md").read_text()


def test_a_kill_between_the_renames_leaves_the_previous_checkpoint(tmp_path):
    from senna.train.resume import recover, write_checkpoint

    def files(text: str):
        def fill(folder: Path) -> None:
            folder.mkdir()
            (folder / "state.json").write_text(text)
        return fill

    write_checkpoint(tmp_path, files("1"))
    os.replace(tmp_path / "checkpoint", tmp_path / "checkpoint.old")   # as if killed there
    (tmp_path / "checkpoint.tmp-1").mkdir()
    assert recover(tmp_path) == tmp_path / "checkpoint"
    assert (tmp_path / "checkpoint" / "state.json").read_text() == "1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]
    write_checkpoint(tmp_path, files("2"))
    assert (tmp_path / "checkpoint" / "state.json").read_text() == "2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]


def damage(ckpt: Path, name: str) -> None:
    path = ckpt / name
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["state.json", "optimizers.pt", "ner/weights.npz",
                                  "ner/config.json"])
def test_an_unreadable_checkpoint_is_one_line_naming_the_file_and_the_way_out(
        tmp_path, capsys, name):
    cfg = tiny(tmp_path / "run", epochs=1)
    train(cfg)
    ckpt = tmp_path / "run" / "checkpoint"
    damage(ckpt, name)
    capsys.readouterr()
    args = ["train", "--task", "ner", "--train", cfg.train, "--out", cfg.out, "--epochs", "2",
            "--hidden", "10", "--word-dim", "6", "--batch-size", "8", "--threads", "1",
            "--dev-fraction", "0.3", "--optimizer", "adam", "--lr", "0.003"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("senna: error: ") and "unreadable checkpoint" in err
    assert name in err and f"delete the folder {ckpt} to start over, or restore it" in err


@pytest.mark.slow
def test_a_checkpoint_with_files_of_two_epochs_is_refused(tmp_path):
    """Files written one by one (an older senna did): a kill could leave optimizers.pt of
    epoch 2 beside state.json of epoch 1; that run trained epoch 2 twice."""
    train(tiny(tmp_path / "run", epochs=1))
    ckpt = tmp_path / "run" / "checkpoint"
    state = json.loads((ckpt / "state.json").read_text())
    saved = torch.load(ckpt / "optimizers.pt", weights_only=True)
    torch.save({**saved, "epoch": 2}, ckpt / "optimizers.pt")
    with pytest.raises(ValueError, match=r"optimizers.pt: unreadable checkpoint \(from epoch "
                                         r"2, but state.json is from epoch 1"):
        train(tiny(tmp_path / "run", epochs=3))
    assert state["epoch"] == 1


# A process that trains tiny(OUT) and kills itself with SIGKILL after its N-th write.
KILL_9 = """
import os, signal, sys
import pytest
sys.path.insert(0, {tests!r})
from test_resume import kill_after, tiny
from senna.train.loop import train
kill_after(pytest.MonkeyPatch(), int(sys.argv[2]), lambda _: os.kill(os.getpid(), signal.SIGKILL))
train(tiny(__import__("pathlib").Path(sys.argv[1])))
"""


@pytest.mark.slow
def test_a_run_killed_by_sigkill_between_the_renames_resumes_to_the_same_result(
        tmp_path, monkeypatch):
    """The same with a real kill, at the one moment OUT holds no `checkpoint` (the writes
    in between are covered by the test above; one subprocess keeps this one short)."""
    import signal
    import subprocess
    import sys

    with monkeypatch.context() as m:
        done = kill_after(m, 0)   # records the writes, kills nowhere
        train(tiny(tmp_path / "a"))
    reference = outcome(tmp_path / "a")
    n = next(i for i, w in enumerate(done, 1) if w.endswith("/checkpoint.old"))
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent.parent),
                                                        os.environ.get("PYTHONPATH", "")])}
    res = subprocess.run([sys.executable, "-c", KILL_9.format(tests=str(Path(__file__).parent)),
                          str(out), str(n)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == -signal.SIGKILL, res.stderr[-2000:]
    left = sorted(p.name for p in out.iterdir() if p.name.startswith("checkpoint"))
    assert left[0] == "checkpoint.old" and left[1].startswith("checkpoint.tmp-"), left
    train(tiny(out))
    assert_same(reference, outcome(out), f"SIGKILL after write {n}")
