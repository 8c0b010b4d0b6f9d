"""Where a task's model is: the shipped models (senna/models, other languages' in
senna/models/<lang>/), a folder of models the user gives, or one model's own folder, each
checked to hold the task asked for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from senna.io.saved_model import ModelError
from senna.runtime.ensemble import folder_task, model_folders_in
from senna.tasks import ALIASES, DEFAULT_TASKS, TASKS, get_task
from senna.text.tokenize import LANGUAGES


def default_model_dir() -> Path:
    """Shipped models: senna/models/<task>/."""
    return Path(__file__).resolve().parent.parent / "models"


def language_models(lang: str) -> Path:
    """The shipped models for raw text in `lang`: English's are senna/models itself, other
    languages' sit in senna/models/<lang>/.  ModelError naming those shipped."""
    root = default_model_dir()
    if lang == "en":
        return root
    shipped = [name for name in LANGUAGES
                if name != "en" and model_folders_in(root / name)]
    if lang not in shipped:
        raise ModelError(f"no shipped models for language {lang!r}; shipped: "
                         f"{', '.join(['en', *shipped])} (or train your own: docs/training.md)")
    return root / lang


@dataclass(frozen=True)
class Folders:
    """Where each task's model is: `own[task]`, else `root`/<task>.  `single`: the task of
    the model whose own folder was given as the models' directory."""

    root: Path
    own: Mapping[str, Path] = field(default_factory=dict)
    single: str | None = None

    def of(self, task: str) -> Path:
        return self.own.get(task, self.root / task)

    def default_tasks(self, usual: Sequence[str] = DEFAULT_TASKS) -> tuple[str, ...]:
        """One model's folder: its task (the tasks it needs come along); else those of
        `usual` that the folder holds, or, holding none of them, every model it holds."""
        if self.single:
            return (self.single,)
        held = [t for t in usual if t in self.own or (self.root / t).is_dir()]
        if not held:
            held = [p.name for p in model_folders_in(self.root) if p.name in TASKS]
        return tuple(held or usual)


def _own_folder(path: Path, task: str | None) -> str:
    """The task of a model's own folder; ModelError if it is none, or holds another task
    than `task` (None: any known task)."""
    if not path.is_dir():
        raise ModelError(f"no {task or 'model'} folder: {path} is not a directory")
    found = folder_task(path)
    if found is None:
        raise ModelError(f"{path}: not a model's folder (it holds no config.json or "
                         "ensemble.json)")
    if found not in TASKS:
        raise ModelError(f"{path}: holds a model of an unknown task {found!r}")
    if task is not None and found != task:
        raise ModelError(f"{path}: holds a {found} model, not a {task} model")
    return found


def model_folders(model_dir: str | Path | None = None,
                  models: Mapping[str, str | Path] | None = None) -> Folders:
    """`model_dir`: a folder of models (pos/, chunk/, ...; default the shipped ones) or one
    model's own folder (it has a config.json), whose task then comes from it and every
    other task from the shipped models.  `models`: task -> a model's own folder, which wins
    over `model_dir` for that task.  ValueError for an unknown task name, ModelError for a
    folder that is missing or holds another task."""
    root, own, single = default_model_dir(), {}, None
    if model_dir is not None:
        path = Path(model_dir)
        if not path.is_dir():
            raise ModelError(f"{path}: no such directory (give a folder of models, or one "
                             "model's own folder)")
        if folder_task(path) is not None:
            single = _own_folder(path, None)
            own[single] = path
        else:
            root = path
    if models is not None and not isinstance(models, Mapping):
        raise TypeError(f"models must map task names to model folders, got "
                        f"{type(models).__name__}")
    for name, folder in (models or {}).items():
        if str(name).strip().lower() not in ALIASES and Path(folder).is_dir():
            folder_task(Path(folder))     # a user's own task is known from its model on
        task = get_task(str(name)).name
        _own_folder(Path(folder), task)
        own[task] = Path(folder)
    return Folders(root, own, single)
