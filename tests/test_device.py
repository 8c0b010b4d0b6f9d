"""`senna train --device`: where the network trains.  On a machine without a GPU that
PyTorch can use, `--device cuda` is one error line; fold models trained on a GPU are
cached apart from the CPU's; on a GPU (the tests below skip without one) a parser trains there,
its saved weights are what the NumPy runtime reads, and a run started on the GPU resumes on
the CPU."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest
from conftest import FIX, assert_parser_runtime_is_network

torch = pytest.importorskip("torch")

from senna.cli.main import main  # noqa: E402
from senna.io.checkpoint import load_model  # noqa: E402
from senna.train.config import TrainConfig  # noqa: E402
from senna.train.folds import fold_settings  # noqa: E402
from senna.train.loop import train  # noqa: E402

GOLD = FIX / "ewt_sample.gold_conll"
GPU = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU PyTorch can use")


def parser_config(out: Path, **kw) -> TrainConfig:
    return TrainConfig(**{**dict(task="psg", train=str(GOLD), dev_fraction=0.3,
                                 criterion="wll", features="senna", out=str(out), epochs=2,
                                 approach="bilstm", hidden=10, level_hidden=6,
                                 optimizer="adam", lr=0.01, word_dim=8, batch_size=4,
                                 threads=1), **kw})


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_cuda_without_a_gpu_is_one_error_line(tmp_path, capsys):
    assert main(["train", "--task", "pos", "--train", str(FIX / "ewt_sample.pos"),
                 "--out", str(tmp_path / "m"), "--epochs", "1", "--device", "cuda"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--device cuda: no GPU" in err, err
    assert not (tmp_path / "m" / "config.json").exists()


def test_the_device_is_checked_and_a_gpus_fold_models_are_cached_apart(tmp_path):
    with pytest.raises(ValueError, match="device"):
        parser_config(tmp_path, device="tpu")
    held = {("Some", "words")}
    cpu, gpu = (parser_config(tmp_path, device=d) for d in ("cpu", "cuda"))
    (cpu_settings, cpu_dir), (gpu_settings, gpu_dir) = (
        fold_settings(asdict(c), held, {}, c, "fold") for c in (cpu, gpu))
    assert cpu_dir != gpu_dir   # a recipe rebuilt on the CPU never reads a GPU's folds
    assert (cpu_settings["device"], gpu_settings["device"]) == ("cpu", "cuda")


@GPU
def test_a_parser_trains_on_the_gpu_and_the_runtime_reads_it(tmp_path):
    out = tmp_path / "psg"
    state = train(parser_config(out, device="cuda"))
    assert state["best"]["psg"]["score"] > 0
    saved = load_model(out)
    assert saved.info["training"]["config"]["device"] == "cuda"
    assert_parser_runtime_is_network(out)


@GPU
def test_a_run_started_on_the_gpu_resumes_on_the_cpu(tmp_path, capsys):
    out = tmp_path / "psg"
    train(parser_config(out, device="cuda", epochs=1))
    state = train(parser_config(out, device="cpu", epochs=2))
    assert state["epoch"] == 2
    assert "--device cuda -> cpu" in capsys.readouterr().out
