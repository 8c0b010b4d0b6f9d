"""Multi-task training on tiny fixtures: shared tables and first layer are one tensor, each
task's saved model runs in the NumPy runtime exactly as the joint network scores it, and a
resumed run equals an uninterrupted one."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from senna.io.checkpoint import load_model  # noqa: E402
from senna.nn.networks import PartlySharedLinear  # noqa: E402
from senna.runtime.model import TaskModel  # noqa: E402
from senna.runtime.predict import predict_gold_inputs  # noqa: E402
from senna.tasks import get_task  # noqa: E402
from senna.train.data import make_examples  # noqa: E402
from senna.train.joint import JointConfig, build_members, train_joint  # noqa: E402
from senna.train.loop import network_from_saved  # noqa: E402
from senna.train.scoring import predict_tags  # noqa: E402

FIX = Path(__file__).parent / "fixtures"
SMALL = dict(hidden=20, conv=16, dev_fraction=0.3)
TASKS = {
    "pos": dict(train=str(FIX / "ewt_sample.pos"), features="senna", **SMALL),
    "pt0": dict(train=str(FIX / "pt0_small.pt0"), features="senna", **SMALL),
    "ner": dict(train=str(FIX / "ner_small.conll"), features="basic", **SMALL),
    "srl": dict(train=str(FIX / "srl_small.conll"), features="basic", **SMALL),
}


def config(tmp_path, tasks=("pos", "pt0", "ner", "srl"), **kw) -> JointConfig:
    settings = dict(tasks={t: dict(TASKS[t]) for t in tasks}, out=str(tmp_path / "joint"),
                    epochs=2, word_dim=8, batch_size=4, threads=1)
    settings.update(kw)
    return JointConfig.from_dict(settings)


def test_shared_tables_and_first_layer_are_one_tensor(tmp_path):
    members = build_members(config(tmp_path, share_l1=True))
    by = {m.spec.name: m for m in members}
    word = [m.net.emb.tables[0].weight for m in members]
    assert all(w is word[0] for w in word)
    assert by["pos"].net.emb.tables[2] is not by["pt0"].net.emb.tables[2]  # own features
    l1 = [by[t].net.l1 for t in ("pos", "pt0", "ner")]
    assert all(isinstance(layer, PartlySharedLinear) for layer in l1)
    assert l1[0].shared is l1[1].shared is l1[2].shared
    assert l1[2].own is None and l1[0].own is not l1[1].own  # NER 'basic': nothing of its own
    unshared = build_members(config(tmp_path / "b", share_l1=False))
    assert not any(isinstance(m.net.l1, PartlySharedLinear) for m in unshared
                   if m.spec.approach == "window")


def test_too_few_tasks_and_bad_sampling_are_refused(tmp_path):
    with pytest.raises(ValueError, match="two tasks"):
        config(tmp_path, tasks=("pos",))
    with pytest.raises(ValueError, match="sampling"):
        config(tmp_path, sampling="random")


@pytest.mark.slow
@pytest.mark.parametrize("sampling", ["proportional", "uniform"])
def test_each_task_model_runs_in_the_runtime_as_trained(tmp_path, sampling):
    cfg = config(tmp_path, sampling=sampling)
    state = train_joint(cfg)
    assert set(state["best"]) == set(cfg.tasks) and len(state["history"]) == 2
    members = {m.spec.name: m for m in build_members(cfg)}
    for name in cfg.tasks:
        saved = load_model(Path(cfg.out) / name)
        assert saved.info["joint"]["tasks"] == list(cfg.tasks)
        task = get_task(name)
        dev = members[name].dev
        runtime = predict_gold_inputs(TaskModel(saved), task, dev)
        net = network_from_saved(saved)
        trained = predict_tags(net, make_examples(task, dev, saved.featurizer), saved)
        assert runtime == trained
        assert (Path(cfg.out) / name / "MODEL_CARD.md").read_text().count("jointly") == 1


@pytest.mark.slow
def test_resume_equals_uninterrupted(tmp_path):
    full = config(tmp_path / "a", tasks=("pos", "ner"), epochs=2)
    train_joint(full)
    first = config(tmp_path / "b", tasks=("pos", "ner"), epochs=1)
    train_joint(first)
    again = config(tmp_path / "b", tasks=("pos", "ner"), epochs=2)
    train_joint(again)
    for name in ("pos", "ner"):
        a = load_model(Path(full.out) / "checkpoint" / name).weights
        b = load_model(Path(again.out) / "checkpoint" / name).weights
        assert a.keys() == b.keys()
        for k in a:
            np.testing.assert_array_equal(a[k], b[k], err_msg=f"{name} {k}")


def chars_config(tmp_path, **kw) -> JointConfig:
    cfg = config(tmp_path, tasks=("pos", "ner", "srl"), **kw)
    for t in cfg.tasks.values():
        t["features"] += "+chars"
    return cfg


def test_tasks_share_the_character_network_with_their_own_spellings(tmp_path):
    members = build_members(chars_config(tmp_path))
    convs = [m.net.emb.tables[-1] for m in members]
    assert all(c.conv is convs[0].conv and c.chars is convs[0].chars for c in convs)
    assert len({id(c.spellings) for c in convs}) == len(convs)  # each featurizer numbers
    vocabs = [m.saved.featurizer.vocabs["chars"] for m in members]
    assert all(v == vocabs[0] for v in vocabs)   # one character vocabulary for all tasks
    l1 = [m.net.l1 for m in members if m.spec.approach == "window"]
    assert l1[0].shared is l1[1].shared          # the chars columns are shared ones too


@pytest.mark.slow
def test_a_joint_chars_model_runs_in_the_runtime_as_trained(tmp_path):
    cfg = chars_config(tmp_path, epochs=1)
    train_joint(cfg)
    members = {m.spec.name: m for m in build_members(cfg)}
    for name in cfg.tasks:
        saved = load_model(Path(cfg.out) / name)
        task, dev = get_task(name), members[name].dev
        trained = predict_tags(network_from_saved(saved),
                               make_examples(task, dev, saved.featurizer), saved)
        assert predict_gold_inputs(TaskModel(saved), task, dev) == trained
