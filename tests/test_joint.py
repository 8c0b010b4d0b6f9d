"""Multi-task training on tiny fixtures: shared tables and first layer are one tensor, each
task's saved model runs in the NumPy runtime exactly as the joint network scores it, and a
resumed run equals an uninterrupted one."""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import FIX

torch = pytest.importorskip("torch")

from senna.io.checkpoint import load_model  # noqa: E402
from senna.nn.networks import PartlySharedLinear  # noqa: E402
from senna.runtime.folders import default_model_dir  # noqa: E402
from senna.runtime.model import TaskModel  # noqa: E402
from senna.runtime.predict import predict_gold_inputs  # noqa: E402
from senna.tasks import get_task  # noqa: E402
from senna.train.data import make_examples  # noqa: E402
from senna.train.dev import predict_tags  # noqa: E402
from senna.train.joint import (  # noqa: E402
    JointConfig,
    build_auxiliary,
    build_members,
    train_joint,
)
from senna.train.tagging import network_from_saved  # noqa: E402

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
    with pytest.raises(ValueError, match="at least one more task"):
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
def test_models_dir_takes_the_best_models_and_out_the_run(tmp_path):
    cfg = config(tmp_path, tasks=("pos", "ner"), epochs=1, models=str(tmp_path / "ship"))
    train_joint(cfg)
    for name in ("pos", "ner"):
        saved = load_model(tmp_path / "ship" / name)
        assert saved.info["training"]["config"]["out"] == str(tmp_path / "ship" / name)
        assert not (Path(cfg.out) / name).exists()
    assert (Path(cfg.out) / "checkpoint" / "state.json").exists()
    assert not (tmp_path / "ship" / "checkpoint").exists()


@pytest.mark.slow
def test_ship_sends_only_the_named_tasks_to_models(tmp_path):
    cfg = config(tmp_path, tasks=("pos", "ner"), epochs=1, models=str(tmp_path / "ship"),
                 ship="ner")
    train_joint(cfg)
    assert load_model(tmp_path / "ship" / "ner").info["joint"]["tasks"] == ["pos", "ner"]
    assert not (tmp_path / "ship" / "pos").exists()
    assert load_model(Path(cfg.out) / "pos").task == "pos"   # the partner stays in out
    for where in (tmp_path / "ship" / "ner", Path(cfg.out)):   # the run's record beside both
        assert json.loads((where / "history.json").read_text())["epoch"] == 1
        assert (where / "curve.png").exists()
    assert not (Path(cfg.out) / "pos" / "history.json").exists()
    with pytest.raises(ValueError, match="not trained here"):
        config(tmp_path, tasks=("pos", "ner"), ship=["chunk"])


def test_the_shipped_models_directory_needs_an_explicit_ship(tmp_path):
    """A copy of a shipping recipe without its `ship` would overwrite every shipped model."""
    with pytest.raises(ValueError, match="shipped models' directory"):
        config(tmp_path, tasks=("pos", "ner"), models=str(default_model_dir()))
    assert config(tmp_path, tasks=("pos", "ner"), models=str(default_model_dir()),
                  ship="ner").ship == ["ner"]


@pytest.mark.slow
@pytest.mark.parametrize("average", [0.0, 0.99])
def test_resume_equals_uninterrupted(tmp_path, average):
    def run(where, epochs):   # POS with weight averaging when `average`, NER without
        cfg = config(where, tasks=("pos", "ner"), epochs=epochs)
        cfg.tasks["pos"]["average"] = average
        return cfg, train_joint(cfg)

    full, state = run(tmp_path / "a", 2)
    run(tmp_path / "b", 1)
    again, _ = run(tmp_path / "b", 2)
    subs = ["pos", "ner"] + (["pos/average"] if average else [])
    for name in subs:
        a = load_model(Path(full.out) / "checkpoint" / name).weights
        b = load_model(Path(again.out) / "checkpoint" / name).weights
        assert a.keys() == b.keys()
        for k in a:
            np.testing.assert_array_equal(a[k], b[k], err_msg=f"{name} {k}")
    assert [set(h.get("dev_last", {})) for h in state["history"]] == \
        [{"pos"} if average else set()] * 2


@pytest.fixture(scope="module")
def lm_corpus(tmp_path_factory) -> Path:
    from senna.io.formats import read_dataset
    from senna.lm.corpus import prepare_corpus

    d = tmp_path_factory.mktemp("lm")
    text = "\n\n".join(" ".join(s.words) for s in
                       read_dataset(FIX / "ner_small.conll", "conll2003")) + "\n"
    (d / "a.txt").write_text(text * 3)
    prepare_corpus([d / "a.txt"], d / "corpus", workers=1, heldout_every=3, progress=False)
    return d / "corpus"


def wordnet_of_fixture_words(root: Path) -> Path:
    """WordNet data files relating words of the NER fixture (so they are in its dictionary)."""
    root.mkdir()
    (root / "data.noun").write_text(
        "00000100 03 n 02 county 0 england 0 000 | a region\n"
        "00000200 03 n 03 innings 0 runs 0 matches 0 001 @ 00000100 n 0000 | cricket\n"
        "00000300 03 n 02 championship 0 one-day 0 001 #p 00000200 n 0000 | contest\n")
    for name in ("data.verb", "data.adj", "data.adv"):
        (root / name).write_text("")
    return root


@pytest.mark.slow
def test_language_model_and_synonyms_as_joint_tasks(tmp_path, lm_corpus):
    wordnet = wordnet_of_fixture_words(tmp_path / "wordnet")
    cfg = config(tmp_path, tasks=("ner",), lm_corpus=str(lm_corpus),
                 synonyms=str(wordnet), aux_steps=3, aux_batch=8)
    members = build_members(cfg)
    aux = build_auxiliary(cfg, members)
    assert [a.name for a in aux] == ["lm", "synonyms"]
    assert all(a.table is members[0].net.emb.tables[0] for a in aux)
    state = train_joint(cfg)
    assert {"ner", "lm", "synonyms"} <= set(state["history"][-1]["dev"])
    assert 0 <= state["history"][-1]["dev"]["lm"] <= 100
    again = config(tmp_path / "b", tasks=("ner",), lm_corpus=str(lm_corpus),
                   synonyms=str(wordnet), aux_steps=3, aux_batch=8, epochs=1)
    train_joint(again)
    again.epochs = 2
    train_joint(again)
    a = load_model(Path(cfg.out) / "checkpoint" / "ner").weights
    b = load_model(Path(again.out) / "checkpoint" / "ner").weights
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_synonym_pairs_from_wordnet_files():
    from senna.lm.wordnet import related_pairs

    pairs = related_pairs(FIX / "wordnet")
    assert ("car", "auto", "synonym") in pairs and ("auto", "car", "synonym") in pairs
    assert ("car", "entity", "hypernym") in pairs and ("car", "train", "holonym") in pairs
    assert ("big", "large", "synonym") in pairs           # adjective marker "(a)" dropped
    assert not any("_" in a or "_" in b for a, b, _ in pairs)
    with pytest.raises(ValueError, match="wordnet-base"):
        related_pairs(FIX)


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


@pytest.mark.slow
def test_each_task_trains_with_its_own_dropout_and_adversary(tmp_path, monkeypatch):
    """A task's regularisation settings hold in a joint run as when it trains alone (they
    were once ignored there): its dropout is on while training, and its adversarial step is
    taken on its batches only."""
    import senna.train.joint as joint

    tasks = {"pos": dict(TASKS["pos"], dropout_input=0.1, dropout_hidden=0.3,
                         adversarial=0.5),
             "ner": dict(TASKS["ner"])}
    cfg = JointConfig.from_dict(dict(tasks=tasks, out=str(tmp_path / "joint"), epochs=2,
                                     word_dim=8, batch_size=4, threads=1))
    dropout: dict[int, set] = {}        # network -> (p input, p hidden) seen in its steps
    import senna.train.tagging as tagging

    real_loss = tagging.step_loss

    adversarial: dict[int, set] = {}    # network -> adversarial step sizes of its batches

    def spy_loss(net, batch, distill=0.0, adversarial_eps=0.0, temperature=1.0):
        dropout.setdefault(id(net), set()).add((net.training, net.drop_input.p,
                                                net.drop_hidden.p))
        adversarial.setdefault(id(net), set()).add(adversarial_eps)
        return real_loss(net, batch, distill, adversarial_eps, temperature)

    monkeypatch.setattr(tagging, "step_loss", spy_loss)
    members = []
    real_build = joint.build_members
    monkeypatch.setattr(joint, "build_members", lambda c: members.extend(real_build(c))
                        or members)
    train_joint(cfg)
    by = {m.spec.name: id(m.net) for m in members}
    assert dropout[by["pos"]] == {(True, 0.1, 0.3)}
    assert dropout[by["ner"]] == {(True, 0.0, 0.0)}
    assert adversarial[by["pos"]] == {0.5} and adversarial[by["ner"]] == {0.0}


@pytest.mark.slow
def test_seeds_give_a_mean_ensemble_per_task(tmp_path):
    """`senna train --config JOINT --seeds 1,2`: one joint run per seed, and per task an
    ensemble directory whose recorded dev scores the runtime reproduces."""
    from senna.runtime.ensemble import EnsembleModel, load_tagger
    from senna.train.ensemble import score
    from senna.train.joint import train_joint_seeds

    cfg = config(tmp_path, tasks=("ner", "srl"), epochs=1)
    specs = train_joint_seeds(cfg, [1, 2])
    out = Path(cfg.out)
    assert set(specs) == {"ner", "srl"}
    for name, spec in specs.items():
        assert (out / "seed-1" / "history.json").exists() and (out / "seed-2" / name).is_dir()
        assert spec["combine"] == "mean" and set(spec["dev"]) == {"seed-1", "seed-2", "mean"}
        model = load_tagger(out / name)
        assert isinstance(model, EnsembleModel) and len(model.members) == 2
        dev = {m.spec.name: m for m in build_members(cfg)}[name].dev
        assert score(model, get_task(name), dev) == pytest.approx(spec["dev"]["mean"])
        assert json.loads((out / name / "ensemble.json").read_text()) == spec


@pytest.mark.slow
def test_a_task_twice_on_other_data_trains_two_heads(tmp_path):
    """"pos@wsj" is POS again, read from CoNLL-2000's POS column (`format`), with its own
    output layer and model directory, sharing the word table with "pos"."""
    wsj = str(FIX / "conll2000_sample.txt")

    def joint(tasks: dict) -> JointConfig:
        return JointConfig.from_dict(dict(tasks=tasks, out=str(tmp_path / "joint"), epochs=1,
                                          word_dim=8, batch_size=4, threads=1))

    cfg = joint({"pos": dict(TASKS["pos"]),
                 "pos@wsj": dict(TASKS["pos"], train=wsj, dev=wsj, format="conll2000")})
    members = {m.name: m for m in build_members(cfg)}
    assert set(members) == {"pos", "pos@wsj"}
    assert members["pos@wsj"].spec is get_task("pos") and members["pos@wsj"].cfg.task == "pos"
    assert members["pos"].net.emb.tables[0].weight is members["pos@wsj"].net.emb.tables[0].weight
    assert members["pos"].net.l2 is not members["pos@wsj"].net.l2
    gold = [t for s in members["pos@wsj"].dev for t in s.columns["pos"]]
    assert gold[:3] == ["NNP", "POS", "NNP"]   # the fixture's first words: Friday 's Market
    state = train_joint(cfg)
    assert set(state["best"]) == {"pos", "pos@wsj"}
    saved = load_model(Path(cfg.out) / "pos@wsj")
    assert saved.task == "pos" and saved.info["training"]["config"]["format"] == "conll2000"
    for bad in ("pos@", "pos@a-b", "nope@wsj"):
        with pytest.raises(ValueError):
            joint({"pos": {}, bad: {}})
