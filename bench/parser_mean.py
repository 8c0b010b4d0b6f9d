"""Whole-tree bracket F1 on EWT dev of several parsers' mean: every level's emissions are
the mean of the parsers' (same tag set), decoded once, as a "mean" ensemble decodes a
tagger's.  The runtime parses with one model; this measures what an ensemble of level
networks (or a student distilled from one) could reach before building either.

    python bench/parser_mean.py --data ../shared/data runs/psg/a runs/psg/b [...]

Members trained on different sentences may know different tags: a tag is averaged over
the members that know it, in the first member's tag set.

POS and the first level's PT0 phrases come from the shipped taggers, as `senna -psg` parses
(`senna evaluate --model DIR --data ewt.dev.gold_conll` for one parser prints the same F1);
`--pt0 DIR` takes the first level's phrases from another PT0 tagger (one parser given: that
parser alone with that tagger); a parser with its own PT0 tagger (`psg/pt0/`) uses that one
unless `--pt0` is given.  `--taggers senna/models/psg` gives the parsers that folder's own PT0
and NML taggers (`pt0/`, `nml/`): a new level network scored as the shipped parser is.

    python bench/parser_mean.py --data ../shared/data --taggers senna/models/psg runs/psg/new
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)

from senna.io.conll import read_gold_conll
from senna.runtime.ensemble import load_tagger
from senna.runtime.folders import default_model_dir
from senna.scoring.evalb import bracket_scores
from senna.scoring.inputs import predict_inputs
from senna.syntax.levels import unchain
from senna.syntax.tree import conll_to_tree


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--pt0", help="the PT0 tagger whose phrases the first level keeps "
                                   "(default: the first parser's own, else the shipped one)")
    ap.add_argument("--taggers", type=Path,
                    help="a parser folder whose own first-level and flattened-label taggers "
                         "(pt0/, nml/) the parsers use")
    ap.add_argument("parsers", nargs="+", help="psg model folders; the first one's tag set is used")
    a = ap.parse_args()
    members = [load_tagger(p) for p in a.parsers]
    first = members[0]
    # each member's columns in the first one's tag order; a tag a member lacks (a rare
    # chain of the sentences it was not trained on) is left out of that tag's mean
    index = [{t: j for j, t in enumerate(m.tags.items)} for m in members]
    columns = [np.array([ix.get(t, 0) for t in first.tags.items]) for ix in index]
    has = np.array([[t in ix for t in first.tags.items] for ix in index])   # [members, K]
    own = [m._scorer for m in members]

    def mean_scorer(sentences, cols, states, chunk):
        # every member's level scorer of the same sentences (a network that reads the words
        # once per sentence keeps what does not change between levels in its scorer)
        scorers = [make(sentences, cols, states, chunk) for make in own]

        def scorer(level, which, below):
            found = [score(level, which, below) for score in scorers]
            parts = list(zip(found, columns, has, strict=True))
            return [sum(np.where(h, f[i][:, c], 0.0) for f, c, h in parts) / has.sum(0)
                    for i in range(len(which))]

        return scorer

    first._scorer = mean_scorer
    if a.taggers:
        first.use_taggers(a.taggers, load_tagger)
    gold = read_gold_conll(a.data / "ewt" / "ewt.dev.gold_conll")
    root = default_model_dir()
    if a.pt0:
        first.first_tagger = None   # the parsers read the column given
    pt0 = a.pt0 or (("of " + str(a.taggers) if a.taggers else "its own") if first.first_tagger
                    else str(root / "pt0"))
    inputs = predict_inputs([("pos", str(root / "pos"))]
                            + ([] if first.first_tagger else [("pt0", pt0)]), gold, a.parsers[0])
    trees = first.parse([s.words for s in inputs], [s.columns for s in inputs])
    score = bracket_scores([conll_to_tree(s.columns["parse"]) for s in gold],
                           [unchain(t) for t in trees], [s.columns["pos"] for s in gold])
    nml = f", {' '.join(first.flattened)} of {a.taggers}" if a.taggers and first.flattened else ""
    print(f"{' + '.join(a.parsers)} (PT0 {pt0}{nml}): bracket F1 {score.f1:.2f} "
          f"(P {score.precision:.2f}, R {score.recall:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
