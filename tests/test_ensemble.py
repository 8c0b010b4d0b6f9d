"""Ensembles on tiny fixtures: members from different seeds, the vote, the joined layer
(runtime equal to training within 1e-5), and the pipeline tagging with an ensemble."""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import FIX

torch = pytest.importorskip("torch")

from senna.io.checkpoint import load_model  # noqa: E402
from senna.io.formats import read_dataset  # noqa: E402
from senna.nn.networks import bind_spellings  # noqa: E402
from senna.runtime.ensemble import EnsembleModel, load_tagger  # noqa: E402
from senna.runtime.model import TaskModel  # noqa: E402
from senna.runtime.pipeline import Pipeline  # noqa: E402
from senna.tags import tags_to_spans  # noqa: E402
from senna.tasks import get_task  # noqa: E402
from senna.train.config import TrainConfig  # noqa: E402
from senna.train.data import batches, make_examples  # noqa: E402
from senna.train.ensemble import Joiner, train_ensemble  # noqa: E402
from senna.train.tagging import network_from_saved  # noqa: E402


@pytest.fixture(scope="module", params=["basic", "basic+chars"])
def ensemble(tmp_path_factory, request) -> Path:
    """Members with character features too: each member has its own spellings table, and
    the ensemble feeds all of them the first member's ids."""
    out = tmp_path_factory.mktemp("ens") / "ner"
    cfg = TrainConfig(task="ner", train=str(FIX / "ner_small.conll"), out=str(out), epochs=2,
                      hidden=20, word_dim=8, batch_size=4, threads=1, dev_fraction=0.3,
                      features=request.param)
    train_ensemble(cfg, [1, 2, 3], joined_epochs=2)
    return out


@pytest.mark.slow
def test_ensemble_directory_and_scores(ensemble):
    spec = json.loads((ensemble / "ensemble.json").read_text())
    assert spec["members"] == ["seed-1", "seed-2", "seed-3"] and spec["joined"] == "joined.npz"
    assert spec["combine"] == max(("vote", "mean", "joined"), key=spec["dev"].get)
    assert set(spec["dev"]) == {"seed-1", "seed-2", "seed-3", "vote", "mean", "joined"}
    card = (ensemble / "MODEL_CARD.md").read_text()
    assert card.startswith("# senna model: ner, an ensemble of 3\n")
    how = {"vote": "by vote", "mean": "by their mean scores", "joined": "by a joining layer"}
    assert f"- Combined {how[spec['combine']]}" in card
    assert f"mean {spec['dev']['mean']:.2f}" in card and "`seed-2/`" in card
    w = [load_model(ensemble / m).weights["l1.weight"] for m in spec["members"]]
    assert not np.array_equal(w[0], w[1])          # different seeds, different networks
    assert isinstance(load_tagger(ensemble), EnsembleModel)
    assert isinstance(load_tagger(ensemble / "seed-1"), TaskModel)


@pytest.mark.slow
def test_joined_runtime_equals_training(ensemble):
    names = ["seed-1", "seed-2", "seed-3"]
    saved = [load_model(ensemble / n) for n in names]
    nets = [bind_spellings(network_from_saved(s), saved[0].featurizer) for s in saved]
    joiner = Joiner(nets, len(saved[0].tags))
    with np.load(ensemble / "joined.npz") as z:
        weights = {k: z[k] for k in z.files}
    with torch.no_grad():
        joiner.join.weight.copy_(torch.from_numpy(weights["join.weight"]))
        joiner.join.bias.copy_(torch.from_numpy(weights["join.bias"]))
    runtime = EnsembleModel.load(ensemble, "joined")
    sents = read_dataset(FIX / "ner_small.conll", "conll2003")[:6]
    examples = make_examples(get_task("ner"), sents, saved[0].featurizer)
    b = next(batches(examples, 6, None))
    with torch.no_grad():
        ref = joiner(torch.from_numpy(b.ids)).numpy()
    words = [sents[i].words for i in b.index]
    got = runtime.emissions(words, [sents[i].columns for i in b.index])
    ends = np.cumsum([len(w) for w in words])
    for row, e in enumerate(np.split(got, ends[:-1])):
        np.testing.assert_allclose(e, ref[row, : len(e)], atol=1e-5)


@pytest.mark.slow
def test_vote_is_a_valid_majority(ensemble):
    vote = EnsembleModel.load(ensemble, combine="vote")
    assert vote.vote([["B-PER", "E-PER", "O"], ["B-PER", "E-PER", "O"],
                      ["S-LOC", "O", "O"]]) == ["B-PER", "E-PER", "O"]
    fixed = vote.vote([["B-PER", "O"], ["B-PER", "S-LOC"], ["S-ORG", "O"]])
    assert fixed == ["S-PER", "O"]                  # B- without its E- read as one span
    for tags in vote.predict([s.words for s in read_dataset(FIX / "ner_small.conll",
                                                             "conll2003")[:20]]):
        assert [t for t in tags if t != "O"] == [
            t for label, s, e in tags_to_spans(tags)
            for t in (["S-" + label] if e - s == 1 else
                      ["B-" + label, *["I-" + label] * (e - s - 2), "E-" + label])]


@pytest.mark.slow
def test_pipeline_tags_with_an_ensemble(ensemble, tmp_path):
    (tmp_path / "ner").symlink_to(ensemble)
    words = ["John", "lives", "in", "London", "."]
    pipe = Pipeline(tmp_path, ["ner"])
    assert len(pipe.tag([words])[0].columns["ner"]) == 5
    assert pipe.tag([words])[0].columns["ner"] == EnsembleModel.load(ensemble).predict([words])[0]


@pytest.mark.slow
def test_evaluate_scores_an_ensemble_as_training_does(ensemble, capsys):
    from senna.cli.evaluate import main
    from senna.io.formats import read_dataset
    from senna.tasks import get_task
    from senna.train.ensemble import score

    data = FIX / "ner_small.conll"
    assert main(["--model", str(ensemble), "--data", str(data)]) == 0
    want = score(load_tagger(ensemble), get_task("ner"), read_dataset(data, "conll2003"))
    assert f"{want:.2f}" in capsys.readouterr().out


@pytest.mark.parametrize("seeds", [[1], [2, 2]])
def test_an_ensemble_needs_two_different_seeds(tmp_path, seeds):
    """Checked where the members are trained, for one task and for a joint run alike, before
    any is trained."""
    from senna.train.joint import JointConfig, train_joint_seeds

    cfg = TrainConfig(task="ner", train=str(FIX / "ner_small.conll"), out=str(tmp_path / "e"),
                      epochs=1, hidden=10, word_dim=6, threads=1, dev_fraction=0.3)
    with pytest.raises(ValueError, match="--seeds: expected two different seeds or more"):
        train_ensemble(cfg, seeds)
    joint = JointConfig.from_dict(dict(
        tasks={"pos": dict(train=str(FIX / "ewt_sample.pos")),
               "ner": dict(train=str(FIX / "ner_small.conll"))}, out=str(tmp_path / "j")))
    with pytest.raises(ValueError, match="--seeds: expected two different seeds or more"):
        train_joint_seeds(joint, seeds)
    assert not list(tmp_path.rglob("seed-*"))
