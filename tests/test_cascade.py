"""Training on predicted cascade columns (senna.train.prepare): the settings' checks, the
folds, and a jackknife run on a tiny fixture (fold k's model never sees fold k)."""


from pathlib import Path

import pytest
from conftest import FIX, MODELS, ROOT, shipped

from senna.datasets import parse_spec
from senna.train.config import TrainConfig
from senna.train.folds import folds


def test_parse_spec_reads_pairs_in_order_and_rejects_malformed():
    assert parse_spec("pos=a/b, pt0=c") == [("pos", "a/b"), ("pt0", "c")]
    assert parse_spec(None) == []
    for bad in ("pos", "=dir", "pos="):
        with pytest.raises(ValueError, match="COLUMN=MODEL_DIR"):
            parse_spec(bad)


def test_folds_are_contiguous_and_cover_every_sentence():
    parts = folds(10, 3)
    assert [list(p) for p in parts] == [[0, 1, 2], [3, 4, 5, 6], [7, 8, 9]]
    assert sum(len(p) for p in folds(7, 7)) == 7


@pytest.mark.parametrize("settings, message", [
    (dict(jackknife=1, predicted_columns="pos=x"), "--jackknife must be 0"),
    (dict(jackknife=3), "--jackknife needs --predicted-columns"),
    (dict(predicted_columns="pos"), "--predicted-columns"),
])
def test_bad_cascade_settings_are_named(settings, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(task="pt0", train="x", **settings)


def test_a_column_is_predicted_by_its_own_task_only():
    from senna.runtime.model import TaskModel
    from senna.runtime.predict import tag_column

    shipped("ner")
    with pytest.raises(ValueError, match="the pos column needs a pos model, got a ner model"):
        tag_column(TaskModel.load(MODELS / "ner"), [], "pos")
    with pytest.raises(ValueError, match="unknown task"):
        tag_column(TaskModel.load(MODELS / "ner"), [], "colour")


TINY = dict(epochs=1, hidden=10, word_dim=8, batch_size=4, threads=1)


def tiny_pos_model(tmp_path) -> Path:
    """A one-epoch POS model in tmp_path/pos, trained on the PT0 fixture's words and POS
    (written as a POS training file, whose path is returned)."""
    import senna.train.loop as loop

    pos_file = tmp_path / "pos.txt"
    pos_file.write_text("".join(
        "\t".join(line.split("\t")[:2]) + "\n" if line.strip() else "\n"
        for line in (FIX / "pt0_small.pt0").read_text(encoding="utf-8").splitlines()),
        encoding="utf-8")
    loop.train(TrainConfig(task="pos", train=str(pos_file), out=str(tmp_path / "pos"), **TINY))
    return pos_file


@pytest.mark.slow
def test_jackknife_tags_each_fold_with_a_model_that_never_saw_it(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    import senna.train.folds as fold_models
    import senna.train.prepare as prepare
    from senna.runtime.model import TaskModel
    from senna.runtime.predict import predict_gold_inputs
    from senna.tasks import get_task

    pos_file = tiny_pos_model(tmp_path)

    seen: list[list] = []
    real = fold_models.train

    def recording(cfg, data=None):
        seen.append([tuple(s.words) for s in data.train])
        return real(cfg, data)

    monkeypatch.setattr(fold_models, "train", recording)
    cfg = TrainConfig(task="pt0", train=str(FIX / "pt0_small.pt0"), out=str(tmp_path / "pt0"),
                      predicted_columns=f"pos={tmp_path / 'pos'}", jackknife=2,
                      jackknife_dir=str(tmp_path / "folds"), **TINY)
    real(cfg, prepare.prepare(cfg))
    assert len(seen) == 2 and len(list((tmp_path / "folds").iterdir())) == 2
    from senna.datasets import load_splits
    from senna.train.prepare import predict_columns
    task = get_task("pt0")
    tr, dev = load_splits(cfg, task)
    pos_train = {tuple(s.words) for s in load_splits(
        TrainConfig(task="pos", train=str(pos_file)), get_task("pos"))[0]}
    for k, part in enumerate(folds(len(tr), 2)):
        held = {tuple(tr[i].words) for i in part}
        assert held and not held & set(seen[k])           # fold k's model never saw fold k
        assert set(seen[k]) == pos_train - held

    # The dev sentences get the given POS model's tags; a second run reuses the folds.
    gold = [list(s.columns["pos"]) for s in dev]
    predict_columns(cfg, tr, dev)
    expected = predict_gold_inputs(TaskModel.load(tmp_path / "pos"), get_task("pos"),
                                   load_splits(cfg, task)[1])
    assert [s.columns["pos"] for s in dev] == expected != gold
    assert len(seen) == 2 and gold  # no new fold model trained


@pytest.mark.slow
def test_evaluate_predicts_the_columns_training_predicted(tmp_path, capsys):
    """`senna evaluate` on a model trained on predicted POS tags its dev file's POS with
    the same model first, so it prints training's dev score; without that model it names
    --gold-inputs, which scores with the file's own POS column."""
    pytest.importorskip("torch")
    import json
    import shutil

    import senna.train.loop as loop
    from senna.cli.main import main
    from senna.train.prepare import prepare

    tiny_pos_model(tmp_path)
    dev = str(FIX / "pt0_small.pt0")
    cfg = TrainConfig(task="pt0", train=dev, dev=dev, out=str(tmp_path / "pt0"),
                      predicted_columns=f"pos={tmp_path / 'pos'}", **TINY)
    loop.train(cfg, prepare(cfg))
    recorded = json.loads((tmp_path / "pt0" / "config.json").read_text())["dev"]["score"]
    capsys.readouterr()
    assert main(["evaluate", "--model", str(tmp_path / "pt0"), "--data", dev]) == 0
    assert f"FB1: {recorded:6.2f}\n" in capsys.readouterr().out.splitlines(keepends=True)[1]
    shutil.move(tmp_path / "pos", tmp_path / "elsewhere")
    assert main(["evaluate", "--model", str(tmp_path / "pt0"), "--data", dev]) == 1
    err = capsys.readouterr().err
    assert "predicted by" in err and "--gold-inputs" in err and err.count("\n") == 1
    assert main(["evaluate", "--model", str(tmp_path / "pt0"), "--data", dev,
                 "--gold-inputs"]) == 0
    assert "FB1:" in capsys.readouterr().out


@pytest.mark.slow
def test_folds_trained_in_parallel_are_the_folds_trained_one_by_one(tmp_path, capsys):
    """`--jobs 2` trains the missing folds in two processes: the same models (names and
    weights) as one after another, so the columns predicted from them are the same."""
    pytest.importorskip("torch")
    import numpy as np

    from senna.datasets import load_splits
    from senna.tasks import get_task
    from senna.train.prepare import predict_columns

    tiny_pos_model(tmp_path)
    columns = {}
    for jobs in (1, 2):
        cfg = TrainConfig(task="pt0", train=str(FIX / "pt0_small.pt0"), out=str(tmp_path / "o"),
                          predicted_columns=f"pos={tmp_path / 'pos'}", jackknife=3, jobs=jobs,
                          jackknife_dir=str(tmp_path / f"folds{jobs}"), **TINY)
        tr, dev = load_splits(cfg, get_task("pt0"))
        predict_columns(cfg, tr, dev)
        columns[jobs] = [s.columns["pos"] for s in tr]
    assert "3 fold models, 2 at a time" in capsys.readouterr().out
    one, two = (sorted((tmp_path / f"folds{j}").iterdir()) for j in (1, 2))
    assert [d.name for d in one] == [d.name for d in two] and len(one) == 3
    for a, b in zip(one, two, strict=True):
        wa, wb = np.load(a / "weights.npz"), np.load(b / "weights.npz")
        assert all(np.array_equal(wa[k], wb[k]) for k in wa.files)
    assert columns[1] == columns[2]


def test_fold_models_are_keyed_by_the_contents_of_the_embeddings(tmp_path):
    from senna.train.folds import content

    emb = tmp_path / "emb"
    emb.mkdir()
    (emb / "vectors.npz").write_bytes(b"one")
    (emb / "words.lst").write_text("a\n")
    first = content(str(emb))
    assert content(str(emb)) == first and content(None) is None
    (emb / "vectors.npz").write_bytes(b"two")   # retrained in place: same path, new folds
    assert content(str(emb)) != first


def test_a_preset_takes_an_earlier_tasks_column_and_no_later_one():
    from senna.features.specs import column
    from senna.tasks import get_task

    specs = get_task("srl").features("pos-pt0+chunk:10")
    assert [s.name for s in specs] == ["word", "caps", "pos", "pt0", "chunk"]
    assert specs[-1] == column("chunk", 10)
    for bad in ("pos-pt0+pos", "pos-pt0+srl", "senna+chunk+chunk"):
        with pytest.raises(ValueError, match="features must be a preset"):
            get_task("srl").features(bad)
    with pytest.raises(ValueError, match="features must be a preset"):
        get_task("pos").features("senna+chunk")   # CHUNK comes after POS in the cascade


@pytest.mark.slow
def test_a_column_without_gold_is_predicted_in_training_and_by_the_pipeline(tmp_path):
    """SRL reading CHUNK tags, which EWT lacks: training tags its sentences with the CHUNK
    model, and the pipeline runs that model before SRL, giving the same tags."""
    pytest.importorskip("torch")
    from senna.runtime.model import TaskModel
    from senna.runtime.pipeline import Pipeline
    from senna.runtime.predict import predict_gold_inputs
    from senna.scoring.inputs import recorded_dev_set
    from senna.train.loop import train
    from senna.train.prepare import prepare

    for task in ("pos", "chunk", "pt0"):
        shipped(task)
    pt0 = str(FIX / "ewt_sample.pt0")
    data = FIX / "ewt_sample.verbs-args.conll"
    cfg = TrainConfig(task="srl", train=str(data), dev=str(data), features="pos-pt0+chunk",
                      extra_columns=f"{pt0},{pt0}", predicted_columns=f"chunk={MODELS / 'chunk'}",
                      out=str(tmp_path / "srl"), epochs=1, hidden=10, conv=8, word_dim=8,
                      threads=1)
    train(cfg, prepare(cfg))
    task, dev = recorded_dev_set(cfg.out, FIX, predicted=False)   # gold POS and PT0
    chunks = TaskModel.load(MODELS / "chunk").predict([s.words for s in dev])
    assert [s.columns["chunk"] for s in dev] == chunks
    models = {t: TaskModel.load(MODELS / t) for t in ("pos", "chunk", "pt0")}
    for s in dev:   # POS and PT0 as the pipeline predicts them
        s.columns = {"chunk": s.columns["chunk"]}
    for t in ("pos", "pt0"):
        for s, tags in zip(dev, models[t].predict([s.words for s in dev],
                                                  [s.columns for s in dev]), strict=True):
            s.columns[t] = tags
    srl = TaskModel.load(cfg.out)
    want = predict_gold_inputs(srl, task, dev)
    pipe = Pipeline(tasks="srl", models={**models, "srl": srl}, predicates="pos")
    assert "chunk" in pipe.order and pipe.order.index("chunk") < pipe.order.index("srl")
    done = pipe.tag([s.words for s in dev], predicates=[s.predicates for s in dev])
    got = [list(r) for s in done for r in s.roles]
    assert got == want


def test_a_model_trained_on_other_text_needs_no_folds(data_dir, monkeypatch):
    """The WSJ CHUNK tagger never saw EWT sentences, the EWT POS tagger did: only the
    second calls for a jackknife."""
    from senna.io.formats import read_dataset
    from senna.train.folds import trained_on

    for task in ("chunk", "pos"):
        shipped(task)
    monkeypatch.chdir(ROOT)   # the models record their data as ../shared/data/...
    ewt = read_dataset(data_dir / "ewt" / "ewt.train.pt0", "pt0")[:200]
    assert not trained_on(str(MODELS / "chunk"), ewt)
    assert trained_on(str(MODELS / "pos"), ewt)
