"""Weight averaging: the dev score and the saved model use an exponential moving average of
the weights that SGD visits, not its last iterate.

Why: constant-rate SGD (the paper's schedule, which learning-rate decay did not improve on
here) ends each epoch at a noisy point around a good region; the average of the recent
points sits nearer its centre (Polyak & Juditsky 1992), at no cost at tagging time since
the averaged network is an ordinary one.  Training itself is unchanged: the average is a
copy beside the network, updated after every `every` optimizer steps.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from senna.io.checkpoint import load_model
from senna.io.saved_model import SavedModel
from senna.nn.networks import load_weights, weights_of
from senna.tasks import TaskSpec
from senna.train.config import TrainConfig
from senna.train.data import Example
from senna.train.dev import evaluate_model

AVERAGE_DIR = "average"   # beside a checkpoint's model: the averaged weights, for resuming


class WeightAverage:
    """An averaged copy of `net`; `decay` per step (0.999: a memory of about 1,000 steps)."""

    def __init__(self, net: torch.nn.Module, decay: float, every: int = 4):
        if not 0 < decay < 1:
            raise ValueError(f"weight averaging's decay must be in (0, 1), got {decay}")
        self.net = copy.deepcopy(net)
        self.decay, self.every, self.steps = decay, every, 0
        pairs = [(p, q) for p, q in zip(net.parameters(), self.net.parameters(), strict=True)
                 if p.requires_grad]
        self._src = [p for p, _ in pairs]
        self._dst = [q for _, q in pairs]

    @torch.no_grad()
    def update(self) -> None:
        """After an optimizer step.  Every `every` steps, move the average towards the
        weights: the bias-corrected exponential average (as Adam's moments), so the random
        initial weights weigh nothing and the memory is 1 / (1 - decay) steps from the
        start."""
        self.steps += 1
        if self.steps % self.every:
            return
        keep = self.decay ** self.every
        torch._foreach_lerp_(self._dst, self._src,
                             (1.0 - keep) / (1.0 - keep ** (self.steps // self.every)))

    def weights(self) -> dict[str, np.ndarray]:
        return weights_of(self.net)

    def load(self, weights: dict[str, np.ndarray], steps: int) -> None:
        """Resume: the average saved with a checkpoint, after `steps` updates."""
        load_weights(self.net, weights)
        self.steps = steps


def averaged(cfg: TrainConfig, net: torch.nn.Module, checkpoint: Path, state: dict
             ) -> WeightAverage | None:
    """The moving average of `net`'s weights that cfg.average asks for (None: off), resumed
    from `checkpoint` (a checkpoint's model directory) when the run is resumed."""
    if not cfg.average:
        return None
    avg = WeightAverage(net, cfg.average)
    if state["epoch"]:
        avg.load(load_model(checkpoint / AVERAGE_DIR, base_anywhere=True).weights,
                 state["average_steps"])
    return avg


def score_epoch(saved: SavedModel, net: torch.nn.Module, avg: WeightAverage | None,
                task: TaskSpec, sentences: Sequence, examples: Sequence[Example]
                ) -> tuple[dict, SavedModel, float | None]:
    """After an epoch: (the dev score of the model to keep, that model, the last iterate's
    score when the kept model is the average).  Sets `saved.weights` to the iterate's, for
    the checkpoint; the kept model shares `saved.info`."""
    saved.weights = weights_of(net)
    score = evaluate_model(saved, net, task, sentences, examples)
    if avg is None:
        return score, saved, None
    kept = replace(saved, weights=avg.weights())   # (the decoder reads its transitions)
    return evaluate_model(kept, avg.net, task, sentences, examples), kept, score["score"]
