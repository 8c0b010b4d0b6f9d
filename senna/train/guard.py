"""Stopping a run that diverged, before it saves a model that tags garbage.

Three signs, each checked where it shows first:

* a batch's loss is NaN or infinite: stop before the optimizer steps on it;
* a batch's loss is over `BLOWUP` times that of guessing its tags uniformly (each word's
  tag among K: log K per word, the loss of an untrained network): the weights ran away
  (--lr 1e30 gives losses near 1e32, finite in float32, and a dev score of 0);
* the dev score was 0 for `ZERO_EPOCHS` epochs in a row: nothing is learnt (a distilled
  run whose loss stayed near 600 scored 0.00 for eight epochs and went on until killed).

The first two stop the epoch before anything of it is saved, so the best model and the
checkpoint stay those of the last good epoch; the third stops before the epoch's
checkpoint is written.  Each raises `Diverged`, a ValueError: `senna train` prints it as one
error line and exits with status 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

BLOWUP = 1000.0    # times the loss of a uniform guess; training that learns stays near 1
ZERO_EPOCHS = 5    # epochs in a row with a dev score of 0


class Diverged(ValueError):
    """Training diverged; the message says where and what to change."""


def check_loss(loss: float, words: int, n_tags: int, epoch: int, hint: str,
               task: str = "") -> None:
    """Diverged unless a batch's loss (over `words` words, `n_tags` tags) is finite and
    under BLOWUP times a uniform guess's; `hint`: what to change."""
    where = f"training diverged in epoch {epoch}" + (f" ({task})" if task else "")
    if not math.isfinite(loss):
        raise Diverged(f"{where}: a batch's loss is {loss}; {hint}; nothing of this epoch "
                       "was saved")
    guess = words * max(math.log(n_tags), 1.0)
    if loss > BLOWUP * guess:
        raise Diverged(f"{where}: a batch's loss {loss:.3g} is over {BLOWUP:g} times that of "
                       f"guessing its tags ({guess:.3g}); {hint}; nothing of this epoch was "
                       "saved")


def check_weights(weights: Mapping[str, np.ndarray], epoch: int, hint: str,
                  task: str = "") -> None:
    """Diverged if an array of the epoch's weights holds NaN or infinity (the epoch's last
    step, whose loss no later batch showed)."""
    bad = [k for k, v in weights.items() if not np.isfinite(v).all()]
    if bad:
        raise Diverged(f"training diverged in epoch {epoch}" + (f" ({task})" if task else "")
                       + f": the weights {', '.join(bad[:3])} hold NaN or infinity; {hint}; "
                       "nothing of this epoch was saved")


def check_dev(scores: Sequence[float], epoch: int, hint: str, task: str = "") -> None:
    """Diverged if the last ZERO_EPOCHS dev scores (this epoch's last) are all 0."""
    last = scores[-ZERO_EPOCHS:]
    if len(last) == ZERO_EPOCHS and not any(last):
        raise Diverged(f"training stopped in epoch {epoch}" + (f" ({task})" if task else "")
                       + f": the dev score was 0 for {ZERO_EPOCHS} epochs in a row (epochs "
                       f"{epoch - ZERO_EPOCHS + 1}-{epoch}), so the run learns nothing; "
                       f"{hint}, or check the training data")
