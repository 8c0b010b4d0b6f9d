"""Does the parser gain from PT0's uncertainty on its first level?  The shipped parser keeps
the PT0 tagger's best phrases on level 0 (`LevelDecoder.keeping`: a tag that disagrees
loses `DISAGREE`), and only the beam's later levels can weigh alternatives.  Here level 0
instead scores each tag by the level network's log-probability plus `alpha` times the log
of PT0's marginal probability of the tag's lowest label (forward-backward over the PT0
tagger's sentence-level scores), so that the beam may keep a PT0 runner-up.  Whole-tree
bracket F1 on EWT dev, predicted POS, for the hard rule and each alpha and beam:

    python bench/parser_soft_first.py --data ../shared/data senna/models/psg --alpha 1 2 4
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)

from senna.decode.constraints import iobes
from senna.io.conll import read_gold_conll
from senna.runtime.ensemble import load_tagger
from senna.runtime.folders import default_model_dir
from senna.scoring.evalb import bracket_scores
from senna.scoring.inputs import predict_inputs
from senna.syntax.levels import lowest_label, unchain
from senna.syntax.tree import conll_to_tree

FLOOR = -30.0   # the log-probability of a label PT0 lacks (B-S, B-PRN, ...)


def log_marginals(e: np.ndarray, trans: np.ndarray, begin: np.ndarray, end: np.ndarray
                  ) -> np.ndarray:
    """A sentence-level model's emissions [n, K] -> each word's log marginal tag
    probabilities [n, K] (forward-backward; -inf transitions are forbidden ones)."""
    n, k = e.shape
    alpha, beta = np.empty((n, k)), np.empty((n, k))
    alpha[0] = begin + e[0]
    for t in range(1, n):
        alpha[t] = np.logaddexp.reduce(alpha[t - 1][:, None] + trans, axis=0) + e[t]
    beta[n - 1] = end
    for t in range(n - 2, -1, -1):
        beta[t] = np.logaddexp.reduce(trans + (e[t + 1] + beta[t + 1])[None, :], 1)
    return alpha + beta - np.logaddexp.reduce(alpha[n - 1] + end, 0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--alpha", type=float, nargs="+", default=[1.0, 2.0, 4.0])
    ap.add_argument("--beam", type=int, nargs="+", default=[2, 4])
    ap.add_argument("parser")
    a = ap.parse_args()
    parser = load_tagger(a.parser)
    pt0 = parser.first_tagger
    if pt0 is None or pt0.cfg.criterion != "sll":
        ap.error("expects a parser with its own sentence-level PT0 tagger (pt0/)")
    gold = read_gold_conll(a.data / "ewt" / "ewt.dev.gold_conll")
    inputs = predict_inputs([("pos", str(default_model_dir() / "pos"))], gold, a.parser)
    words, cols = [s.words for s in inputs], [dict(s.columns) for s in inputs]
    trees_gold = [conll_to_tree(s.columns["parse"]) for s in gold]

    def f1(trees: list) -> str:
        s = bracket_scores(trees_gold, [unchain(t) for t in trees],
                           [s.columns["pos"] for s in gold])
        return f"bracket F1 {s.f1:.2f} (P {s.precision:.2f}, R {s.recall:.2f})"

    for beam in a.beam:
        parser.beam = beam
        print(f"PT0's best phrases kept (shipped), beam {beam}: {f1(parser.parse(words, cols))}",
              flush=True)
    rules = iobes(pt0.tags.items)
    trans = np.where(rules.allowed, np.asarray(pt0.w["transitions"], float), -np.inf)
    begin = np.where(rules.first, np.asarray(pt0.w["start"], float), -np.inf)
    end = np.where(rules.last, 0.0, -np.inf)
    flat = pt0.emissions(words, cols).astype(float)
    marginals = [log_marginals(e, trans, begin, end)
                 for e in np.split(flat, np.cumsum([len(w) for w in words])[:-1])]
    index = {t: i for i, t in enumerate(pt0.tags.items)}
    levels = parser.levels
    column = np.array([index.get(lowest_label(t), len(index)) for t in levels.tags])
    parser.first_tagger = None           # the first level's column: PT0's marginals
    for alpha in a.alpha:
        def soft(emissions: np.ndarray, phrases: list, alpha: float = alpha) -> np.ndarray:
            logp = emissions - np.logaddexp.reduce(emissions, 1)[:, None]
            pt0_logp = np.concatenate([np.asarray(phrases),
                                       np.full((len(emissions), 1), FLOOR)], 1)
            return (logp + alpha * np.maximum(pt0_logp[:, column], FLOOR)).astype(np.float32)

        levels.keeping = soft
        given = [{**c, "pt0": list(m)} for c, m in zip(cols, marginals, strict=True)]
        for beam in a.beam:
            parser.beam = beam
            print(f"PT0's marginals, alpha {alpha:g}, beam {beam}: "
                  f"{f1(parser.parse(words, given))}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
