"""The one training loop: epochs of SGD steps over a run's units, the best dev model kept.

A unit is a tagging task (`senna.train.tagging.Member`), an auxiliary task of a joint run
(`senna.train.auxiliary`) or an ensemble's joining layer (`senna.train.ensemble`).  Each
unit has a `name`, a `module`, its own optimizer `opt`, `steps` batches per epoch, and

* `start_epoch(epoch)`: training mode, its dropout and learning rates;
* `batches(rng)`: its batches of one epoch (auxiliary tasks draw their own: None);
* `loss(batch, rng)`: (loss, words, tags), the last two the divergence guard's yardstick;
* `make_optimizer(named, lr)`: its optimizer over its own parameters (`lr`: the run's rate,
  for units without one of their own);
* `evaluate()`: its dev score; a `scored` unit also has `best`, `best_epoch` and
  `keep(epoch, seconds)`, which saves the model just evaluated as its best, and `finish()`,
  called when the run has ended.

Parameters that several units share (the word table of a joint run) get one more SGD
optimizer.  What the loop does around the steps is the same for every run: per-epoch
random numbers (so that a resumed run draws the same ones), the divergence guard
(senna.train.guard), weight averaging (each tagging task's `avg`, updated after every step),
dev scoring and early stopping (`patience`), an atomic checkpoint to resume from
(senna.train.resume), the dev curve, and the finished run's history.json.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from senna.datasets import Data, read_data
from senna.nn.networks import fan_in
from senna.train.averaging import AVERAGE_DIR, averaged
from senna.train.config import TrainConfig
from senna.train.guard import check_dev, check_loss, check_weights
from senna.train.resume import (
    CHECKPOINT,
    STATE_FILE,
    fresh_state,
    reading,
    resume,
    save_auxiliary,
    save_optimizers,
    write_checkpoint,
)
from senna.train.tagging import Member


@dataclass
class Run:
    """A training run: its units (tagging tasks first) and the schedule they share.
    `lr`: the SGD rate of the shared parameters; `hint`: what the guard tells the user to
    change; `checkpoints`: write OUT/checkpoint, resume from it and record the run (off
    for a joining layer trained in minutes)."""

    units: list
    out: Path
    seed: int
    epochs: int
    patience: int
    max_minutes: float = 0.0
    sampling: str = "proportional"
    lr: float = 0.05
    hint: str = "lower the learning rate"
    checkpoints: bool = True

    @property
    def scored(self) -> list:
        return [u for u in self.units if u.scored]

    @property
    def averages(self) -> list:
        return [u.avg for u in self.units if getattr(u, "avg", None)]


def optimizers(units: Sequence, lr: float) -> torch.optim.Optimizer | None:
    """Each unit's own parameters get its own optimizer (a tagging task's from its settings,
    an auxiliary task's SGD); the shared ones (found in more than one unit) one SGD
    optimizer -> returned (None: nothing is shared)."""
    owners: dict[int, int] = {}
    for u in units:
        for p in {id(p): p for p in u.module.parameters()}.values():
            owners[id(p)] = owners.get(id(p), 0) + 1
    shared_groups, seen = [], set()
    for u in units:
        named = {n: p for n, p in u.module.named_parameters() if p.requires_grad}
        own = {n: p for n, p in named.items() if owners[id(p)] == 1}
        u.make_optimizer(own.items(), lr)
        for n, p in named.items():
            if owners[id(p)] > 1 and id(p) not in seen:
                seen.add(id(p))
                shared_groups.append({"params": [p], "lr": lr / fan_in(n, p, named)})
    return torch.optim.SGD(shared_groups, lr=lr) if shared_groups else None


def epoch_random(seed: int, epoch: int, alone: bool) -> np.random.Generator:
    """The epoch's random numbers: a generator for the batches and the feature dropout,
    and torch's seed for dropout.  A unit trained alone takes its batches straight from the
    generator (and torch's seed from the epoch number), so that single-task models rebuild
    bit-identically across versions."""
    rng = np.random.default_rng([seed, epoch])
    torch.manual_seed(seed * 100_003 + epoch if alone else int(rng.integers(1 << 62)))
    return rng


def schedule(units: Sequence, sampling: str, rng: np.random.Generator) -> Iterator[tuple]:
    """One epoch of (unit, batch) steps.  One unit: its batches.  Several:
    `sampling="proportional"`: every batch of every unit once, in random order, so a unit
    is picked in proportion to its training set's size; "uniform": each step picks a unit
    uniformly at random (its batches cycle), for as many steps, so small tasks are seen
    more often."""
    if len(units) == 1:
        yield from ((units[0], b) for b in units[0].batches(rng))
        return

    def stream(u, epoch_seed: int) -> Iterator:
        k = 0
        while True:
            yield from u.batches(np.random.default_rng([epoch_seed, k]))
            k += 1

    sizes = [u.steps for u in units]
    if sampling == "proportional":
        order = np.concatenate([np.full(n, i) for i, n in enumerate(sizes)])
        rng.shuffle(order)
    else:
        order = rng.integers(0, len(units), sum(sizes))
    streams = [stream(u, int(rng.integers(1 << 31))) for u in units]
    for i in order:
        yield units[i], next(streams[i])


def fit(run: Run) -> dict:
    """Train until `epochs`, `patience` or `max_minutes` ends the run; -> its state (epoch,
    history, seconds, best score and epoch of each scored unit)."""
    units, out = run.units, run.out
    shared = optimizers(units, run.lr)
    state = resume(out, units, shared, run.epochs) if run.checkpoints else fresh_state([])
    for u in units:
        if getattr(u, "cfg", None) is not None:
            with reading(out / CHECKPOINT / u.name / AVERAGE_DIR, out / CHECKPOINT):
                u.avg = averaged(u.cfg, u.net, out / CHECKPOINT / u.name, state)
    plot = run.checkpoints and can_plot()
    alone = len(units) == 1
    for epoch in range(state["epoch"] + 1, run.epochs + 1):
        t0 = time.perf_counter()
        rng = epoch_random(run.seed, epoch, alone)
        for u in units:
            u.start_epoch(epoch)
        losses = dict.fromkeys((u.name for u in units), 0.0)
        for u, batch in tqdm(schedule(units, run.sampling, rng), desc=f"epoch {epoch}",
                             total=sum(u.steps for u in units), leave=False, mininterval=2):
            u.opt.zero_grad(set_to_none=True)
            if shared is not None:
                shared.zero_grad(set_to_none=True)
            loss, words, n_tags = u.loss(batch, rng)
            value = loss.item()
            check_loss(value, words, n_tags, epoch, run.hint, "" if alone else u.name)
            loss.backward()
            u.opt.step()
            if shared is not None:
                shared.step()
            for a in run.averages:   # each step may move shared weights: every average follows
                a.update()
            losses[u.name] += value
        state["seconds"] += time.perf_counter() - t0
        state["epoch"] = epoch
        end_of_epoch(run, epoch, state, {k: v / u.steps for (k, v), u in
                                         zip(losses.items(), units, strict=True)})
        if run.checkpoints:
            checkpoint(run, shared, state)
        if plot:
            plot_curves(state["history"], out / "curve.png", run.scored)
        if all(epoch - u.best_epoch >= run.patience for u in run.scored):
            break
        if run.max_minutes and state["seconds"] > run.max_minutes * 60:
            break
    if run.checkpoints:
        record(state, [out, *(u.model_dir for u in run.scored
                              if out not in u.model_dir.parents and u.model_dir != out
                              and u.model_dir.exists())], plot, run.scored)
    for u in run.scored:
        u.finish()
    return state


def end_of_epoch(run: Run, epoch: int, state: dict, losses: dict[str, float]) -> None:
    """Score every unit on dev; keep the scored ones that improved, unless one diverged
    (senna.train.guard): every unit is checked before any is saved, since they share
    weights.  Appends the epoch to the history and prints it."""
    scores = {u.name: u.evaluate() for u in run.units}
    name = (lambda u: "") if len(run.units) == 1 else (lambda u: u.name)
    for u in run.scored:
        if getattr(u, "saved", None) is not None:
            check_weights(u.saved.weights, epoch, run.hint, name(u))
        check_dev([h["dev"].get(u.name, 1.0) for h in state["history"]] + [scores[u.name]],
                  epoch, run.hint, name(u))
    for u in run.scored:
        if scores[u.name] > u.best:
            u.keep(epoch, state["seconds"])
    row = {"epoch": epoch, "seconds": round(state["seconds"], 1), "dev": scores,
           "loss": losses}
    last = {u.name: u.last_score for u in run.scored if getattr(u, "last_score", None)
            is not None}
    if last:   # the last iterates' scores of the averaged tasks: what averaging gives
        row["dev_last"] = last
        state["average_steps"] = run.averages[0].steps
    state["history"].append(row)
    state["best"] = {u.name: {"score": u.best, "epoch": u.best_epoch} for u in run.scored}
    tqdm.write(f"epoch {epoch}: dev " + "  ".join(f"{k} {v:.2f}" for k, v in scores.items())
               + f"  ({state['seconds'] / 60:.1f} min)")


def checkpoint(run: Run, shared: torch.optim.Optimizer | None, state: dict) -> None:
    """The last weights of every unit and the optimizers' state, for an exact resume,
    written as one checkpoint (senna.train.resume.write_checkpoint)."""
    def fill(folder: Path) -> None:
        folder.mkdir(parents=True)
        for u in run.scored:
            u.save(folder / u.name)
        save_optimizers(folder, run.units, shared, state["epoch"])
        save_auxiliary(folder, [u for u in run.units if not u.scored])
        (folder / STATE_FILE).write_text(json.dumps(state, indent=1), encoding="utf-8")

    write_checkpoint(run.out, fill)


def record(state: dict, dirs: list[Path], plot: bool, scored: Sequence) -> None:
    """The finished run's record (history.json: its presence says the run finished) and
    dev curves (curve.png) in each of `dirs`: the run's directory and the model directories
    outside it, so that a shipped model carries the curves of the run it came from."""
    for where in dirs:
        if plot:
            plot_curves(state["history"], where / "curve.png", scored)
        (where / "history.json").write_text(json.dumps(state, indent=1))


def can_plot() -> bool:
    """Whether matplotlib is there to draw curve.png; checked when a run starts, since the
    plot is optional: without it a note says so and training goes on."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        tqdm.write("note: no curve.png is drawn: matplotlib is not installed "
                   "(pip install matplotlib)")
        return False
    return True


def plot_curves(history: list[dict], path: Path, scored: Sequence) -> None:
    """Each task's dev score by epoch, the axis labelled by the task's measure."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    measures = {getattr(getattr(u, "spec", None), "score_name", "score") for u in scored}
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for task in history[0]["dev"]:
        ax.plot([h["epoch"] for h in history], [h["dev"][task] for h in history], marker=".",
                label=task)
    ax.set_xlabel("epoch")
    ax.set_ylabel(f"dev {measures.pop() if len(measures) == 1 else 'score'}")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def train(cfg: TrainConfig, data: Data | None = None) -> dict:
    """Train one task, keep the best dev model in cfg.out; -> the final training state.
    `data`: the task and sentences, prepared by senna.train.prepare (default: read as the
    settings say, which needs no predicted input columns)."""
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    if data is None:
        if cfg.predicted_columns:
            raise ValueError("predicted_columns are filled in by the data step: "
                             "train(cfg, senna.train.prepare.prepare(cfg))")
        data = read_data(cfg)
    member = Member.create(cfg, data)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    return fit(Run([member], out, cfg.seed, cfg.epochs, cfg.patience, cfg.max_minutes,
                   lr=cfg.lr, hint=f"lower --lr (now {cfg.lr:g})"))
