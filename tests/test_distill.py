"""Mean-score ensembles (SRL too) and distillation from them, on tiny fixtures: the
ensemble's scores are the members' mean and decode like one model's; the teachers' stored
distributions are the softmax of those scores; a student trained with the distillation
term ends closer to its teachers than the same run without it."""

import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import FIX

torch = pytest.importorskip("torch")

from senna.datasets import load_splits  # noqa: E402
from senna.io.checkpoint import load_model  # noqa: E402
from senna.io.saved_model import ModelError  # noqa: E402
from senna.runtime.ensemble import EnsembleModel, load_tagger  # noqa: E402
from senna.runtime.folders import default_model_dir  # noqa: E402
from senna.runtime.model import TaskModel  # noqa: E402
from senna.runtime.pipeline import Pipeline  # noqa: E402
from senna.tasks import get_task  # noqa: E402
from senna.train.config import TrainConfig  # noqa: E402
from senna.train.data import make_examples  # noqa: E402
from senna.train.distill import (  # noqa: E402
    attach_teacher_scores,
    distillation_loss,
    load_teachers,
    word_distributions,
)
from senna.train.loop import train  # noqa: E402
from senna.train.tagging import network_from_saved  # noqa: E402

SRL = dict(task="srl", train=str(FIX / "srl_small.conll"), dev=str(FIX / "srl_small.conll"),
           criterion="sll", epochs=3, hidden=20, conv=16, word_dim=8, batch_size=4, threads=1)


def srl_config(out: Path, **kw) -> TrainConfig:
    return TrainConfig(**{**SRL, "out": str(out), **kw})


@pytest.fixture(scope="module")
def teachers(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("teachers")
    for seed in (1, 2):
        train(srl_config(root / f"seed-{seed}", seed=seed))
    return [root / "seed-1", root / "seed-2"]


def sentences() -> list:
    cfg = srl_config(Path("unused"))
    return [s for s in load_splits(cfg, get_task("srl"))[0] if s.predicates]


@pytest.mark.slow
def test_mean_ensemble_scores_are_the_members_mean(teachers):
    members = [TaskModel.load(p) for p in teachers]
    ens = EnsembleModel(members, "mean")
    sents = sentences()[:6]
    args = ([s.words for s in sents], [s.predicates for s in sents], [s.columns for s in sents])
    scores, bounds = ens.role_scores(*args)
    each = [m.role_scores(*args)[0] for m in members]
    np.testing.assert_allclose(scores, np.mean(each, 0), rtol=1e-5, atol=1e-5)
    # one member's ensemble is that member
    single = EnsembleModel(members[:1], "mean")
    assert single.predict_roles_many(*args) == members[0].predict_roles_many(*args)
    out = ens.predict_roles_many(*args)
    assert [len(c) for c in out] == [len(s.predicates) for s in sents]
    with pytest.raises(ModelError, match="mean scores only"):
        EnsembleModel(members, "vote")


@pytest.mark.slow
def test_pipeline_tags_roles_with_a_mean_ensemble(teachers, tmp_path):
    (tmp_path / "srl").mkdir()
    for p in teachers:   # members inside the ensemble's folder (links out are refused)
        shutil.copytree(p, tmp_path / "srl" / p.name)
    (tmp_path / "srl" / "ensemble.json").write_text(
        '{"format": "senna-ensemble", "version": 1, "task": "srl", '
        '"members": ["seed-1", "seed-2"], "combine": "mean", "joined": null}')
    assert isinstance(load_tagger(tmp_path / "srl"), EnsembleModel)
    sent = sentences()[0]
    pos = TaskModel.load(default_model_dir() / "pos")      # SRL needs POS (predicates aside)
    pipe = Pipeline(tmp_path, tasks=["srl"], models={"pos": pos}, predicates="pos")
    tagged = pipe.tag([sent.words], predicates=[sent.predicates])[0]
    direct = load_tagger(tmp_path / "srl").predict_roles_many([sent.words], [sent.predicates],
                                                              [{}])[0]
    assert [list(r) for r in tagged.roles] == direct

@pytest.mark.slow
def test_teacher_scores_are_the_softmax_of_the_mean(teachers):
    teacher = load_teachers(",".join(map(str, teachers)))
    assert isinstance(teacher, EnsembleModel) and len(teacher.members) == 2
    sents = sentences()
    saved = load_model(teachers[0])
    task = get_task("srl")
    examples = make_examples(task, sents, saved.featurizer)
    attach_teacher_scores(task, sents, examples, teacher, saved.tags)
    assert all(e.soft.shape == (len(e.ids), len(saved.tags)) for e in examples)
    s = next(x for x in sents if len(x.predicates) > 0)
    first = sum(len(x.predicates) for x in sents[: sents.index(s)])
    scores, _ = teacher.role_scores([s.words], [s.predicates], [s.columns])
    z = np.exp(scores[0] - scores[0].max(-1, keepdims=True))
    np.testing.assert_allclose(examples[first].soft, z / z.sum(-1, keepdims=True), atol=2e-3)
    for e in examples:
        np.testing.assert_allclose(e.soft.astype(np.float32).sum(-1), 1.0, atol=1e-2)


def mean_kl(model_dir: Path, teacher_dirs: list[Path]) -> float:
    """Mean per-word KL from the teachers' distributions to the model's own."""
    saved = load_model(model_dir)
    net = network_from_saved(saved)
    net.eval()
    task = get_task("srl")
    sents = sentences()
    examples = make_examples(task, sents, saved.featurizer)
    attach_teacher_scores(task, sents, examples, load_teachers(",".join(map(str, teacher_dirs))),
                          saved.tags)
    total, words = 0.0, 0
    with torch.no_grad():
        for e in examples:
            ids = torch.from_numpy(e.ids[None].astype(np.int64))
            em = net(ids, torch.tensor([len(e.ids)]), torch.tensor([e.predicate]))[0]
            p = torch.from_numpy(e.soft.astype(np.float32))
            total += float((p * (p.clamp_min(1e-8).log() - em.log_softmax(-1))).sum())
            words += len(e.ids)
    return total / words


@pytest.mark.slow
def test_distillation_pulls_the_student_to_its_teachers(teachers, tmp_path):
    spec = ",".join(map(str, teachers))
    plain = srl_config(tmp_path / "plain", seed=3)
    taught = srl_config(tmp_path / "taught", seed=3, teachers=spec, distill=5.0)
    train(plain)
    train(taught)
    # the last epoch of each (checkpoint/), not the best on the tiny dev set
    kl = {name: mean_kl(tmp_path / name / "checkpoint" / "srl", teachers)
          for name in ("plain", "taught")}
    assert kl["taught"] < 0.8 * kl["plain"]
    card = (tmp_path / "taught" / "MODEL_CARD.md").read_text()
    assert f"Distilled from teachers `{spec}`" in card and "weighs 5" in card
    assert "Distilled" not in (tmp_path / "plain" / "MODEL_CARD.md").read_text()


def test_distill_setting_is_checked():
    with pytest.raises(ValueError, match="--distill"):
        srl_config(Path("x"), distill=-1.0)
    with pytest.raises(ValueError, match="--distill-temperature must be above 0"):
        srl_config(Path("x"), distill_temperature=0.0)


def test_temperature_softens_the_targets_and_keeps_the_gradient_scale():
    """At T the teacher's distribution is the softmax of scores / T (flatter for T > 1); the
    term vanishes when the student's scores are the teacher's, at any T; and the T^2 factor
    keeps its gradient the size of T = 1's for small differences (Hinton et al. 2015)."""
    rng = np.random.default_rng(0)
    teacher = rng.normal(0, 4, (2, 5, 7)).astype(np.float32)
    mask = torch.ones(2, 5, dtype=torch.bool)
    entropy = {}
    for t in (1.0, 2.0, 4.0):
        soft = torch.from_numpy(word_distributions(teacher, t).astype(np.float32))
        np.testing.assert_allclose(soft.numpy(), torch.from_numpy(teacher / t).softmax(-1),
                                   atol=2e-3)
        entropy[t] = float(-(soft * soft.clamp_min(1e-8).log()).sum(-1).mean())
        same = distillation_loss(torch.from_numpy(teacher), soft, mask, t)
        assert abs(float(same)) < 0.05 * t * t
    assert entropy[1.0] < entropy[2.0] < entropy[4.0]
    # gradient at a student near the teacher: the same order of size at T = 1 and T = 4
    grads = {}
    for t in (1.0, 4.0):
        soft = torch.from_numpy(teacher / t).softmax(-1)
        student = torch.from_numpy(teacher + rng.normal(0, 0.01, teacher.shape).astype(
            np.float32)).requires_grad_()
        distillation_loss(student, soft, mask, t).backward()
        grads[t] = float(student.grad.norm())
    assert 0.1 < grads[4.0] / grads[1.0] < 10


@pytest.mark.slow
def test_members_with_other_dictionaries_are_averaged_each_on_its_own_ids(teachers, tmp_path):
    """A teacher trained with other features (here characters too) joins a mean ensemble:
    each member encodes the words itself (chunk/PT0's teachers differ in dictionary)."""
    train(srl_config(tmp_path / "chars", seed=4, features="basic+chars"))
    members = [TaskModel.load(teachers[0]), TaskModel.load(tmp_path / "chars")]
    ens = EnsembleModel(members, "mean")
    assert not ens.shared_inputs and EnsembleModel(members[:1] * 2, "mean").shared_inputs
    sents = sentences()[:5]
    args = ([s.words for s in sents], [s.predicates for s in sents], [s.columns for s in sents])
    np.testing.assert_allclose(ens.role_scores(*args)[0],
                               np.mean([m.role_scores(*args)[0] for m in members], 0),
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(ModelError, match="only their mean scores combine them"):
        EnsembleModel(members, "vote")
