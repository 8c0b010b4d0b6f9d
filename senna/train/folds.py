"""Fold models: a model trained with given settings on its training sentences minus one fold
of them, cached under `jackknife_dir` and named by a hash of what it depends on.  Jackknifed
predicted columns (`senna.train.prepare`) and a parser's explored states
(`senna.train.explore`) are made by such models, each on the fold it never saw."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from senna.datasets import Data, load_splits
from senna.runtime.ensemble import folder_config
from senna.tasks import get_task
from senna.train.config import TrainConfig
from senna.train.loop import train

Key = tuple[str, ...]


def folds(n: int, k: int) -> list[range]:
    """K contiguous, nearly equal slices of n sentences (neighbouring sentences share a
    document, so they stay in one fold)."""
    bounds = [round(i * n / k) for i in range(k + 1)]
    return [range(bounds[i], bounds[i + 1]) for i in range(k)]


def digest(*parts) -> str:
    h = hashlib.sha1()
    for p in parts:
        h.update(json.dumps(p, sort_keys=True, default=str).encode())
    return h.hexdigest()[:12]


def content(path: str | None) -> str | None:
    """A digest of the bytes of a file, or of every file under a directory: what a fold
    model read, so that embeddings replaced under the same path (a longer-trained language
    model) train new folds rather than reuse the old ones."""
    if not path or not Path(path).exists():
        return None
    root = Path(path)
    files = sorted(f for f in ([root] if root.is_file() else root.rglob("*")) if f.is_file())
    h = hashlib.sha1()
    for f in files:
        h.update(str(f.relative_to(root) if f != root else f.name).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def recorded_settings(model_dir: str) -> dict:
    """The training settings a saved model recorded (an ensemble's: its first member's)."""
    return dict(folder_config(model_dir)["training"]["config"])


def fold_model(base: dict, exclude: set[Key], known: dict[Key, dict], cfg, name: str) -> Path:
    """A model trained with the settings `base` (an upstream model's recorded ones) on its
    training sentences minus `exclude`, their columns replaced by those already predicted
    (`known`); cached."""
    settings, out = fold_settings(base, exclude, known, cfg, name)
    if (out / "history.json").exists():   # finished before
        return out
    fold_cfg = TrainConfig.from_dict({**settings, "out": str(out)})
    task = get_task(fold_cfg.task)
    train_sents, dev_sents = load_splits(fold_cfg, task)
    kept = [s for s in train_sents if tuple(s.words) not in exclude]
    for s in (*kept, *dev_sents):
        s.columns.update(known.get(tuple(s.words), {}))
    print(f"jackknife: training {out.name} on {len(kept)} of {len(train_sents)} sentences")
    train(fold_cfg, Data(task, kept, dev_sents))
    return out


def fold_settings(base: dict, exclude: set[Key], known: dict[Key, dict], cfg,
                  name: str) -> tuple[dict, Path]:
    """A fold model's settings (`base`, without folds of its own) and its directory, named
    by a hash of all it depends on."""
    settings = {**base, "predicted_columns": None, "jackknife": 0, "threads": cfg.threads,
                "device": cfg.device}
    settings.pop("jobs", None)   # how folds are scheduled is not what they are
    # a fold trained on a GPU is not the CPU's (a recipe rebuilt on the CPU trains its own)
    key = digest({k: v for k, v in settings.items() if k != "device" or v != "cpu"},
                 sorted(exclude), sorted(known.items()), content(settings.get("embeddings")))
    return settings, Path(cfg.jackknife_dir) / f"{name}-{key}"


def train_folds(base: dict, helds: list[set[Key]], known: dict[Key, dict], cfg,
                names: list[str]) -> None:
    """Train the missing folds `cfg.jobs` at a time, each in a fresh process (spawned: a
    forked PyTorch can hang)."""
    if cfg.jobs < 2:
        return
    todo = [(held, name) for held, name in zip(helds, names, strict=True)
            if not (fold_settings(base, held, known, cfg, name)[1] / "history.json").exists()]
    if len(todo) < 2:
        return
    print(f"jackknife: training {len(todo)} fold models, {cfg.jobs} at a time")
    with ProcessPoolExecutor(min(cfg.jobs, len(todo)),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        for done in [pool.submit(fold_model, base, held, known, cfg, name)
                     for held, name in todo]:
            done.result()


def trained_on(model_dir: str, sentences: Sequence, share: float = 0.01) -> bool:
    """Was a saved model trained on these sentences: more than `share` of them (same words)
    in its recorded training files?  (Corpora share a few short sentences, "Thank you .":
    one CoNLL-2000 sentence is in EWT's training set.)"""
    settings = {**recorded_settings(model_dir), "predicted_columns": None, "jackknife": 0}
    fold_cfg = TrainConfig.from_dict(settings)
    seen = {tuple(s.words) for s in load_splits(fold_cfg, get_task(fold_cfg.task))[0]}
    return sum(tuple(s.words) in seen for s in sentences) > share * len(sentences)
