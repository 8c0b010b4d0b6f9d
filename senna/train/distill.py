"""Knowledge distillation (Hinton et al. 2015, "Distilling the Knowledge in a Neural
Network"): a model learns from its gold tags and from teachers' scores.

Why: an ensemble of SRL networks from different seeds, their scores averaged
(`senna.runtime.ensemble`, "mean"), beats each member by about a point of dev F1, but
costs a network pass per member, which the runtime's speed targets cannot pay.  A single
network trained to match the ensemble's scores as well as the gold tags keeps one pass.

The teachers (model directories, or an ensemble directory; or a network only training
uses, `--approach bilstm`, which reads the whole sentence) score every training example
once, before training, with the NumPy runtime and the example's own input columns (what
the student reads).  Their per-word tag distributions (softmax of the averaged
emissions, divided by the temperature T first) are kept in float16 beside the example;
each batch adds to the gold log-likelihood `distill` times T^2 times the KL divergence
from the teachers' distribution to the student's (its emissions divided by T too), summed
over the words.  At T = 1 most words' teacher distributions are nearly one-hot (NER: a
maximum above 0.99 for about 80% of the words); a higher T shows the student more of how
the teachers rank the other tags.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import torch

from senna.io.checkpoint import load_model
from senna.io.saved_model import ModelError, SavedModel
from senna.nn.networks import bind_spellings, build_network, load_weights
from senna.runtime.ensemble import ENSEMBLE_FILE, EnsembleModel
from senna.runtime.model import TaskModel
from senna.tasks import TaskSpec
from senna.train.data import Example, collate
from senna.vocab import TagSet

SENTENCES = 64   # sentences the teachers score at once (bounds the emissions' memory)


class NetworkTeacher:
    """A BiLSTM model (`--approach bilstm`, `senna.nn.networks.BiLSTMNet`) as a teacher: its
    tags, and emissions as `TaskModel.emissions` gives them, from its PyTorch network (the
    runtime's within 1e-5, at the speed of batched PyTorch)."""

    def __init__(self, saved: SavedModel):
        self.task, self.tags, self.featurizer = saved.task, saved.tags, saved.featurizer
        net = bind_spellings(build_network(saved.net, sparse=False), saved.featurizer)
        self.net = load_weights(net, saved.weights).eval()

    @torch.no_grad()
    def emissions(self, sentences: Sequence[Sequence[str]],
                  columns: Sequence[Mapping[str, Sequence[str]]]) -> np.ndarray:
        """Sentences (+ input columns) -> emissions [sum T, K], the sentences end to end."""
        lengths = [len(s) for s in sentences]
        flat = self.featurizer.encode_many(sentences, columns)
        examples = [Example(ids, []) for ids in np.split(flat, np.cumsum(lengths)[:-1])]
        b = collate(examples, np.arange(len(examples)), None)
        scores = self.net(torch.from_numpy(b.ids), torch.from_numpy(b.lengths)).numpy()
        return scores[np.arange(scores.shape[1]) < b.lengths[:, None]]   # sentence order


class MeanTeacher:
    """The mean emissions of teachers that are not all runtime models (an `EnsembleModel`
    takes only those)."""

    def __init__(self, members: Sequence):
        self.members, self.tags = list(members), members[0].tags
        if any(m.tags.items != self.tags.items or m.task != members[0].task for m in members):
            raise ModelError("the teachers differ in task or tags: train them on the same data")
        self.task = members[0].task

    def emissions(self, sentences: Sequence[Sequence[str]],
                  columns: Sequence[Mapping[str, Sequence[str]]]) -> np.ndarray:
        return sum(m.emissions(sentences, columns) for m in self.members) / len(self.members)


def load_teacher(path: Path) -> TaskModel | NetworkTeacher:
    """A model or ensemble directory the runtime loads, or a training-only network (each
    read once)."""
    if (path / ENSEMBLE_FILE).exists():
        return EnsembleModel.load(path)
    saved = load_model(path, shared_tables=True)
    return NetworkTeacher(saved) if saved.net.approach == "bilstm" else TaskModel(saved)


def load_teachers(spec: str) -> TaskModel | NetworkTeacher | MeanTeacher:
    """'DIR[,DIR...]' -> one model, or the mean of several (each may be an ensemble)."""
    dirs = [d for d in spec.split(",") if d]
    if not dirs:
        raise ValueError("--teachers: expected model directories, got none")
    models = [load_teacher(Path(d)) for d in dirs]
    if len(models) == 1:
        return models[0]
    members = [m for x in models for m in (x.members if isinstance(x, EnsembleModel) else [x])]
    if any(isinstance(m, NetworkTeacher) for m in members):
        return MeanTeacher(members)
    return EnsembleModel(members, "mean")


def teacher_columns(teacher: TaskModel, tags: TagSet) -> np.ndarray:
    """Indices of the student's tags among the teacher's: the same data gives the same
    tag set, but the order is checked, not assumed."""
    have = {t: i for i, t in enumerate(teacher.tags.items)}
    missing = [t for t in tags.items if t not in have]
    if missing:
        raise ModelError(f"the teachers have no tags {missing[:5]}: train them on the same "
                         "data as the student")
    return np.array([have[t] for t in tags.items], dtype=np.intp)


def word_distributions(scores: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Emissions [..., K] -> per-word softmax of scores / temperature, in float16."""
    z = scores / temperature
    z = z - z.max(-1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(-1, keepdims=True)
    return p.astype(np.float16)


def attach_teacher_scores(task: TaskSpec, sentences: Sequence, examples: list,
                          teacher: TaskModel, tags: TagSet, temperature: float = 1.0) -> None:
    """Set `soft` [T, K] on each example of `make_examples(task, sentences, ...)` (same
    order): the teachers' per-word tag distribution in the student's tag order, at the
    given temperature."""
    cols = teacher_columns(teacher, tags)
    found: list[np.ndarray] = []
    for i in range(0, len(sentences), SENTENCES):
        part = sentences[i : i + SENTENCES]
        if task.per_predicate:
            part = [s for s in part if s.predicates and s.words]
            if not part:
                continue
            windows = [[(0, len(s.words))] * len(s.predicates) for s in part]
            scores, bounds = teacher.role_scores([s.words for s in part],
                                                 [s.predicates for s in part],
                                                 [s.columns for s in part], windows)
            found += [word_distributions(row[: hi - lo][:, cols], temperature)
                      for row, (lo, hi) in zip(scores, bounds, strict=True)]
        else:
            lengths = [len(s.words) for s in part]
            flat = teacher.emissions([s.words for s in part], [s.columns for s in part])
            found += [word_distributions(x[:, cols], temperature)
                      for x in np.split(flat, np.cumsum(lengths)[:-1])]
    if len(found) != len(examples):
        raise ModelError(f"the teachers scored {len(found)} examples, the student has "
                         f"{len(examples)}")
    for e, soft in zip(examples, found, strict=True):
        if len(soft) != len(e.ids):
            raise ModelError("a teacher's row differs in length from its example")
        e.soft = soft


def distillation_loss(emissions: torch.Tensor, soft: torch.Tensor,
                      mask: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """T^2 times the sum over the words of KL(teacher || student) of their tag
    distributions at temperature T (`soft` was made at the same T)."""
    log_q = (emissions / temperature).log_softmax(-1)
    kl = (soft * (soft.clamp_min(1e-8).log() - log_q)).sum(-1)
    return temperature * temperature * (kl * mask).sum()
