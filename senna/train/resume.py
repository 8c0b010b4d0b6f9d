"""Resuming `senna train` from OUT/checkpoint: the same run, or a clear refusal.

A run writes, after every epoch, OUT/checkpoint/: each task's last model in a folder of its
name, the optimizers' state (`optimizers.pt`), the auxiliary tasks' layers
(`auxiliary.pt`) and `state.json` (epoch, history, best scores, fingerprints of the data
files).  A second `senna train` with the same
--out continues from there, so that an interrupted and resumed run ends with the same
weights as an uninterrupted one (on the CPU: a GPU's kernels are not deterministic).

Which settings may change on resume (choice): those of the schedule, not of the model or
its data.  --epochs, --lr, --batch-size, --patience, --max-minutes, --threads,
--gazetteer-dropout, --seed and --device may differ: the run resumes and says which
changed (a new --lr replaces the saved one in the optimizer's state).  Any other
difference (task, data files or their content, features, embeddings, network sizes,
optimizer, dictionary) is refused with an error that names each differing setting, since
the checkpoint's weights and optimizer state belong to the old model.

A checkpoint is written as one step that a kill cannot split (`write_checkpoint`): every
file goes into a fresh folder beside it (`checkpoint.tmp-<pid>`), is flushed to disk, and
the folder then takes the name `checkpoint` by rename.  POSIX rename(2) is atomic, but it
replaces a directory only if that one is empty, so an existing checkpoint is first renamed
aside (`checkpoint.old`) and removed after the swap.  Whatever the moment of a kill, OUT
then holds one complete checkpoint: `checkpoint`, or between the two renames only
`checkpoint.old`, which `recover` names `checkpoint` again (the run redoes that epoch).
Leftover folders of a killed write are removed when the next run starts.  A run resumed
after a kill therefore ends with the weights of an uninterrupted one, since an epoch
trained again from the same checkpoint is the same epoch.  One run at a time per OUT.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

import torch

from senna.io.checkpoint import load_model
from senna.io.saved_model import SavedModel
from senna.nn.networks import load_weights
from senna.settings import option
from senna.tasks import TASKS
from senna.train.config import TrainConfig

CHECKPOINT = "checkpoint"
OPTIMIZERS_FILE = "optimizers.pt"
AUXILIARY_FILE = "auxiliary.pt"
STATE_FILE = "state.json"
SHARED = "(shared)"   # the optimizer of parameters several tasks share
_PARTIAL = CHECKPOINT + ".tmp-"   # + the writer's pid: a checkpoint being written
_ASIDE = CHECKPOINT + ".old"      # the previous checkpoint, between the two renames
# Settings of the schedule: a resumed run may change them (and is told so).
SCHEDULE = ("epochs", "lr", "batch_size", "patience", "max_minutes", "threads", "jobs",
            "gazetteer_dropout", "seed", "device")
# Files whose content a resumed run checks (embeddings are not: the checkpoint replaces
# the word table they initialise, and a dictionary they change is caught by
# `model_differences`; hashing a multi-gigabyte vector file would slow every start).
_DATA_FILES = ("train", "dev", "gazetteer", "clusters", "extra_columns")


def fresh_state(members: Sequence) -> dict:
    """The training state of a run that starts now."""
    return {"epoch": 0, "history": [], "seconds": 0.0, "best": {},
            "data": {m.name: fingerprints(m.cfg) for m in members}}


def fingerprints(cfg: TrainConfig) -> dict[str, str]:
    """sha256 of each data file the settings name (see _DATA_FILES)."""
    out = {}
    for name in _DATA_FILES:
        for i, path in enumerate((getattr(cfg, name) or "").split(",") if
                                 name == "extra_columns" else [getattr(cfg, name)]):
            if path and os.path.isfile(path):
                h = hashlib.sha256()
                with open(path, "rb") as f:
                    for block in iter(lambda f=f: f.read(1 << 20), b""):
                        h.update(block)
                out[name if name != "extra_columns" else f"{name}[{i}]"] = h.hexdigest()
    return out


def _relevant(settings: dict) -> dict:
    """Settings that define the model and its data, without those that do not matter
    for it (conv for a window network, dev_fraction beside a dev file)."""
    out = {k: v for k, v in settings.items() if k not in SCHEDULE and k != "out"}
    task = TASKS.get(settings.get("task", ""))
    out["approach"] = settings.get("approach") or (task.approach if task else None)
    if out["approach"] != "sentence":
        out.pop("conv", None)
    if settings.get("dev"):
        out.pop("dev_fraction", None)
    for key in ("train", "dev", "gazetteer", "clusters", "embeddings"):
        if isinstance(out.get(key), str):
            out[key] = os.path.normpath(out[key])
    return out


def _changes(old: dict, new: dict, keys) -> list[str]:
    return [f"{option(k)} {old[k]} -> {new[k]}" for k in keys
            if k in old and k in new and old[k] != new[k]]


def model_differences(ckpt: SavedModel, fresh: SavedModel) -> list[str]:
    """What the training data made different between the checkpoint's model and the one
    just built (when the settings agree, the data changed)."""
    out = []
    if ckpt.net.to_dict() != fresh.net.to_dict():
        old, new = ckpt.net.to_dict(), fresh.net.to_dict()
        out += [f"network {k} {old[k]} -> {new[k]}" for k in old if old[k] != new.get(k)]
    if ckpt.featurizer.config() != fresh.featurizer.config():
        out.append("features")
    for spec in fresh.featurizer.specs:
        a, b = ckpt.featurizer.vocabs.get(spec.name), fresh.featurizer.vocabs[spec.name]
        if a is not None and a != b:
            out.append(f"the {spec.name} dictionary ({len(a)} -> {len(b)} entries)")
    if ckpt.tags != fresh.tags:
        out.append(f"the tag set ({len(ckpt.tags)} -> {len(fresh.tags)} tags)")
    return out


def _differences(ckpt: SavedModel, member, digests: dict) -> list[str]:
    """Why a task's checkpoint cannot go on with its settings and data (empty: it can)."""
    old = ckpt.info.get("training", {}).get("config", {})
    new = asdict(member.cfg)
    out = _changes(_relevant(old), _relevant(new), _relevant(new))
    now = fingerprints(member.cfg)
    out += [f"the content of {getattr(member.cfg, k.split('[')[0])} ({option(k)})"
            for k, digest in digests.items() if k in now and now[k] != digest]
    return out or model_differences(ckpt, member.saved)


def resume(out: Path, units: Sequence, shared: torch.optim.Optimizer | None,
           epochs: int) -> dict:
    """The training state to continue from: fresh when OUT has no checkpoint; else the
    checkpoint's weights and optimizer states loaded into the units (tagging tasks, whose
    `scored` is true, and auxiliary tasks) and the `shared` optimizer, after checking that
    each task was trained with the same model and data (ValueError naming the
    differences)."""
    members = [u for u in units if u.scored]
    ckpt_dir = recover(out)
    if not ckpt_dir.exists():
        return fresh_state(members)
    state = read_state(ckpt_dir)
    changed: list[str] = []
    for m in members:
        with reading(ckpt_dir / m.name, ckpt_dir):
            ckpt = load_model(ckpt_dir / m.name, base_anywhere=True)   # its run's embeddings
        differences = _differences(ckpt, m, state.get("data", {}).get(m.name, {}))
        if differences:
            task = f" ({m.name})" if len(units) > 1 else ""
            raise ValueError(f"cannot resume from {ckpt_dir}{task}: it was trained with other "
                             f"settings or data: {', '.join(differences)}; resume with the "
                             f"same ones, or start a new run with another --out (or delete "
                             f"{ckpt_dir})")
        load_weights(m.net, ckpt.weights)
        changed += _changes(ckpt.info["training"]["config"], asdict(m.cfg), SCHEDULE)
        best = state["best"].get(m.name, {})
        m.best, m.best_epoch = best.get("score", -1.0), best.get("epoch", 0)
    _load_optimizers(ckpt_dir, units, shared, state["epoch"])
    _load_auxiliary(ckpt_dir, [u for u in units if not u.scored])
    best = "; ".join(f"best dev {m.best:.2f} at epoch {m.best_epoch}"
                     + (f" ({m.name})" if len(members) > 1 else "") for m in members)
    print(f"resuming {out} from its checkpoint after epoch {state['epoch']} of {epochs}"
          + (f"; {best}" if best else "")
          + (f"; changed settings: {', '.join(dict.fromkeys(changed))}" if changed else ""),
          flush=True)
    if state["epoch"] >= epochs:
        print(f"nothing left to train: raise --epochs above {state['epoch']} to go on",
              flush=True)
    return state


def save_optimizers(folder: Path, units: Sequence, shared: torch.optim.Optimizer | None,
                    epoch: int) -> None:
    """Every optimizer's state after `epoch` (Adam's moment estimates; plain SGD has none),
    read back by torch.load(weights_only=True), which runs no pickled code."""
    states = {u.name: u.opt.state_dict() for u in units}
    if shared is not None:
        states[SHARED] = shared.state_dict()
    torch.save({"epoch": epoch, "state": states}, folder / OPTIMIZERS_FILE)


def _load_optimizers(ckpt_dir: Path, units: Sequence, shared: torch.optim.Optimizer | None,
                     epoch: int) -> None:
    """Load the saved optimizer states, keeping the current learning rates (a resumed run
    may change --lr); ValueError when they are unreadable or from another epoch."""
    path = ckpt_dir / OPTIMIZERS_FILE
    with reading(path, ckpt_dir):
        saved = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(saved, dict) or not isinstance(saved.get("state"), dict):
        raise unreadable(path, ckpt_dir, "not a saved optimizer state")
    if saved.get("epoch") != epoch:
        raise unreadable(path, ckpt_dir, f"from epoch {saved.get('epoch')}, but {STATE_FILE} "
                         f"is from epoch {epoch}: its writing was interrupted")
    pairs = [(u.name, u.opt) for u in units] + ([(SHARED, shared)] if shared else [])
    for name, opt in pairs:
        if name not in saved["state"]:
            raise unreadable(path, ckpt_dir, f"no optimizer state for {name}")
        rates = [g["lr"] for g in opt.param_groups]
        with reading(path, ckpt_dir):
            opt.load_state_dict(saved["state"][name])
        for group, lr in zip(opt.param_groups, rates, strict=True):
            group["lr"] = lr


def save_auxiliary(folder: Path, aux: Sequence) -> None:
    """The auxiliary tasks' own layers (the shared word table is saved with the taggers)."""
    if aux:
        torch.save({a.name: {k: v for k, v in a.state_dict().items()
                             if not k.startswith("table.")} for a in aux},
                   folder / AUXILIARY_FILE)


def _load_auxiliary(ckpt_dir: Path, aux: Sequence) -> None:
    if not aux:
        return
    path = ckpt_dir / AUXILIARY_FILE
    with reading(path, ckpt_dir):
        saved = torch.load(path, map_location="cpu", weights_only=True)
    for a in aux:
        if a.name not in saved:
            raise ValueError(f"{ckpt_dir} has no {a.name} task; use a new --out")
        with reading(path, ckpt_dir):
            a.load_state_dict(saved[a.name], strict=False)


def write_checkpoint(out: Path, fill: Callable[[Path], None]) -> Path:
    """OUT/checkpoint replaced by the folder `fill` writes, in one step a kill cannot split
    (see the module docstring) -> its path.  `fill(folder)` creates `folder` and writes
    every file of the checkpoint into it."""
    current, aside = recover(out), out / _ASIDE
    partial = out / f"{_PARTIAL}{os.getpid()}"
    fill(partial)
    _sync_tree(partial)
    if current.exists():
        os.replace(current, aside)
    os.replace(partial, current)
    _sync_dir(out)
    if aside.exists():
        shutil.rmtree(aside)
    return current


def recover(out: Path) -> Path:
    """OUT/checkpoint after a killed write: the previous checkpoint named `checkpoint` again
    if the kill came between the two renames, and the leftovers of the write removed
    -> the checkpoint's path (which need not exist)."""
    current, aside = out / CHECKPOINT, out / _ASIDE
    if aside.is_dir() and not current.exists():
        os.replace(aside, current)
        _sync_dir(out)
    for leftover in [aside, *out.glob(f"{_PARTIAL}*")]:
        if leftover.is_dir():
            shutil.rmtree(leftover)
    return current


def _sync_tree(folder: Path) -> None:
    """Every file under `folder`, and the folders themselves, flushed to disk: the rename
    that publishes them must not reach the disk before their content does."""
    for root, _, files in os.walk(folder):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _sync_dir(Path(root))


def _sync_dir(folder: Path) -> None:
    """A folder's entries (renames, new files) flushed to disk, where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:   # some file systems refuse to sync a directory
        pass
    finally:
        os.close(fd)


@contextmanager
def reading(path: Path, ckpt_dir: Path) -> Iterator[None]:
    """Reading a checkpoint's file: any failure becomes one ValueError naming the file and
    the way out."""
    try:
        yield
    except Exception as e:   # json, zip, pickle and torch each raise their own
        raise unreadable(path, ckpt_dir, f"{type(e).__name__}: {e}") from None


def unreadable(path: Path, ckpt_dir: Path, why: str) -> ValueError:
    return ValueError(f"{path}: unreadable checkpoint ({why}); delete the folder {ckpt_dir} "
                      f"to start over, or restore it")


def read_state(ckpt_dir: Path, keys: tuple[str, ...] = ("epoch", "history", "seconds", "best")
               ) -> dict:
    """A checkpoint's state.json, with the entries a resumed run reads."""
    path = ckpt_dir / STATE_FILE
    with reading(path, ckpt_dir):
        state = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(state, dict) or any(k not in state for k in keys) \
            or not isinstance(state["epoch"], int) or not isinstance(state["history"], list):
        raise unreadable(path, ckpt_dir, f"expected an object with {', '.join(keys)}")
    return state
