"""The settings of a joint run (`JointConfig`, senna.train.joint), without PyTorch: like
TrainConfig's, its fields carry their help texts, from which `senna train` makes the
multi-task options, so that --help and bad joint settings are answered before torch is
imported.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path

from senna.runtime.folders import default_model_dir
from senna.settings import setting
from senna.tasks import TaskSpec, get_task
from senna.train.config import TrainConfig

SAMPLING = ("proportional", "uniform")
# Settings every task must share: they shape the shared tables and layer.
COMMON = ("embeddings", "word_dim", "max_words", "min_count", "seed", "batch_size", "threads")
# The TrainConfig settings a joint run takes for all its tasks (the rest are per task).
JOINT_SETTINGS = ("out", "epochs", "lr", "patience", "max_minutes", *COMMON)
# The JointConfig settings that are options of `senna train` (with --tasks).
JOINT_OPTIONS = ("share_l1", "sampling", "lm_corpus", "synonyms", "aux_steps")


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
    tasks: dict[str, dict] = setting(
        "train jointly on these tasks, e.g. pos,chunk,ner,pt0; each task's settings from "
        "--recipes; with it, only " + ", ".join(f"--{n.replace('_', '-')}"
                                               for n in JOINT_SETTINGS)
        + " and the multi-task options apply (in a --config: \"tasks\" maps each task to "
        "its settings or its recipe file)")
    out: str = "runs/joint"
    models: str | None = None        # each task's best model goes to <models>/<task> (default:
                                     # out; "senna/models" ships them), the rest stays in out
    ship: list[str] | None = None    # the tasks whose models go to `models` (default: all);
                                     # the others, trained as partners only, stay in out
    share_l1: bool = setting("with --tasks: window tasks share the first layer", True)
    sampling: str = setting("with --tasks: how the next task is picked (proportional: in "
                            "proportion to its training set's size)", "proportional",
                            choices=SAMPLING)
    epochs: int = 30
    lr: float = 0.05                 # SGD rate of the shared parameters (/ fan-in)
    patience: int = 6                # stop when no task improved for this many epochs
    max_minutes: float = 0.0
    # Auxiliary tasks (ICML 2008): a prepared corpus (`senna lm prepare`) for the language
    # model, a WordNet directory for the synonyms task; batches of each per epoch (0: the
    # tagging tasks' mean) and windows or word pairs per batch.
    lm_corpus: str | None = setting("with --tasks: add the language model as a task, on this "
                                    "corpus prepared by `senna lm prepare`", None)
    synonyms: str | None = setting("with --tasks: add the WordNet synonyms task, reading "
                                   "WordNet's data files from this directory (apt-get "
                                   "install wordnet-base: /usr/share/wordnet)", None)
    aux_steps: int = setting("with --tasks: batches of each auxiliary task per epoch (0: the "
                             "tagging tasks' mean)", 0)
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

