"""Training a parser on its own mistakes (`--explore K`): the level states parsers reach on
sentences they never saw, each with the best next level from there (`senna.syntax.oracle`).

The training sentences are cut into K contiguous folds (`senna.train.folds`); a
parser trained with the run's own settings on the other folds (cached under
`jackknife_dir`, like the jackknife models of predicted columns; for at most
`explore_epochs` epochs if set) parses each fold, reading
the gold POS and, for a parser whose first level keeps PT0's phrases, the gold level 0 as
PT0 names it.  Every state it reaches off the gold path, what the network reads there,
becomes one more training sentence: columns `pos` (gold), `below` (the state) and `psg`
(the oracle's next level).  States on the gold path are the gold levels themselves,
already in the data.
"""

from __future__ import annotations

from dataclasses import asdict

from senna.datasets import Data
from senna.document import Sentence
from senna.io.treebank import read_treebank
from senna.runtime.ensemble import load_tagger
from senna.runtime.parser import ParserModel
from senna.syntax.levels import (
    BELOW,
    GOLD_TREE,
    TREE,
    level_features,
    lowest_label,
    normalise,
    tree_to_levels,
)
from senna.syntax.oracle import next_level
from senna.syntax.tree import conll_to_tree
from senna.tags import spans_to_tags, tags_to_spans
from senna.train.config import TrainConfig
from senna.train.folds import fold_model, folds, train_folds


def explored(cfg: TrainConfig, data: Data) -> list[Sentence]:
    """The off-gold-path states of `cfg.explore` fold parsers on the training sentences
    (those of `cfg.train` not in dev), as level training sentences."""
    dev = {tuple(s.words) for s in data.dev}
    sentences = [s for s in read_treebank(cfg.train)
                 if s.words and tuple(s.words) not in dev]
    parts = [[sentences[i] for i in part] for part in folds(len(sentences), cfg.explore)]
    helds = [{tuple(s.words) for s in part} for part in parts]
    names = [f"psg-explore-fold{k + 1}of{cfg.explore}" for k in range(cfg.explore)]
    base = {**asdict(cfg), "explore": 0, "explore_epochs": 0, "out": None,
            "epochs": cfg.explore_epochs or cfg.epochs}
    train_folds(base, helds, {}, cfg, names)
    out: list[Sentence] = []
    for part, held, name in zip(parts, helds, names, strict=True):
        parser = load_tagger(fold_model(base, held, {}, cfg, name))
        if not isinstance(parser, ParserModel):
            raise TypeError(f"{name}: expected a parser, got a {parser.task} model")
        out += off_path(parser, part)
    print(f"explore: {len(out)} level states off the gold path, from {cfg.explore} fold "
          "parsers")
    return out


def off_path(parser: ParserModel, sentences: list[Sentence],
             columns: list[dict] | None = None) -> list[Sentence]:
    """The states `parser` reaches on these gold-tree sentences that no gold level leads
    to, each with the oracle's next level.  `columns`: what the parser reads (default: the
    gold POS, and the gold level 0 as PT0 names it)."""
    levels = [tree_to_levels(normalise(conll_to_tree(s.columns[GOLD_TREE]))) for s in sentences]
    if columns is None:
        columns = [{"pos": s.columns["pos"], "pt0": [lowest_label(t) for t in found[0]]}
                   for s, found in zip(sentences, levels, strict=True)]
    states: list[tuple[int, list[str]]] = []
    parser.beam = 1   # the states greedy decoding reaches, as the recipe was measured
    parser.parse([s.words for s in sentences], columns, states)
    paths: dict[int, list[list[str]]] = {}    # the gold states of a sentence, by level
    out = []
    for i, state in states:
        s, found, n = sentences[i], levels[i], len(sentences[i].words)
        if i not in paths:
            paths[i] = [level_features(found[:k], n) for k in range(len(found) + 1)]
        if state in paths[i]:
            continue
        gold = [span for tags in found for span in tags_to_spans(tags)]
        out.append(Sentence(s.words, {"pos": s.columns["pos"], BELOW: state,
                                      TREE: spans_to_tags(next_level(state, gold), n, "iobes")}))
    return out
