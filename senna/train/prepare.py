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

import os
import sys
from collections import Counter
from pathlib import Path

from senna.datasets import Data, parse_spec, read_data
from senna.io.lines import DataFormatError
from senna.runtime.ensemble import folder_config, load_tagger
from senna.runtime.folders import language_models
from senna.runtime.predict import tag_column
from senna.tasks import TaskSpec
from senna.train.config import TrainConfig
from senna.train.explore import explored
from senna.train.folds import Key, fold_model, folds, recorded_settings, train_folds, trained_on
from senna.train.tagging import training_device


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
            base = recorded_settings(model_dir)
            train_folds(base, helds, known, cfg, names)
            for held, words, name in zip(parts, helds, names, strict=True):
                tag_column(load_tagger(fold_model(base, words, known, cfg, name)),
                           held, column)
        done.append(column)
        known = {tuple(s.words): {c: s.columns[c] for c in done}
                 for s in (*train_sents, *dev_sents)}


def read_columns(cfg: TrainConfig, task: TaskSpec) -> list[str]:
    """The other tasks' columns the model reads as features (`--features basic+pos`)."""
    return [s.arg for s in task.features(cfg.features) if s.kind == "column"]


def check_columns(cfg: TrainConfig, data: Data) -> None:
    """Every column a feature reads is in every training and dev sentence: else one error
    naming the file, the column and the two ways to give it."""
    for column in read_columns(cfg, data.task):
        for sentences, path in ((data.train, cfg.train), (data.dev, cfg.dev or cfg.train)):
            lacking = next((s for s in sentences if column not in s.columns), None)
            if lacking is None:
                continue
            has = ", ".join(c for c in lacking.columns
                            if c != data.task.target and not c.startswith("_"))
            raise DataFormatError(
                f"--features {cfg.features} reads a {column!r} column, which this file does "
                f"not have (its columns: words{', ' + has if has else ''}); predict it with "
                f"--predicted-columns {column}=senna/models/{column}, or read a file with a "
                f"{column} column (--columns naming it)", path)


def runtime_tags(column: str, language: str) -> tuple[Path | None, set[str]]:
    """The shipped tagger that fills `column` at run time for `language`, and its tag set
    (None and no tags where none ships)."""
    try:
        folder = language_models(language) / column
        tags = set(folder_config(folder)["tags"])
    except (OSError, ValueError, KeyError, TypeError):
        return None, set()
    short = Path("senna", "models", *folder.parts[-2 if language != "en" else -1:])
    try:   # as a user in the repository would type it, where that finds the same folder
        return (short if os.path.samefile(short, folder) else folder), tags
    except OSError:
        return folder, tags


def column_warnings(cfg: TrainConfig, data: Data) -> list[str]:
    """For each column read from the training file, not predicted: a warning that at run
    time the column is the shipped tagger's, with the file's tags that tagger never writes
    (the model learnt from tags it will not see, and never saw the tagger's mistakes)."""
    predicted = {c for c, _ in parse_spec(cfg.predicted_columns)}
    out = []
    for column in read_columns(cfg, data.task):
        if column in predicted:
            continue
        folder, known = runtime_tags(column, cfg.language or "en")
        seen = Counter(t for s in data.train for t in s.columns[column])
        lacking = sorted(t for t in seen if t not in known)
        tokens = sum(seen[t] for t in lacking)
        where = f"the shipped {column.upper()} tagger's ({folder})" if folder else \
            f"another model's (no {column.upper()} tagger ships for this language)"
        shown = ", ".join(lacking[:8]) + (", ..." if len(lacking) > 8 else "")
        lack = (f"; {len(lacking)} of the file's {len(seen)} {column} tags ({tokens} tokens) "
                f"are not in its tag set: {shown}" if folder and lacking else
                f"; all {len(seen)} of the file's {column} tags are in its tag set"
                if folder else "")
        fix = f"--predicted-columns {column}={folder or 'DIR'}"
        out.append(f"senna train: warning: the model learns from the {column} column of "
                   f"{cfg.train}, but at run time it reads {where} tags{lack}; to train on "
                   f"the tags it will read, add {fix}")
    return out


def prepare(cfg: TrainConfig) -> Data:
    """The run's task and sentences: read and split as the settings say (`read_data`: the
    tag scheme detected where not declared), their input columns predicted if the settings
    say so (`predicted_columns`, `jackknife`).  A GPU that is not there is said first; a
    column the features read from the file, not predicted, is warned about."""
    training_device(cfg.device)
    data = read_data(cfg)
    if cfg.predicted_columns:
        predict_columns(cfg, data.train, data.dev)
    check_columns(cfg, data)
    for line in column_warnings(cfg, data):
        print(line, file=sys.stderr)
    if cfg.explore:
        data.train = data.train + explored(cfg, data)
    return data
