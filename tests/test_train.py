"""Training end to end on tiny fixtures: the saved model loads without torch, the NumPy
runtime reproduces the PyTorch scores, runs are deterministic and resume exactly."""

from pathlib import Path

import numpy as np
import pytest
from conftest import CASES, FIX, small_config

torch = pytest.importorskip("torch")

from senna.datasets import load_splits  # noqa: E402
from senna.io.checkpoint import load_model  # noqa: E402
from senna.io.formats import read_dataset  # noqa: E402
from senna.runtime.kernels import window_scores  # noqa: E402
from senna.runtime.model import TaskModel  # noqa: E402
from senna.runtime.predict import predict_gold_inputs  # noqa: E402
from senna.tasks import get_task  # noqa: E402
from senna.train.config import TrainConfig  # noqa: E402
from senna.train.data import batches, make_examples  # noqa: E402
from senna.train.dev import predict_tags  # noqa: E402
from senna.train.loop import train  # noqa: E402
from senna.train.tagging import network_from_saved  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_runtime_reproduces_training_scores_and_tags(tmp_path, name):
    cfg = small_config(tmp_path, name)
    train(cfg)
    saved = load_model(cfg.out)
    task = get_task(cfg.task)
    sentences = (load_splits(cfg, task)[0] if cfg.extra_columns
                 else read_dataset(cfg.train, task.fmt))
    net = network_from_saved(saved)
    examples = make_examples(task, sentences, saved.featurizer)
    runtime = TaskModel(saved)
    b = next(batches(examples, 8, None))
    with torch.no_grad():
        ref = net(torch.from_numpy(b.ids), torch.from_numpy(b.lengths),
                  torch.from_numpy(b.predicates)).numpy()
    for row, i in enumerate(b.index):
        e = examples[i]
        if runtime.sentence_level:
            got = runtime_scores_sentence(runtime, e)
        else:
            got = window_scores(e.ids, [len(e.ids)], runtime.w, runtime.cfg)
        np.testing.assert_allclose(got, ref[row, : len(e.ids)], atol=1e-5, rtol=1e-5)
    # (without the decoding-time vote for one type per name, which training's scores skip)
    assert predict_gold_inputs(runtime, task, sentences, documents=False) == \
        predict_tags(net, examples, saved)


def runtime_scores_sentence(runtime: TaskModel, example) -> np.ndarray:
    from senna.runtime.kernels import role_scores
    return role_scores([example.ids], [[example.predicate]], runtime.w, runtime.cfg,
                       runtime.tables)[0]


@pytest.mark.slow
def test_training_is_deterministic_and_resumes_exactly(tmp_path):
    a = small_config(tmp_path, "ner-window-sll", out=str(tmp_path / "a"), epochs=3)
    b = small_config(tmp_path, "ner-window-sll", out=str(tmp_path / "b"), epochs=1)
    train(a)
    train(b)
    b.epochs = 3  # a second invocation continues from the checkpoint
    state = train(b)
    assert state["epoch"] == 3
    wa = load_model(Path(a.out) / "checkpoint" / a.task).weights
    wb = load_model(Path(b.out) / "checkpoint" / b.task).weights
    for k in wa:
        np.testing.assert_array_equal(wa[k], wb[k])
    assert (Path(a.out) / "curve.png").exists()


@pytest.mark.slow
def test_sll_learns_a_small_training_set(tmp_path):
    cfg = small_config(tmp_path, "ner-window-sll", dev=str(FIX / "ner_small.conll"),
                       epochs=15, hidden=50, word_dim=20, lr=0.1)
    state = train(cfg)
    assert state["best"]["ner"]["score"] > 60.0  # F1 on its own training sentences


@pytest.mark.slow
def test_initial_embeddings_fill_the_word_table(tmp_path):
    from senna.embeddings import write_embeddings
    from senna.train.setup import initial_embeddings
    from senna.train.tagging import build

    vectors = np.arange(24, dtype=np.float32).reshape(3, 8)
    write_embeddings(tmp_path / "vec.txt", ["the", "Peter", "zzzunseen"], vectors)
    cfg = small_config(tmp_path, "ner-window-sll", embeddings=str(tmp_path / "vec.txt"))
    task = get_task("ner")
    net, saved = build(cfg, task, read_dataset(cfg.train, task.fmt))
    words = saved.featurizer.vocabs["word"]
    assert "zzzunseen" in words  # embedding words join the dictionary
    assert initial_embeddings(net, saved.featurizer, cfg.embeddings)[0] == 3
    table = net.emb.tables[0].weight.detach().numpy()
    scaled = vectors / vectors.std()
    np.testing.assert_allclose(table[words.id("peter")], scaled[1], rtol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("fixed", [False, True])
def test_models_from_an_embeddings_directory_store_only_changed_rows(tmp_path, fixed):
    from senna.embeddings import save_embeddings

    rng = np.random.default_rng(0)
    words = ["PADDING", "RARE"] + [f"w{i}" for i in range(300)] + ["the", "peter", "."]
    save_embeddings(tmp_path / "emb", words, rng.normal(size=(len(words), 8)),
                    dtype="float16")
    cfg = small_config(tmp_path, "ner-window-sll", embeddings=str(tmp_path / "emb"),
                       fixed_embeddings=fixed)
    train(cfg)
    with np.load(Path(cfg.out) / "weights.npz") as z:
        assert "emb.tables.0.weight" not in z.files
        rows = z["emb.tables.0.rows"]
    saved = load_model(cfg.out)
    vocab = saved.featurizer.vocabs["word"]
    assert len(vocab) > 300 and len(rows) < len(vocab) - 290  # the w-words are untouched
    table = saved.weights["emb.tables.0.weight"]
    net = network_from_saved(saved)  # same table as training left it
    from senna.io.word_base import base_table

    trained_from = {**saved.info["word_base"], "embeddings": str(tmp_path / "emb")}
    start, found = base_table(trained_from, vocab, Path(cfg.out))
    changed = (table != start).any(1) & found
    assert changed.any() != fixed
    np.testing.assert_array_equal(net.emb.tables[0].weight.detach().numpy(), table)
    runtime = TaskModel.load(cfg.out)  # reads rows through the shared embeddings
    overlay = runtime.w["emb.tables.0.weight"]
    assert not isinstance(overlay, np.ndarray)
    ids = np.array([0, 1, 5, len(vocab) - 1, 5])
    np.testing.assert_array_equal(overlay[ids], table[ids])
    np.testing.assert_array_equal(np.asarray(overlay), table)
    task = get_task("ner")
    sentences = read_dataset(cfg.train, task.fmt)
    assert predict_gold_inputs(runtime, task, sentences) == predict_gold_inputs(
        TaskModel(saved), task, sentences)
    moved = tmp_path / "moved"
    moved.mkdir()
    Path(cfg.out).rename(moved / "model")  # it keeps the rows it reads from the embeddings
    (tmp_path / "emb").rename(tmp_path / "gone")
    np.testing.assert_array_equal(load_model(moved / "model").weights["emb.tables.0.weight"],
                                  table)


@pytest.mark.slow
def test_compact_stores_a_models_own_rows_in_float16(tmp_path):
    """`senna compact --rows float16` halves the stored rows; the runtime and the training
    network then read the same rounded table and tag alike; the card says so."""
    from senna.cli.main import main
    from senna.embeddings import save_embeddings

    rng = np.random.default_rng(0)
    words = ["PADDING", "RARE"] + [f"w{i}" for i in range(300)] + ["the", "peter", "."]
    save_embeddings(tmp_path / "emb", words, rng.normal(size=(len(words), 8)),
                    dtype="float16")
    cfg = small_config(tmp_path, "ner-window-sll", embeddings=str(tmp_path / "emb"))
    train(cfg)
    before = load_model(cfg.out).weights["emb.tables.0.weight"]
    words_before = (Path(cfg.out) / "vocab" / "word.lst").read_bytes()
    assert main(["compact", cfg.out, "--rows", "float16"]) == 0
    # the dictionaries are stored gzip-compressed, the same entries; the manifest lists them
    import gzip
    import json
    vocab = Path(cfg.out) / "vocab"
    assert not (vocab / "word.lst").exists()
    assert gzip.decompress((vocab / "word.lst.gz").read_bytes()) == words_before
    assert "vocab/word.lst.gz" in json.loads((Path(cfg.out) / "manifest.json").read_text())[
        "files"]
    with np.load(Path(cfg.out) / "weights.npz") as z:
        assert z["emb.tables.0.values"].dtype == np.float16
        assert z["l1.weight"].dtype == np.float32
        rows = z["emb.tables.0.rows"]
    saved = load_model(cfg.out)
    table = saved.weights["emb.tables.0.weight"]
    np.testing.assert_array_equal(table[rows], before[rows].astype(np.float16))
    task = get_task("ner")
    sentences = read_dataset(cfg.train, task.fmt)
    net = network_from_saved(saved)
    assert predict_gold_inputs(TaskModel.load(cfg.out), task, sentences) == predict_tags(
        net, make_examples(task, sentences, saved.featurizer), saved)
    assert "kept in float16, its dictionaries gzip-compressed" in \
        (Path(cfg.out) / "MODEL_CARD.md").read_text()
    # back to text; a corrupt compressed dictionary is one clear error naming it
    assert main(["compact", cfg.out, "--rows", "float16", "--vocab", "text"]) == 0
    assert (vocab / "word.lst").read_bytes() == words_before
    assert not (vocab / "word.lst.gz").exists()
    assert main(["compact", cfg.out, "--rows", "float16"]) == 0
    from senna.io.manifest import drop_manifest
    from senna.io.saved_model import ModelError
    drop_manifest(Path(cfg.out))
    (vocab / "word.lst.gz").write_bytes(b"not gzip")
    with pytest.raises(ModelError, match="word.lst.gz"):
        load_model(cfg.out)
    plain = small_config(tmp_path / "plain", "ner-window-sll")   # no embeddings: no rows
    train(plain)
    assert main(["compact", plain.out, "--rows", "float16"]) == 1


def test_gazetteer_dropout_only_touches_gazetteer_flags():
    from senna.features import specs as F
    from senna.features.featurizer import Featurizer
    from senna.features.lexicons import Gazetteer
    from senna.train.tagging import drop_features

    gaz = Gazetteer({"LOC": {("Paris",)}})
    specs = [F.word(), F.gazetteer_feature("LOC")]
    fz = Featurizer.fit(specs, [], gaz, words=None)
    ids = np.array([[[5, 3], [3, 2], [7, 3]]])
    drop_features(ids, fz, TrainConfig(task="ner", train="x"), np.random.default_rng(0))
    assert ids[0, :, 1].tolist() == [3, 2, 3]
    drop_features(ids, fz, TrainConfig(task="ner", train="x", gazetteer_dropout=1.0),
                  np.random.default_rng(0))
    assert ids[0, :, 1].tolist() == [2, 2, 2] and ids[0, :, 0].tolist() == [5, 3, 7]


@pytest.mark.slow
def test_adam_state_is_checkpointed_so_a_resumed_run_is_the_same_run(tmp_path):
    kw = dict(optimizer="adam", lr=1e-3)
    a = small_config(tmp_path, "ner-window-sll", out=str(tmp_path / "a"), epochs=3, **kw)
    b = small_config(tmp_path, "ner-window-sll", out=str(tmp_path / "b"), epochs=1, **kw)
    train(a)
    train(b)
    b.epochs = 3
    train(b)
    wa = load_model(Path(a.out) / "checkpoint" / a.task).weights
    wb = load_model(Path(b.out) / "checkpoint" / b.task).weights
    for k in wa:
        np.testing.assert_array_equal(wa[k], wb[k])


@pytest.mark.slow
def test_resume_refuses_another_model_or_data_and_reports_changed_settings(tmp_path, capsys):
    data = tmp_path / "train.conll"   # a copy: the test rewrites it
    data.write_text((FIX / "ner_small.conll").read_text())
    cfg = small_config(tmp_path, "ner-window-sll", epochs=1, train=data)
    train(cfg)
    capsys.readouterr()
    changed = small_config(tmp_path, "ner-window-sll", epochs=1, train=data, hidden=30,
                           word_dim=6)
    with pytest.raises(ValueError, match=r"cannot resume .*--hidden 20 -> 30, --word-dim 8 -> 6"):
        train(changed)
    other = tmp_path / "other.conll"
    other.write_text(data.read_text().replace("CRICKET", "FOOTBALL"))
    with pytest.raises(ValueError, match=r"--train .*train.conll -> .*other.conll"):
        train(small_config(tmp_path, "ner-window-sll", epochs=1, train=other))
    kept = data.read_text()
    data.write_text(other.read_text())   # same path, other content
    with pytest.raises(ValueError, match=r"the content of .*train.conll \(--train\)"):
        train(small_config(tmp_path, "ner-window-sll", epochs=1, train=data))
    data.write_text(kept)
    state = train(small_config(tmp_path, "ner-window-sll", epochs=2, train=data, lr=0.01))
    out = capsys.readouterr().out
    assert f"resuming {cfg.out} from its checkpoint after epoch 1 of 2" in out
    assert "changed settings: --epochs 1 -> 2, --lr 0.05 -> 0.01" in out
    assert state["epoch"] == 2


@pytest.mark.slow
@pytest.mark.parametrize("kw", [dict(dropout_input=0.2, dropout_hidden=0.3),
                                dict(adversarial=0.5)], ids=["dropout", "adversarial"])
def test_regularisers_resume_exactly_and_change_training(tmp_path, kw):
    a = small_config(tmp_path, "ner-window-sll", out=str(tmp_path / "a"), epochs=2, **kw)
    b = small_config(tmp_path, "ner-window-sll", out=str(tmp_path / "b"), epochs=1, **kw)
    plain = small_config(tmp_path, "ner-window-sll", out=str(tmp_path / "c"), epochs=2)
    assert np.isfinite(train(a)["best"]["ner"]["score"])
    train(b)
    b.epochs = 2
    train(b)
    train(plain)
    wa, wb, wc = (load_model(Path(c.out) / "checkpoint" / c.task).weights for c in (a, b, plain))
    for k in wa:
        np.testing.assert_array_equal(wa[k], wb[k])
    assert not np.array_equal(wa["l1.weight"], wc["l1.weight"])


def test_bad_dropout_and_decay_are_refused(tmp_path):
    for kw in (dict(dropout_input=1.0), dict(dropout_hidden=-0.1), dict(average=1.0),
               dict(average=-0.5)):
        with pytest.raises(ValueError, match="dropout|average"):
            small_config(tmp_path, "ner-window-sll", **kw)


def test_bad_stack_settings_are_refused(tmp_path):
    for kw in (dict(stack=2), dict(stack=-1), dict(stack_hidden=10),
               dict(stack=3, stack_hidden=-1)):
        with pytest.raises(ValueError, match="--stack"):
            small_config(tmp_path, "ner-window-sll", **kw)


def test_weight_average_is_the_bias_corrected_moving_average():
    from senna.train.averaging import WeightAverage
    net = torch.nn.Linear(3, 2)
    avg = WeightAverage(net, decay=0.9, every=2)
    seen, steps = [], 0
    for _ in range(7):   # seven optimizer steps: the average moves after steps 2, 4 and 6
        with torch.no_grad():
            net.weight.add_(torch.randn_like(net.weight))
        avg.update()
        steps += 1
        if steps % 2 == 0:
            seen.append(net.weight.detach().clone())
    d = 0.9 ** 2
    expected = sum(d ** (len(seen) - 1 - i) * w for i, w in enumerate(seen)) \
        * (1 - d) / (1 - d ** len(seen))
    torch.testing.assert_close(avg.net.weight, expected)
    assert not torch.equal(avg.net.weight, net.weight)


@pytest.mark.slow
def test_averaged_weights_are_saved_scored_and_resume_exactly(tmp_path):
    a = small_config(tmp_path, "ner-window-sll", out=str(tmp_path / "a"), epochs=3,
                     average=0.99)
    b = small_config(tmp_path, "ner-window-sll", out=str(tmp_path / "b"), epochs=1,
                     average=0.99)
    state = train(a)
    train(b)
    b.epochs = 3
    train(b)
    assert all("dev_last" in h for h in state["history"])   # the last iterate's score too
    best, last = load_model(a.out), load_model(Path(a.out) / "checkpoint" / a.task)
    for k in best.weights:   # the model kept is the average, the checkpoint the iterate
        if best.info["training"]["epochs"] == 3 and k.endswith("weight"):
            assert not np.array_equal(best.weights[k], last.weights[k])
    for sub in ("checkpoint/ner", "checkpoint/ner/average"):
        wa = load_model(Path(a.out) / sub).weights
        wb = load_model(Path(b.out) / sub).weights
        for k in wa:
            np.testing.assert_array_equal(wa[k], wb[k])
    # the saved model is the average and reproduces the dev score it was kept for
    saved = load_model(a.out)
    task = get_task("ner")
    sents = read_dataset(a.dev, task.fmt)
    from senna.train.dev import evaluate_model
    net = network_from_saved(saved)
    examples = make_examples(task, sents, saved.featurizer)
    assert evaluate_model(saved, net, task, sents, examples)["score"] == pytest.approx(
        state["best"]["ner"]["score"])


def test_a_run_starts_with_a_summary_of_its_data_and_records_its_licence(tmp_path, capsys):
    """Sentences and tokens read, the tag set, the dev tags training never saw (named), the
    dictionary's cover of dev and the features, printed once before epoch 1; --licence
    goes into the model's settings and card."""
    import json

    dev = tmp_path / "dev.conll"
    text = (FIX / "ner_small.conll").read_text(encoding="utf-8").split("\n\n")
    dev.write_text("\n\n".join(text[:3]).replace("I-ORG", "I-FOO") + "\n", encoding="utf-8")
    cfg = small_config(tmp_path, "ner-window-sll", dev=str(dev), epochs=1,
                       licence="CC BY 4.0 (my annotations)")
    train(cfg)
    out = capsys.readouterr().out.splitlines()
    train_sents, dev_sents = load_splits(cfg, get_task("ner"))
    saved = load_model(cfg.out)
    n_tokens = sum(len(s.words) for s in dev_sents)
    first, second = out[0], out[1]
    assert first.startswith(f"ner: train {len(train_sents):,} sentences ("
                            f"{sum(len(s.words) for s in train_sents):,} tokens), dev "
                            f"{len(dev_sents):,} sentences ({n_tokens:,} tokens); "
                            f"{len(saved.tags)} tags; ")
    assert "dev tags not in training, cannot be learnt: " in first and "S-FOO" in first
    assert second.startswith(f"ner: dictionary {len(saved.featurizer.vocabs['word']):,} "
                             "words, ")
    assert second.endswith("; features word, caps")
    assert sum(line.startswith("ner: train ") for line in out) == 1
    config = json.loads((Path(cfg.out) / "config.json").read_text(encoding="utf-8"))
    assert config["training"]["config"]["licence"] == "CC BY 4.0 (my annotations)"
    card = (Path(cfg.out) / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert "- Licence of the data: CC BY 4.0 (my annotations)\n" in card
