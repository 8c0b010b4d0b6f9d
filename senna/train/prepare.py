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

from senna.datasets import Data, parse_spec, read_data, tag_column
from senna.runtime.ensemble import load_tagger
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


def prepare(cfg: TrainConfig) -> Data:
    """The run's task and sentences: read and split as the settings say (`read_data`: the
    tag scheme detected where not declared), their input columns predicted if the settings
    say so (`predicted_columns`, `jackknife`).  A GPU that is not there is said first."""
    training_device(cfg.device)
    data = read_data(cfg)
    if cfg.predicted_columns:
        predict_columns(cfg, data.train, data.dev)
    if cfg.explore:
        data.train = data.train + explored(cfg, data)
    return data
