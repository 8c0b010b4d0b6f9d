"""What one `senna train` does, decided before training (and without PyTorch): the settings
of a single-task or a joint run, each checked, and the seeds of an ensemble.  `make_plan`
is the one place where a config file, its overrides (the command line's options, or
keywords from Python) and the ensemble options become settings, so that `senna train` and
`senna.train.run` refuse the same things with the same messages.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from senna.settings import read_settings
from senna.tasks import normalize_tasks
from senna.train.config import MAX_SEED, TrainConfig
from senna.train.joint_config import JOINT_OPTIONS, JOINT_SETTINGS, JointConfig

RECIPES_HELP = ("with --tasks: directory of per-task settings <task>.json (default: recipes; "
                "with a --config that names them: the config's directory)")
SEEDS_HELP = ("train one model per seed into OUT/seed-S and make OUT an ensemble the tagger "
              "uses (combined by vote or by the members' mean scores, whichever is better on "
              "dev); with --tasks (a joint run), one run per seed and an ensemble OUT/<task> "
              "per task, combined by the members' mean scores")
JOINED_HELP = ("with --seeds: also train the joined ensemble (a layer on the members' hidden "
               "layers) for this many epochs; it becomes the ensemble's combination")
Config = str | os.PathLike | Mapping[str, Any] | None


@dataclass(frozen=True)
class Plan:
    """A training run's settings: `config` a TrainConfig (one task) or a JointConfig (several
    tasks, one model); with `seeds`, one run per seed and their ensemble (`joined_epochs`:
    the joining layer's epochs, for one task only)."""

    config: TrainConfig | JointConfig
    seeds: tuple[int, ...] = ()
    joined_epochs: int = 0

    @property
    def joint(self) -> bool:
        return isinstance(self.config, JointConfig)


@dataclass
class TrainResult:
    """What a run gave: the finished state of a run without seeds (`state`: epoch, history,
    seconds and each task's best dev score and epoch), or each ensemble's ensemble.json
    (`ensembles`: task -> its content)."""

    plan: Plan
    state: dict | None = None
    ensembles: dict[str, dict] = field(default_factory=dict)

    def summary(self) -> str:
        """The lines `senna train` prints when the run has ended."""
        cfg = self.config
        if self.ensembles and isinstance(cfg, JointConfig):
            return "\n".join(joint_ensemble_line(task, spec, cfg.out)
                             for task, spec in self.ensembles.items())
        if self.ensembles:
            spec = next(iter(self.ensembles.values()))
            return ("dev scores: " + ", ".join(f"{k} {v:.2f}" for k, v in spec["dev"].items())
                    + f"; ensemble in {cfg.out} (combined by {spec['combine']})")
        state = self.state or {}
        if isinstance(cfg, JointConfig):
            best = ", ".join(f"{t} {b['score']:.2f} (epoch {b['epoch']})"
                             for t, b in state["best"].items())
            return (f"best dev scores: {best}; models in "
                    + ", ".join(str(cfg.model_dir(t)) for t in state["best"]))
        best = next(iter(state["best"].values()))
        return (f"best dev score {best['score']:.2f} at epoch {best['epoch']} "
                f"({state['seconds'] / 60:.1f} min); model in {cfg.out}")

    @property
    def config(self) -> TrainConfig | JointConfig:
        return self.plan.config


def joint_ensemble_line(task: str, spec: dict, out: str) -> str:
    """A joint run's ensemble of one task: its members' dev scores and the mean's."""
    dev = dict(spec["dev"])
    ensemble = dev.pop("mean")
    return (f"{task} dev scores: " + ", ".join(f"{k} {v:.2f}" for k, v in dev.items())
            + f"; their ensemble (the mean of their scores) {ensemble:.2f}, in {out}/{task}")


def make_plan(config: Config = None, **options: Any) -> Plan:
    """`config`: a JSON settings file (its path) or the settings themselves; `options`
    override them as `senna train`'s options do (None: not given): any TrainConfig
    setting, `tasks` (a joint run: "pos,chunk" or a list), `recipes`, the joint options
    (share_l1, sampling, lm_corpus, synonyms, aux_steps), `seeds` ("1,2,3" or a list) and
    `joined_epochs`.  ValueError for settings that would not train."""
    path = os.fspath(config) if isinstance(config, str | os.PathLike) else None
    settings = read_settings(path) if path else dict(config or {})
    options = dict(options)
    seeds = checked_seeds(options.pop("seeds", None))
    joined = options.pop("joined_epochs", None)
    if joined is not None and not seeds:
        raise ValueError("--joined-epochs needs --seeds")
    if joined is not None and joined < 1:
        raise ValueError(f"--joined-epochs must be at least 1, got {joined}")
    if options.get("tasks") or "tasks" in settings:
        if joined:
            raise ValueError("--joined-epochs trains the joined layer of one task's "
                             "ensemble: not with --tasks")
        return Plan(joint_config(settings, options, path), seeds)
    extra = [k for k in ("tasks", "recipes", *JOINT_OPTIONS)
             if options.pop(k, None) is not None]
    if extra:
        raise ValueError(f"--{extra[0].replace('_', '-')} needs --tasks")
    settings.update({k: v for k, v in options.items() if v is not None})
    return Plan(TrainConfig.from_dict(settings, path or ""), seeds, joined or 0)


def checked_seeds(seeds: str | Sequence[int] | None) -> tuple[int, ...]:
    """An ensemble's seeds ("1,2,3" or [1, 2, 3]; None: no ensemble): two different ones or
    more, each a valid --seed; ValueError otherwise."""
    if seeds is None:
        return ()
    text = seeds if isinstance(seeds, str) else ",".join(map(str, seeds))
    try:
        out = tuple(int(s) for s in text.split(","))
    except ValueError:
        raise ValueError(f"--seeds: expected comma-separated integers, got {text!r}") from None
    if any(not 0 <= s <= MAX_SEED for s in out):
        raise ValueError(f"--seeds: expected seeds between 0 and {MAX_SEED}, got {text!r}")
    if len(set(out)) < 2 or len(set(out)) != len(out):
        raise ValueError(f"--seeds: expected two different seeds or more, got {text!r}")
    return out


def joint_config(settings: dict, options: dict, config: str | None = None) -> JointConfig:
    """Multi-task settings: per task from the config or from the recipes.  A task's recipe
    file named in the config is found beside the config (unless `recipes` says where)."""
    beside = str(Path(config).parent) if config and "tasks" in settings else None
    names = options.pop("tasks", None)
    recipes = options.pop("recipes", None) or beside or "recipes"
    if names:
        given = settings.get("tasks", {})
        settings["tasks"] = {t: given.get(t, f"{t}.json") for t in normalize_tasks(names)}
    ignored = sorted(k for k, v in options.items()
                     if v is not None and k not in (*JOINT_SETTINGS, *JOINT_OPTIONS))
    if ignored:
        raise ValueError(f"with --tasks, set {', '.join(ignored)} in the per-task settings "
                         "(recipes or the config's \"tasks\" entry)")
    settings.update({k: v for k, v in options.items() if v is not None})
    joint = JointConfig.from_dict(settings, Path(recipes))
    for task in joint.tasks:   # each task's settings checked now, not when its data is read
        joint.task_config(task)
    return joint
