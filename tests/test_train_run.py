"""`senna.train.run`: training as one library call, the same run as `senna train` (which
only parses its options into it), refusing the same settings with the same messages."""

import json
import re

import numpy as np
import pytest
from conftest import FIX, ROOT

TINY = dict(task="ner", train=str(FIX / "ner_small.conll"), epochs=2, hidden=10, word_dim=6,
            batch_size=8, threads=1, dev_fraction=0.3)


@pytest.mark.slow
def test_run_trains_the_model_senna_train_trains(tmp_path, capsys):
    pytest.importorskip("torch")
    import senna.train
    from senna.cli.main import main
    from senna.io.checkpoint import load_model

    config = tmp_path / "ner.json"
    config.write_text(json.dumps(TINY))
    result = senna.train.run(config, out=str(tmp_path / "py"), epochs=1)
    assert main(["train", "--config", str(config), "--out", str(tmp_path / "cli"),
                 "--epochs", "1"]) == 0
    printed = capsys.readouterr().out.splitlines()[-1]
    assert printed.replace("cli", "py") == result.summary()
    assert result.state["epoch"] == 1 and result.config.out == str(tmp_path / "py")
    a, b = (load_model(tmp_path / d).weights for d in ("py", "cli"))
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize(("options", "message"), [
    (dict(seeds="1,1"), "--seeds: expected two different seeds or more, got '1,1'"),
    (dict(seeds=[3]), "--seeds: expected two different seeds or more, got '3'"),
    (dict(joined_epochs=2), "--joined-epochs needs --seeds"),
    (dict(seeds=[1, 2], joined_epochs=0), "--joined-epochs must be at least 1, got 0"),
    (dict(sampling="uniform"), "--sampling needs --tasks"),
    (dict(batch_size=0), "--batch-size must be at least 1, got 0"),
])
def test_run_refuses_what_senna_train_refuses(options, message):
    from senna.train.plan import make_plan

    with pytest.raises(ValueError, match=re.escape(message)):
        make_plan(TINY, **options)


def test_a_plan_says_which_run_it_is(tmp_path):
    from senna.train.joint_config import JointConfig
    from senna.train.plan import make_plan

    single = make_plan(TINY, seeds=[1, 2], joined_epochs=3)
    assert not single.joint and single.seeds == (1, 2) and single.joined_epochs == 3
    assert single.config.task == "ner" and single.config.epochs == 2
    joint = make_plan({"out": str(tmp_path)}, tasks=["pos", "ner"], epochs=4,
                      recipes=str(ROOT / "recipes"))
    assert isinstance(joint.config, JointConfig) and joint.joint
    assert list(joint.config.tasks) == ["pos", "ner"] and joint.config.epochs == 4
    with pytest.raises(ValueError, match="with --tasks, set hidden in the per-task settings"):
        make_plan({"out": str(tmp_path)}, tasks="pos,ner", hidden=3,
                  recipes=str(ROOT / "recipes"))


def test_training_reads_its_embeddings_and_featurises_its_sentences_once(tmp_path,
                                                                         monkeypatch):
    """The dictionary and the initial table come from one read of the embeddings file, and
    the tag set and the training batches from one featurisation of the training set."""
    pytest.importorskip("torch")
    import senna.train.setup as setup
    import senna.train.tagging as tagging
    from senna.train.config import TrainConfig
    from senna.train.prepare import prepare

    emb = tmp_path / "emb.txt"
    emb.write_text("peter 0.1 0.2 0.3 0.4 0.5 0.6\nparis 0.6 0.5 0.4 0.3 0.2 0.1\n")
    reads, featurised = [], []
    real_read, real_examples = setup.read_embeddings, tagging.make_examples
    monkeypatch.setattr(setup, "read_embeddings",
                        lambda path, **kw: reads.append(path) or real_read(path, **kw))
    monkeypatch.setattr(tagging, "make_examples", lambda task, sents, f: featurised.append(
        sents) or real_examples(task, sents, f))
    cfg = TrainConfig(**{**TINY, "epochs": 1}, out=str(tmp_path / "m"), embeddings=str(emb))
    data = prepare(cfg)
    tagging.Member.create(cfg, data)
    assert len(reads) == 1
    assert sum(s is data.train for s in featurised) == 1
