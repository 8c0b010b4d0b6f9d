"""`senna train --tasks pos,chunk,...`: one network trained jointly on several tasks (JMLR 2011
section 5, Figure 5; ICML 2008).

Every task keeps its own network head, tags, criterion and task-specific features; the
lookup tables of the features they have in common (words and caps: `Feature.shared`) are
one table, and with `share_l1` the window tasks' first linear layer is one layer too (its
columns for the task's own features stay the task's).  Training repeatedly picks a task,
takes a batch of its training sentences and takes a gradient step (a task may join twice,
on other data, as "task@label": `task_key`):

* `sampling="proportional"`: an epoch is every batch of every task once, in random order,
  so a task is picked in proportion to its training set's size;
* `sampling="uniform"`: each step picks a task uniformly at random (its batches cycle), for
  as many steps as the proportional epoch has, so small tasks are seen more often.

Auxiliary tasks (ICML 2008; senna.train.auxiliary) join with `lm_corpus` (the ranking
language model on a prepared corpus) and `synonyms` (WordNet): they share the word table,
take `aux_steps` batches per epoch and are scored on held-out ranking pairs.

After every epoch each task is scored on its dev set and its best model so far is saved as
an ordinary model directory `out/<task>/` (the runtime loads it like any other), with the
joint settings in its config and card.  Parameters shared by several tasks are updated by
one plain SGD optimizer (fan-in scaled rates, Remark 7); each task's own parameters by its
own optimizer (SGD, or Adam for SRL's sentence network as in its single-task recipe), and
each task's network its own dropout and learning-rate decay, as its settings say.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from senna.features import KINDS, WordFeature
from senna.io.checkpoint import SavedModel, load_model, save_model
from senna.lm.wordnet import related_pairs
from senna.nn.networks import (
    Tagger,
    WindowNet,
    fan_in,
    load_weights,
    share_first_layer,
    share_table,
)
from senna.runtime.pipeline import default_model_dir
from senna.tasks import TaskSpec, get_task
from senna.train.auxiliary import LanguageModelTask, RankingTask, SynonymTask
from senna.train.averaging import AVERAGE_DIR, WeightAverage, averaged, score_epoch
from senna.train.card import write_card
from senna.train.data import Batch, Example, batches, make_examples
from senna.train.guard import check_dev, check_loss, check_weights
from senna.train.loop import (
    TrainConfig,
    build,
    can_plot,
    command_line,
    drop_features,
    epoch_settings,
    optimizer,
    step_loss,
    training_examples,
    training_splits,
)
from senna.train.resume import (
    CHECKPOINT,
    STATE_FILE,
    read_state,
    reading,
    recover,
    write_checkpoint,
)
from senna.train.setup import word_vocab

SAMPLING = ("proportional", "uniform")
JOINT_HINT = "lower the learning rates (lr, and the tasks' own lr)"
# Settings every task must share: they shape the shared tables and layer.
COMMON = ("embeddings", "word_dim", "max_words", "min_count", "seed", "batch_size", "threads")


def task_key(name: str) -> str:
    """A task's name in a joint run: the task's own, or "task@label" for another copy of a
    task with its own data and output layer (POS on the CoNLL-2000 WSJ text beside POS on
    EWT: "pos@wsj"), which shares the tables and first layer like any other task."""
    base, at, label = name.partition("@")
    if at and not label.isidentifier():
        raise ValueError(f"a joint task is TASK or TASK@LABEL (LABEL: letters, digits, _), "
                         f"got {name!r}")
    return get_task(base).name + (f"@{label}" if at else "")


def task_of(key: str) -> TaskSpec:
    """The task a joint run's task name (`task_key`) trains."""
    return get_task(key.partition("@")[0])


@dataclass
class JointConfig:
    tasks: dict[str, dict]           # task (or task@label: `task_key`) -> its settings
    out: str = "runs/joint"
    models: str | None = None        # each task's best model goes to <models>/<task> (default:
                                     # out; "senna/models" ships them), the rest stays in out
    ship: list[str] | None = None    # the tasks whose models go to `models` (default: all);
                                     # the others, trained as partners only, stay in out
    share_l1: bool = True            # window tasks share the first linear layer (Figure 5)
    sampling: str = "proportional"   # see the module docstring
    epochs: int = 30
    lr: float = 0.05                 # SGD rate of the shared parameters (/ fan-in)
    patience: int = 6                # stop when no task improved for this many epochs
    max_minutes: float = 0.0
    # Auxiliary tasks (ICML 2008): a prepared corpus (`senna lm prepare`) for the language
    # model, a WordNet directory for the synonyms task; batches of each per epoch (0: the
    # tagging tasks' mean) and windows or word pairs per batch.
    lm_corpus: str | None = None
    synonyms: str | None = None
    aux_steps: int = 0
    aux_batch: int = 64
    # Settings that shape the shared parts (None: the first task's setting that has one).
    embeddings: str | None = None
    word_dim: int | None = None
    max_words: int | None = None
    min_count: int | None = None
    seed: int | None = None
    batch_size: int | None = None
    threads: int | None = None
    command: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        n = len(self.tasks) + bool(self.lm_corpus) + bool(self.synonyms)
        if not self.tasks or n < 2:
            raise ValueError("joint training needs a tagging task and at least one more task "
                             f"(tagging, lm_corpus or synonyms), got {list(self.tasks)}")
        if self.aux_steps < 0 or self.aux_batch < 1:
            raise ValueError("aux_steps must be 0 or more and aux_batch at least 1")
        if self.sampling not in SAMPLING:
            raise ValueError(f"sampling must be one of {SAMPLING}, got {self.sampling!r}")
        if self.epochs < 1 or (self.batch_size or 1) < 1 or not self.lr > 0:
            raise ValueError("epochs and batch_size must be at least 1 and lr positive")
        if isinstance(self.ship, str):
            self.ship = [t for t in self.ship.split(",") if t]
        if self.ship is not None:
            self.ship = [task_key(t) for t in self.ship]
            if set(self.ship) - set(self.tasks):
                raise ValueError(f"ship names tasks not trained here: "
                                 f"{sorted(set(self.ship) - set(self.tasks))}")
        elif self.models and Path(self.models).resolve() == default_model_dir():
            # An experiment copied from a shipping recipe, its `ship` dropped, would
            # otherwise overwrite every shipped model it trains.
            raise ValueError(f"models is the shipped models' directory ({self.models}): name "
                             f"the tasks to ship there with ship (e.g. \"ship\": "
                             f"{json.dumps(list(self.tasks)[:1])}), or drop models to keep "
                             f"the run's models in out")

    @classmethod
    def from_dict(cls, d: dict, base: Path | None = None) -> JointConfig:
        """`tasks` maps each task to a dict of settings, to a recipe file (JSON) holding
        them, relative to `base`, or to {"recipe": file, setting: value, ...}: the file's
        settings with some changed (a partner trained as the run needs it, e.g. with the
        hidden layer it shares, while its own shipped recipe differs)."""
        known = {f.name for f in fields(cls)}
        if set(d) - known:
            raise ValueError(f"unknown joint training settings {sorted(set(d) - known)}")
        tasks = {}
        for name, settings in d.get("tasks", {}).items():
            changed = {}
            if isinstance(settings, dict) and "recipe" in settings:
                changed = {k: v for k, v in settings.items() if k != "recipe"}
                settings = settings["recipe"]
            if isinstance(settings, str):
                path = (base or Path()) / settings
                try:
                    settings = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, json.JSONDecodeError) as e:
                    raise ValueError(f"{path}: cannot read the {name} settings ({e})") from None
            tasks[task_key(name)] = {**settings, **changed}
        return cls(**{**d, "tasks": tasks})

    def common(self, key: str):
        """A setting every task must share: the joint one, else the first task's."""
        if getattr(self, key) is not None:
            return getattr(self, key)
        given = [t[key] for t in self.tasks.values() if key in t]
        return given[0] if given else getattr(TrainConfig, key)

    def model_dir(self, name: str) -> Path:
        """Where a task's best model is saved: <models>/<task> if it is shipped, else
        <out>/<task>."""
        shipped = self.models and (self.ship is None or name in self.ship)
        return Path(self.models if shipped else self.out) / name

    def task_config(self, name: str) -> TrainConfig:
        """A task's settings with the joint ones that must agree put in."""
        settings = {**self.tasks[name], "task": task_of(name).name,
                    "out": str(self.model_dir(name))}
        settings.update({k: self.common(k) for k in COMMON})
        return TrainConfig.from_dict(settings)


@dataclass
class Member:
    """One task of the joint model."""

    spec: TaskSpec
    cfg: TrainConfig
    net: Tagger
    saved: SavedModel
    dev: list
    examples: list[Example]
    dev_examples: list[Example]
    opt: torch.optim.Optimizer | None = None
    rates: list[float] = field(default_factory=list)
    best: float = -1.0
    best_epoch: int = 0
    avg: WeightAverage | None = None   # the weights' moving average (its settings' --average)
    key: str = ""                      # its name in the run ("pos@wsj"; empty: the task's)

    @property
    def name(self) -> str:
        return self.key or self.spec.name

    @property
    def module(self) -> torch.nn.Module:
        return self.net

    @property
    def steps(self) -> int:
        """Batches per epoch."""
        return -(-len(self.examples) // self.cfg.batch_size)


Unit = Member | RankingTask   # a tagging task or an auxiliary one


def build_auxiliary(cfg: JointConfig, members: list[Member]) -> list[RankingTask]:
    """The auxiliary tasks, reading the first tagging task's (shared) word table."""
    first = members[0]
    j = first.saved.featurizer.index(WordFeature)
    table = first.net.emb.tables[j]
    words = first.saved.featurizer.vocabs[first.saved.featurizer.specs[j].name]
    steps = cfg.aux_steps or round(np.mean([m.steps for m in members]))
    seed = cfg.common("seed")
    out: list[RankingTask] = []
    if cfg.lm_corpus:
        out.append(LanguageModelTask(cfg.lm_corpus, words, table, steps, batch=cfg.aux_batch,
                                     seed=seed))
    if cfg.synonyms:
        out.append(SynonymTask(related_pairs(cfg.synonyms), words, table, steps,
                               batch=cfg.aux_batch, seed=seed))
    return out


def build_members(cfg: JointConfig) -> list[Member]:
    """Read every task's data, build one word dictionary from all training sentences, and
    a network per task with the shared tables (and first layer) tied."""
    cfgs = {name: cfg.task_config(name) for name in cfg.tasks}
    splits = {name: training_splits(c, task_of(name)) for name, c in cfgs.items()}
    first = next(iter(cfgs.values()))
    every = [s for train, _ in splits.values() for s in train]
    words = word_vocab(first, every)
    vocabs = shared_vocabs(cfgs, every, words)
    members = []
    for name, c in cfgs.items():
        spec = task_of(name)
        net, saved = build(c, spec, splits[name][0], words, vocabs)
        saved.info["joint"] = {"tasks": list(cfg.tasks), "share_l1": cfg.share_l1,
                               "auxiliary": auxiliary_names(cfg),
                               "sampling": cfg.sampling, "command": cfg.command}
        members.append(Member(spec, c, net, saved, splits[name][1],
                              training_examples(c, spec, splits[name][0], saved),
                              make_examples(spec, splits[name][1], saved.featurizer),
                              key=name))
    tie(members, cfg.share_l1)
    return members


def auxiliary_names(cfg: JointConfig) -> list[str]:
    """The auxiliary tasks of a run, as its model cards name them."""
    return ([f"the language model (corpus {cfg.lm_corpus})"] if cfg.lm_corpus else []) + \
        ([f"WordNet synonyms ({cfg.synonyms})"] if cfg.synonyms else [])


def shared_vocabs(cfgs: dict[str, TrainConfig], sentences: list, words) -> dict:
    """Vocabularies of the shared features (words: `words`; caps; characters), from every
    task's training sentences: one table needs one vocabulary."""
    out = {}
    for name, c in cfgs.items():
        for spec in task_of(name).features(c.features):
            kind = KINDS[spec.kind]
            if kind.shared and spec.name not in out:
                out[spec.name] = kind.fit_vocab(spec, sentences, words, c.max_words)
    return out


def tie(members: list[Member], share_l1: bool) -> None:
    """One lookup table per shared feature (the first task's, with its initial vectors);
    with `share_l1`, one first layer for the window tasks' shared columns."""
    tables: dict[str, torch.nn.Module] = {}
    for m in members:
        for j, kind in enumerate(m.saved.featurizer.kinds):
            if kind.shared:
                first = tables.setdefault(kind.spec.name, m.net.emb.tables[j])
                try:
                    m.net.emb.tables[j] = share_table(m.net.emb.tables[j], first)
                except ValueError:
                    raise ValueError(f"feature {kind.spec.name!r} differs between "
                                     "tasks") from None
    window = [m for m in members if isinstance(m.net, WindowNet)]
    if share_l1 and len(window) > 1:
        share_first_layer([m.net for m in window],  # type: ignore[misc]
                          [[k.shared for k in m.saved.featurizer.kinds] for m in window])


def optimizers(units: list[Unit], lr: float) -> torch.optim.Optimizer:
    """Each task's own parameters get its own optimizer (a tagging task's from its settings,
    an auxiliary task's SGD); the shared ones (found in more than one network) one SGD
    optimizer -> returned."""
    owners: dict[int, int] = {}
    for m in units:
        for p in {id(p): p for p in m.module.parameters()}.values():
            owners[id(p)] = owners.get(id(p), 0) + 1
    shared_groups, seen = [], set()
    for m in units:
        named = {n: p for n, p in m.module.named_parameters() if p.requires_grad}
        own = {n: p for n, p in named.items() if owners[id(p)] == 1}
        m.opt = optimizer(own.items(), *((m.cfg.lr, m.cfg.optimizer) if isinstance(m, Member)
                                         else (lr, "sgd")))
        for n, p in named.items():
            if owners[id(p)] > 1 and id(p) not in seen:
                seen.add(id(p))
                shared_groups.append({"params": [p], "lr": lr / fan_in(n, p, named)})
    return torch.optim.SGD(shared_groups, lr=lr)


def schedule(units: list[Unit], sampling: str, rng: np.random.Generator
             ) -> Iterator[tuple[Unit, Batch | None]]:
    """One epoch of (task, batch) steps, see the module docstring; auxiliary tasks draw
    their own batches (None here)."""
    def stream(m: Unit, epoch_seed: int) -> Iterator[Batch | None]:
        k = 0
        while True:
            if not isinstance(m, Member):
                yield None
                continue
            sub = np.random.default_rng([epoch_seed, k])
            yield from batches(m.examples, m.cfg.batch_size, m.saved.tags, sub)
            k += 1

    sizes = [m.steps for m in units]
    if sampling == "proportional":
        order = np.concatenate([np.full(n, i) for i, n in enumerate(sizes)])
        rng.shuffle(order)
    else:
        order = rng.integers(0, len(units), sum(sizes))
    streams = [stream(m, int(rng.integers(1 << 31))) for m in units]
    for i in order:
        yield units[i], next(streams[i])


def train_joint(cfg: JointConfig) -> dict:
    """Train, keep each task's best dev model in `cfg.model_dir(task)`; -> the
    training state."""
    torch.set_num_threads(cfg.common("threads") or torch.get_num_threads())
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    cfg.command = cfg.command or command_line()
    members = build_members(cfg)
    aux = build_auxiliary(cfg, members)
    units: list[Unit] = [*members, *aux]
    shared_opt = optimizers(units, cfg.lr)
    for m in members:   # the first epoch's rates, before a resumed optimizer's decayed ones
        m.rates = [g["lr"] for g in m.opt.param_groups]
    state = resume(out, members, aux, shared_opt)
    for m in members:
        with reading(out / CHECKPOINT / m.name / AVERAGE_DIR, out / CHECKPOINT):
            m.avg = averaged(m.cfg, m.net, out / CHECKPOINT / m.name, state)
    if state["epoch"]:
        print(f"resumed {out} after epoch {state['epoch']}")
    averages = [m.avg for m in members if m.avg]
    plot = can_plot()
    for epoch in range(state["epoch"] + 1, cfg.epochs + 1):
        t0 = time.perf_counter()
        rng = np.random.default_rng([cfg.common("seed"), epoch])
        torch.manual_seed(int(rng.integers(1 << 62)))   # dropout, as in senna.train.loop
        losses = {m.name: 0.0 for m in units}
        for m in units:   # each task's dropout and learning-rate decay, as trained alone
            if isinstance(m, Member):
                epoch_settings(m.net, m.opt, m.rates, m.cfg, epoch)
            else:
                m.module.train()
        for m, batch in tqdm(schedule(units, cfg.sampling, rng), desc=f"epoch {epoch}",
                             total=sum(m.steps for m in units), leave=False, mininterval=2):
            m.opt.zero_grad(set_to_none=True)
            shared_opt.zero_grad(set_to_none=True)
            if isinstance(m, Member):
                drop_features(batch.ids, m.saved.featurizer, m.cfg, rng)
                loss = step_loss(m.net, batch, m.cfg.distill, m.cfg.adversarial,
                                 m.cfg.distill_temperature)
                words, n_tags = int(batch.lengths.sum()), len(m.saved.tags)
            else:   # a ranking loss: its hinge is at most about 1 per pair
                loss = m.loss(rng)
                words, n_tags = cfg.aux_batch, 1
            value = loss.item()
            check_loss(value, words, n_tags, epoch, JOINT_HINT, m.name)
            loss.backward()
            m.opt.step()
            shared_opt.step()
            for a in averages:   # each step moves shared weights: every average follows
                a.update()
            losses[m.name] += value
        state["seconds"] += time.perf_counter() - t0
        state["epoch"] = epoch
        scores, last = end_of_epoch(members, epoch, state["seconds"], state["history"])
        scores.update({a.name: a.evaluate() for a in aux})
        state["history"].append({"epoch": epoch, "seconds": round(state["seconds"], 1),
                                 "dev": scores, "loss": {m.name: losses[m.name] / m.steps
                                                         for m in units}})
        if last:   # the last iterates' scores of the averaged tasks
            state["history"][-1]["dev_last"] = last
            state["average_steps"] = averages[0].steps
        state["best"] = {m.name: {"score": m.best, "epoch": m.best_epoch}
                         for m in members}
        tqdm.write(f"epoch {epoch}: " + "  ".join(f"{k} {v:.2f}" for k, v in scores.items())
                   + f"  ({state['seconds'] / 60:.1f} min)")
        checkpoint(out, members, aux, shared_opt, state)
        if plot:
            plot_curves(state["history"], out / "curve.png")
        if all(epoch - m.best_epoch >= cfg.patience for m in members):
            break
        if cfg.max_minutes and state["seconds"] > cfg.max_minutes * 60:
            break
    record(state, [out, *(Path(m.cfg.out) for m in members
                          if Path(m.cfg.out).parent != out and Path(m.cfg.out).exists())],
           plot)
    return state


def end_of_epoch(members: list[Member], epoch: int, seconds: float, history: list[dict]
                 ) -> tuple[dict[str, float], dict[str, float]]:
    """Score every task on dev; save the ones that improved (in their settings' `out`,
    `JointConfig.model_dir`), unless one diverged (senna.train.guard, `history`: the
    earlier epochs'); -> (scores, the last iterates' scores of averaged tasks)."""
    results = {m.name: score_epoch(m.saved, m.net, m.avg, m.spec, m.dev, m.dev_examples)
               for m in members}
    for m in members:   # every task checked before any is saved: they share weights
        check_weights(m.saved.weights, epoch, JOINT_HINT, m.name)
        check_dev([h["dev"].get(m.name, 1.0) for h in history] + [results[m.name][0]["score"]],
                  epoch, JOINT_HINT, m.name)
    scores, last = {}, {}
    for m in members:
        score, kept, last_score = results[m.name]
        scores[m.name] = score["score"]
        if last_score is not None:
            last[m.name] = last_score
        if score["score"] > m.best:
            m.best, m.best_epoch = score["score"], epoch
            m.saved.info["dev"] = score
            m.saved.info["training"].update(epochs=epoch, seconds=round(seconds, 1))
            save_model(Path(m.cfg.out), kept)
            write_card(Path(m.cfg.out))
    return scores, last


def checkpoint(out: Path, members: list[Member], aux: list[RankingTask],
               shared_opt: torch.optim.Optimizer, state: dict) -> None:
    """The last weights of every task and the optimizers' state, for an exact resume,
    written as one checkpoint (senna.train.resume.write_checkpoint)."""
    def fill(folder: Path) -> None:
        for m in members:
            save_model(folder / m.name, m.saved)
            if m.avg:
                save_model(folder / m.name / AVERAGE_DIR,
                           replace(m.saved, weights=m.avg.weights()))
        optim = {"shared": shared_opt.state_dict(),
                 **{m.name: m.opt.state_dict() for m in [*members, *aux]}}
        torch.save(optim, folder / "optimizers.pt")
        torch.save({a.name: own_state(a) for a in aux}, folder / "auxiliary.pt")
        (folder / STATE_FILE).write_text(json.dumps(state, indent=1), encoding="utf-8")

    write_checkpoint(out, fill)


def own_state(task: RankingTask) -> dict[str, torch.Tensor]:
    """An auxiliary task's own layers (the shared word table is saved with the taggers)."""
    return {k: v for k, v in task.state_dict().items() if not k.startswith("table.")}


def resume(out: Path, members: list[Member], aux: list[RankingTask],
           shared_opt: torch.optim.Optimizer) -> dict:
    ckpt = recover(out)
    if not ckpt.exists():
        return {"epoch": 0, "history": [], "seconds": 0.0, "best": {}}
    state = read_state(ckpt)
    for m in members:
        with reading(ckpt / m.name, ckpt):
            saved = load_model(ckpt / m.name)
        if saved.tags.items != m.saved.tags.items or saved.net != m.saved.net:
            raise ValueError(f"{ckpt} holds another {m.name} network than these "
                             "settings build; use a new --out or delete the checkpoint")
        load_weights(m.net, saved.weights)
    with reading(ckpt / "optimizers.pt", ckpt):
        optim = torch.load(ckpt / "optimizers.pt", weights_only=True)
        shared_opt.load_state_dict(optim["shared"])
    with reading(ckpt / "auxiliary.pt", ckpt):
        saved_aux = torch.load(ckpt / "auxiliary.pt", weights_only=True) if aux else {}
    for a in aux:
        if a.name not in saved_aux:
            raise ValueError(f"{ckpt} has no {a.name} task; use a new --out")
        with reading(ckpt / "auxiliary.pt", ckpt):
            a.load_state_dict(saved_aux[a.name], strict=False)
            a.opt.load_state_dict(optim[a.name])
    for m in members:
        with reading(ckpt / "optimizers.pt", ckpt):
            m.opt.load_state_dict(optim[m.name])
        best = state["best"].get(m.name, {})
        m.best, m.best_epoch = best.get("score", -1.0), best.get("epoch", 0)
    return state


def record(state: dict, dirs: list[Path], plot: bool = True) -> None:
    """The finished run's record (history.json: its presence says the run finished) and
    dev curves (curve.png) in each of `dirs`: the run's directory and the model directories
    outside it, so that a shipped model carries the curves of the run it came from (the
    curves only with `plot`: matplotlib is installed)."""
    for where in dirs:
        if plot:
            plot_curves(state["history"], where / "curve.png")
        (where / "history.json").write_text(json.dumps(state, indent=1))


def plot_curves(history: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for task in history[0]["dev"]:
        ax.plot([h["epoch"] for h in history], [h["dev"][task] for h in history], marker=".",
                label=task)
    ax.set_xlabel("epoch")
    ax.set_ylabel("dev score")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def train_joint_seeds(cfg: JointConfig, seeds: list[int]) -> dict[str, dict]:
    """`senna train --config JOINT.json --seeds 1,2,3`: the joint run once per seed, into
    `out/seed-<s>/` (finished runs are kept, an unfinished one resumes), then for each
    tagging task an ensemble directory `out/<task>/` of the runs' models combined by their
    mean scores (`senna.runtime.ensemble`), with the members' and the ensemble's dev
    scores in its ensemble.json; -> task -> ensemble.json's content.  Why: SRL's members
    cannot be combined by vote (a path per predicate), and its ensemble teaches a single
    network (`senna.train.distill`)."""
    from senna.runtime.ensemble import EnsembleModel, save_ensemble
    from senna.runtime.model import TaskModel
    from senna.train.ensemble import score

    if len(set(seeds)) < 2:
        raise ValueError(f"an ensemble needs two different seeds or more, got {seeds}")
    out = Path(cfg.out)
    cfg.command = cfg.command or command_line()
    for s in seeds:
        run = replace(cfg, seed=s, out=str(out / f"seed-{s}"), models=None, ship=None)
        if not (Path(run.out) / "history.json").exists():
            train_joint(run)
    specs = {}
    for name in cfg.tasks:
        spec = task_of(name)
        names = [f"../seed-{s}/{name}" for s in seeds]
        (out / name).mkdir(parents=True, exist_ok=True)    # before its ".." is followed
        members = [TaskModel.load(out / name / n) for n in names]
        dev = training_splits(cfg.task_config(name), spec)[1]
        scores = {f"seed-{s}": score(m, spec, dev) for s, m in zip(seeds, members, strict=True)}
        scores["mean"] = score(EnsembleModel(members, "mean"), spec, dev)
        specs[name] = save_ensemble(out / name, spec.name, names, "mean", scores,
                                    {"seeds": seeds, "command": cfg.command})
    return specs
