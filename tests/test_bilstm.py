"""The BiLSTM (`--approach bilstm`), on a tiny POS fixture: it trains and saves like any
model, the NumPy runtime tags with it (the PyTorch network's scores within 1e-5, on
sentences of every length in one batch), its teacher scores do not depend on which
sentences share a batch, and a window student learns from it alone or beside a window
teacher."""

from pathlib import Path

import numpy as np
import pytest
from conftest import FIX

torch = pytest.importorskip("torch")

from senna.io.checkpoint import load_model  # noqa: E402
from senna.io.saved_model import ModelError  # noqa: E402
from senna.runtime.ensemble import EnsembleModel, load_tagger  # noqa: E402
from senna.train.config import TrainConfig  # noqa: E402
from senna.train.distill import MeanTeacher, NetworkTeacher, load_teachers  # noqa: E402
from senna.train.loop import train  # noqa: E402

POS = dict(task="pos", train=str(FIX / "ewt_sample.pos"), dev=str(FIX / "ewt_sample.pos"),
           features="senna+chars:8", criterion="sll", epochs=3, hidden=16, word_dim=8,
           batch_size=4, threads=1)
SENTS = [["The", "cat", "sat", "on", "the", "mat", "."], ["Hello", "!"],
         ["Prices", "rose", "3.5", "%", "in", "June", "."]]


def config(out: Path, **kw) -> TrainConfig:
    return TrainConfig(**{**POS, "out": str(out), **kw})


@pytest.fixture(scope="module")
def bilstm(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bilstm") / "pos"
    train(config(out, approach="bilstm", optimizer="adam", lr=0.01, dropout_hidden=0.2))
    return out


def test_bilstm_saves_and_the_runtime_equals_training(bilstm):
    saved = load_model(bilstm)
    assert saved.net.approach == "bilstm"
    assert "lstm.weight_hh_l0_reverse" in saved.weights and "l1.weight" not in saved.weights
    model = load_tagger(bilstm)
    sents = [*SENTS, ["Long"] * 40 + ["."], ["x"]]   # lengths 7, 2, 7, 41, 1 in one batch
    cols = [{}] * len(sents)
    got = model.emissions(sents, cols)
    want = NetworkTeacher(saved).emissions(sents, cols)
    assert got.shape == want.shape == (sum(map(len, sents)), len(model.tags))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    tags = model.predict(sents)
    assert [len(t) for t in tags] == [len(s) for s in sents]
    assert {t for ts in tags for t in ts} <= set(model.tags.items)
    with pytest.raises(ModelError, match="window-approach members"):
        EnsembleModel([model, model], "joined", joined={})


def test_teacher_scores_do_not_depend_on_the_batch(bilstm):
    teacher = load_teachers(str(bilstm))
    assert isinstance(teacher, NetworkTeacher)
    together = teacher.emissions(SENTS, [{}] * len(SENTS))
    alone = np.concatenate([teacher.emissions([s], [{}]) for s in SENTS])
    assert together.shape == (sum(map(len, SENTS)), len(teacher.tags))
    np.testing.assert_allclose(together, alone, rtol=1e-5, atol=1e-5)
    # the scores read the whole sentence: a word's scores change with a word far away
    far = [["The", "cat", "sat", "on", "the", "mat", "."], ["Dogs", "cat", "sat", "on", "the",
                                                           "mat", "."]]
    a, b = np.split(teacher.emissions(far, [{}, {}]), 2)
    assert not np.allclose(a[-1], b[-1])


def test_a_window_student_learns_from_it_alone_and_in_a_mean(bilstm, tmp_path):
    window = tmp_path / "window"
    train(config(window, epochs=1))
    both = load_teachers(f"{bilstm},{window}")
    assert isinstance(both, MeanTeacher)
    cols = [{}] * len(SENTS)
    np.testing.assert_allclose(
        both.emissions(SENTS, cols),
        (load_teachers(str(bilstm)).emissions(SENTS, cols)
         + load_tagger(window).emissions(SENTS, cols)) / 2, rtol=1e-5, atol=1e-5)
    for teachers in (str(bilstm), f"{bilstm},{window}"):
        out = tmp_path / f"student{teachers.count(',')}"
        state = train(config(out, epochs=1, teachers=teachers, distill=0.5,
                             distill_temperature=2))
        assert state["epoch"] == 1 and np.isfinite(state["history"][0]["loss"]["pos"])
        assert load_tagger(out).predict(SENTS[:1])[0]


def test_bilstm_settings_are_checked(tmp_path):
    for bad in (dict(POS, stack=3), dict(POS, adversarial=0.5), dict(POS, task="srl")):
        with pytest.raises(ValueError, match="--approach bilstm"):
            TrainConfig(**{**bad, "approach": "bilstm", "out": str(tmp_path)})
    assert config(tmp_path, approach="bilstm", optimizer="adam").approach == "bilstm"


def test_compact_stores_its_matrices_in_float16(bilstm, tmp_path):
    """`senna compact --weights float16` halves the LSTM's matrices; the runtime and the
    PyTorch network then read the same rounded weights and agree within 1e-5."""
    import shutil

    from senna.cli.main import main
    out = tmp_path / "half"
    shutil.copytree(bilstm, out)
    assert main(["compact", str(out), "--rows", "float32", "--weights", "float16"]) == 0
    with np.load(out / "weights.npz") as z:
        assert z["lstm.weight_hh_l0"].dtype == np.float16
        assert z["lstm.bias_ih_l0"].dtype == z["transitions"].dtype == np.float32
    saved = load_model(out)
    cols = [{}] * len(SENTS)
    np.testing.assert_allclose(load_tagger(out).emissions(SENTS, cols),
                               NetworkTeacher(saved).emissions(SENTS, cols),
                               rtol=1e-5, atol=1e-5)
    assert "weight matrices in float16" in (out / "MODEL_CARD.md").read_text()
