"""`senna train --seeds 1,2,3 [--joined-epochs N]`: an ensemble of N taggers (section 6.1).

Each member is an ordinary training run of the same settings with its own seed (its own
initial weights and batch order), saved in `out/seed-<k>/`; `out/ensemble.json` makes the
directory an ensemble the runtime tags with (`senna.runtime.ensemble`), combined by vote or by
the members' mean scores, whichever scores better on dev (a vote lets a majority outvote one
confident member; a mean lets a confident member outweigh two unsure ones, and which helps
depends on the task and the data).  With
`joined_epochs`, the paper's "joined" ensemble is trained too: the members are frozen and a
linear layer with its own transition scores (SLL) learns to tag from their concatenated
hidden layers; it is scored on dev after every epoch through the NumPy runtime and the best
is kept in `out/joined.npz`.  The dev scores of the members, the vote, the mean and the joined
layer are recorded in ensemble.json.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from senna.io.checkpoint import load_model
from senna.nn.criterion import SentenceLikelihood
from senna.nn.networks import WindowNet, bind_spellings
from senna.runtime.ensemble import EnsembleModel, save_ensemble
from senna.runtime.model import TaskModel
from senna.runtime.predict import predict_gold_inputs
from senna.scoring.predictions import score_predictions
from senna.tasks import TaskSpec
from senna.train.card import write_ensemble_card
from senna.train.config import TrainConfig
from senna.train.data import Batch, batches, make_examples
from senna.train.loop import Run, fit, train
from senna.train.plan import checked_seeds
from senna.train.prepare import prepare
from senna.train.tagging import command_line, network_from_saved, optimizer


class Joiner(torch.nn.Module):
    """A linear layer on the members' concatenated hidden layers, and its criterion.

    It starts as the average of the members' output layers (and transition scores), i.e.
    from the ensemble that averages the members' scores, and training refines it: from
    random weights a few epochs left it below the members."""

    def __init__(self, members: list[WindowNet], n_tags: int):
        super().__init__()
        self.members = members   # frozen; a plain list, so not parameters of the joiner
        self.join = torch.nn.Linear(sum(m.cfg.top_hidden for m in members), n_tags)
        self.criterion = SentenceLikelihood(n_tags)
        with torch.no_grad():
            self.join.weight.copy_(torch.cat([m.l2.weight for m in members], 1) / len(members))
            self.join.bias.copy_(torch.stack([m.l2.bias for m in members]).mean(0))
            if all(isinstance(m.criterion, SentenceLikelihood) for m in members):
                for name in ("transitions", "start"):
                    getattr(self.criterion, name).copy_(torch.stack(
                        [getattr(m.criterion, name) for m in members]).mean(0))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            h = torch.cat([m.hidden(ids) for m in self.members], -1)
        return self.join(h)

    def weights(self) -> dict[str, np.ndarray]:
        return {"join.weight": self.join.weight.detach().numpy().copy(),
                "join.bias": self.join.bias.detach().numpy().copy(),
                **{k: v.detach().numpy().copy()
                   for k, v in self.criterion.decoding_weights().items()}}


def train_ensemble(cfg: TrainConfig, seeds: Sequence[int], joined_epochs: int = 0) -> dict:
    """Train (or resume) the members, then the joining layer; -> ensemble.json's content."""
    out = Path(cfg.out)
    data = prepare(cfg)
    seeds = train_seeds(seeds, out, lambda seed, folder: train(
        replace(cfg, seed=seed, out=str(folder)), data))
    names = [f"seed-{s}" for s in seeds]
    joiner = None
    if joined_epochs:
        def joiner(members: list[TaskModel]) -> float:
            return train_joiner(cfg, out, names, joined_epochs, members, data.train,
                                data.dev, data.task)
    spec = seed_ensemble(out, cfg.task, names, seeds, data.task, data.dev, ("vote", "mean"),
                         {"seeds": list(seeds), "joined_epochs": joined_epochs,
                          "command": command_line()}, joiner)
    write_ensemble_card(out)
    return spec


def train_seeds(seeds: Sequence[int], out: Path, train_one: Callable[[int, Path], object]
                ) -> tuple[int, ...]:
    """The members of an ensemble: `train_one(seed, out/seed-<seed>)` once per seed, which
    must be two different ones or more; a finished member (its history.json) is kept, an
    unfinished one resumes from its checkpoint.  -> the seeds."""
    seeds = checked_seeds(seeds)
    for seed in seeds:
        folder = out / f"seed-{seed}"
        if not (folder / "history.json").exists():
            train_one(seed, folder)
    return seeds


def seed_ensemble(folder: Path, task_name: str, names: list[str], seeds: Sequence[int],
                  task: TaskSpec, dev: list, ways: Sequence[str], info: dict,
                  joiner: Callable[[list[TaskModel]], float] | None = None) -> dict:
    """Make `folder` the ensemble of the members `names` (folders relative to it, one per
    seed): the members and each way of combining them (`ways`, and the joining layer that
    `joiner` trains, saved as joined.npz) scored on dev, the best (the first of equals)
    becoming the tagger's; -> ensemble.json's content."""
    folder.mkdir(parents=True, exist_ok=True)   # before a member's ".." is followed
    members = [TaskModel.load(folder / n) for n in names]
    scores = {f"seed-{s}": score(m, task, dev) for s, m in zip(seeds, members, strict=True)}
    for how in ways:
        scores[how] = score(EnsembleModel(members, how), task, dev)
    if joiner is not None:
        scores["joined"] = joiner(members)
    combine = max((h for h in (*ways, "joined") if h in scores), key=scores.get)
    return save_ensemble(folder, task_name, names, combine, scores, info,
                         "joined.npz" if joiner is not None else None)


def score(model, task, dev: list) -> float:
    return score_predictions(task, dev, predict_gold_inputs(model, task, dev))[0]["score"]


class JoinedUnit:
    """The joining layer as a unit of the training loop (senna.train.loop): its batches are
    the training examples, its dev score the runtime's (`EnsembleModel` "joined"), and its
    best weights go to out/joined.npz."""

    scored = True

    def __init__(self, joiner: Joiner, examples: list, tags, batch_size: int,
                 members: list[TaskModel], task, dev: list, out: Path):
        self.joiner, self.examples, self.tags, self.batch_size = joiner, examples, tags, \
            batch_size
        self.members, self.task, self.dev, self.out = members, task, dev, out
        self.name, self.best, self.best_epoch, self.opt = "joined", -1.0, 0, None

    @property
    def module(self) -> torch.nn.Module:
        return self.joiner

    @property
    def steps(self) -> int:
        return -(-len(self.examples) // self.batch_size)

    def make_optimizer(self, named, lr: float) -> None:
        self.opt = optimizer(named, lr)

    def start_epoch(self, epoch: int) -> None:
        self.joiner.train()

    def batches(self, rng: np.random.Generator):
        return batches(self.examples, self.batch_size, self.tags, rng)

    def loss(self, b: Batch, rng: np.random.Generator) -> tuple[torch.Tensor, int, int]:
        ids, tags = torch.from_numpy(b.ids), torch.from_numpy(b.tags)
        mask = torch.arange(ids.shape[1])[None, :] < torch.from_numpy(b.lengths)[:, None]
        loss = self.joiner.criterion.nll(self.joiner(ids), tags, mask).sum()
        return loss, int(b.lengths.sum()), len(self.tags)

    def evaluate(self) -> float:
        self._weights = self.joiner.weights()
        self._score = score(EnsembleModel(self.members, "joined", self._weights), self.task,
                            self.dev)
        return self._score

    def keep(self, epoch: int, seconds: float) -> None:
        self.best, self.best_epoch = self._score, epoch
        np.savez(self.out / "joined.npz", **self._weights)

    def finish(self) -> None:
        """Nothing to record: the ensemble's files are written once its layer is trained."""


def train_joiner(cfg: TrainConfig, out: Path, names: list[str], epochs: int,
                 members: list[TaskModel], train_sents: list, dev: list, task) -> float:
    """The joining layer trained by the one loop; the best dev epoch is saved as
    out/joined.npz -> its dev score."""
    torch.manual_seed(cfg.seed)
    saved = [load_model(out / n) for n in names]
    first = saved[0]
    # Every member reads the first one's ids, so its character network its spellings too.
    nets = [bind_spellings(network_from_saved(s), first.featurizer) for s in saved]
    for net in nets:
        net.eval()
        net.requires_grad_(False)
    unit = JoinedUnit(Joiner(nets, len(first.tags)),
                      make_examples(task, train_sents, first.featurizer), first.tags,
                      cfg.batch_size, members, task, dev, out)
    fit(Run([unit], out, cfg.seed, epochs, patience=epochs, lr=cfg.lr, checkpoints=False,
            hint=f"lower --lr (now {cfg.lr:g})"))
    return unit.best
