"""The data step before training: read and split the sentences, then give them the cascade
inputs users get: predicted, not gold, columns (`prepare`).

A model reading another task's column (CHUNK, PT0 and the verb detector read POS; SRL reads
PT0) sees the upstream tagger's output at run time, errors included.  Trained on gold
columns it learns to trust them more than they deserve.  `predicted_columns`
("pos=senna/models/pos,pt0=senna/models/pt0") replaces those columns of the training and dev
sentences by the named models' predictions, in the order given, so PT0 is predicted from the
predicted POS as the runtime does.

Dev sentences are tagged by the given models.  Training sentences are too when the upstream
model never saw them (CoNLL-2000 text for the EWT POS tagger); when it did (EWT), set
`jackknife` to K: the training sentences are cut into K contiguous folds, and fold k is
tagged by a model trained with the upstream model's own recorded settings on its training
data minus the sentences of fold k (Collins 2000; the usual way to train a parser on
predicted tags).  The K fold models are cached under `jackknife_dir`, named by a hash of
what they depend on, so PT0, the verb detector and SRL, all trained on EWT, share the POS
folds.  With `jobs` above 1 the missing folds of a column are trained that many at a time,
each in its own process (they are independent: a fold needs only earlier columns).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from senna.datasets import Data, load_splits, parse_spec, read_data, tag_column
from senna.runtime.ensemble import load_tagger
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


def fold_model(model_dir: str, exclude: set[Key], known: dict[Key, dict], cfg,
               name: str) -> Path:
    """A model trained with `model_dir`'s recorded settings on its training sentences minus
    `exclude`, their columns replaced by those already predicted (`known`); cached."""
    settings, out = fold_settings(model_dir, exclude, known, cfg, name)
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


def fold_settings(model_dir: str, exclude: set[Key], known: dict[Key, dict], cfg,
                  name: str) -> tuple[dict, Path]:
    """A fold model's settings (the upstream model's recorded ones) and its directory, named
    by a hash of all it depends on."""
    config = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8"))
    settings = dict(config["training"]["config"])
    settings.update(predicted_columns=None, jackknife=0, threads=cfg.threads)
    settings.pop("jobs", None)   # how folds are scheduled is not what they are
    key = digest(settings, sorted(exclude), sorted(known.items()),
                 content(settings.get("embeddings")))
    return settings, Path(cfg.jackknife_dir) / f"{name}-{key}"


def train_folds(model_dir: str, helds: list[set[Key]], known: dict[Key, dict], cfg,
                names: list[str]) -> None:
    """Train the missing folds `cfg.jobs` at a time, each in a fresh process (spawned: a
    forked PyTorch can hang)."""
    if cfg.jobs < 2:
        return
    todo = [(held, name) for held, name in zip(helds, names, strict=True)
            if not (fold_settings(model_dir, held, known, cfg, name)[1] / "history.json").exists()]
    if len(todo) < 2:
        return
    print(f"jackknife: training {len(todo)} fold models, {cfg.jobs} at a time")
    with ProcessPoolExecutor(min(cfg.jobs, len(todo)),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        for done in [pool.submit(fold_model, model_dir, held, known, cfg, name)
                     for held, name in todo]:
            done.result()


def trained_on(model_dir: str, sentences: Sequence, share: float = 0.01) -> bool:
    """Was a saved model trained on these sentences: more than `share` of them (same words)
    in its recorded training files?  (Corpora share a few short sentences, "Thank you .":
    one CoNLL-2000 sentence is in EWT's training set.)"""
    config = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8"))
    settings = dict(config["training"]["config"])
    settings.update(predicted_columns=None, jackknife=0)
    fold_cfg = TrainConfig.from_dict(settings)
    seen = {tuple(s.words) for s in load_splits(fold_cfg, get_task(fold_cfg.task))[0]}
    return sum(tuple(s.words) in seen for s in sentences) > share * len(sentences)


def predict_columns(cfg, train_sents: list, dev_sents: list) -> None:
    """Apply cfg.predicted_columns (with cfg.jackknife folds) to the sentences, in place.
    A model trained on other text (the WSJ CHUNK tagger for EWT sentences) tags the
    training sentences itself: folds would only train it again on the same data."""
    done: list[str] = []
    known: dict[Key, dict] = {}
    for column, model_dir in parse_spec(cfg.predicted_columns):
        given = load_tagger(model_dir)   # a parser's tree column too
        tag_column(given, dev_sents, column)
        if cfg.jackknife < 2 or not trained_on(model_dir, train_sents):
            tag_column(given, train_sents, column)
        else:
            parts = [[train_sents[i] for i in part]
                     for part in folds(len(train_sents), cfg.jackknife)]
            helds = [{tuple(s.words) for s in held} for held in parts]
            names = [f"{column}-fold{k + 1}of{cfg.jackknife}" for k in range(len(parts))]
            train_folds(model_dir, helds, known, cfg, names)
            for held, words, name in zip(parts, helds, names, strict=True):
                tag_column(load_tagger(fold_model(model_dir, words, known, cfg, name)),
                           held, column)
        done.append(column)
        known = {tuple(s.words): {c: s.columns[c] for c in done}
                 for s in (*train_sents, *dev_sents)}


def prepare(cfg: TrainConfig) -> Data:
    """The run's task and sentences: read and split as the settings say (`read_data`: the
    tag scheme detected where not declared), their input columns predicted if the settings
    say so (`predicted_columns`, `jackknife`)."""
    data = read_data(cfg)
    if cfg.predicted_columns:
        predict_columns(cfg, data.train, data.dev)
    return data
