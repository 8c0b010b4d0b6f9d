"""Predicate identification for SRL on EWT dev: SENNA's verb detector (the `vbs` model)
against the POS rule (SENNA's -posvbs: every word tagged VB*), scored against the dev set's
PropBank predicates (precision / recall / F1), and SRL F1 with the predicates each source
gives next to the gold predicates.  Everything runs as users get it: POS, PT0 and the
verb detector predicted (the cascade), raw dev words in.

    python bench/predicates.py --data ../shared/data

SRL with predicted predicates is scored over the union of gold and predicted predicates:
a missed predicate loses all its arguments, a spurious one counts all it gets as excess.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from senna.io.conll import read_srl
from senna.runtime.pipeline import Pipeline
from senna.scoring.srl_eval import srl_scores
from senna.tags import tags_to_brackets

ROOT = Path(__file__).resolve().parents[1]


def prf(gold: list[set[int]], pred: list[set[int]]) -> tuple[float, float, float]:
    correct = sum(len(g & p) for g, p in zip(gold, pred, strict=True))
    n_pred, n_gold = sum(map(len, pred)), sum(map(len, gold))
    p = 100 * correct / max(n_pred, 1)
    r = 100 * correct / max(n_gold, 1)
    return p, r, 2 * p * r / max(p + r, 1e-9)


def srl_f1(dev: list, tagged: list) -> float:
    """SRL F1 over the union of gold and predicted predicates of every sentence."""
    gold_cols, pred_cols = [], []
    for g, t in zip(dev, tagged, strict=True):
        gold = dict(zip(g.predicates, g.roles, strict=True))
        pred = {p: tags_to_brackets(r) for p, r in zip(t.predicates, t.roles, strict=True)}
        empty = ["*"] * len(g.words)
        union = sorted(set(gold) | set(pred))
        gold_cols.append([gold.get(p, empty) for p in union])
        pred_cols.append([pred.get(p, empty) for p in union])
    return srl_scores(gold_cols, pred_cols).f1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--models", default=str(ROOT / "senna" / "models"))
    a = p.parse_args()
    dev = read_srl(Path(a.data) / "ewt" / "ewt.dev.verbs-args.conll")
    words = [s.words for s in dev]
    gold = [set(s.predicates) for s in dev]
    print("| predicates from | precision | recall | F1 | SRL F1 (predicted POS, PT0) | seconds |")
    print("|---|---|---|---|---|---|")
    for name, source in (("gold (dev set)", None), ("POS rule (-posvbs)", "pos"),
                         ("verb detector (vbs, default)", "vbs")):
        t0 = time.perf_counter()
        pipe = Pipeline(a.models, ["srl"], predicates=source or "pos")
        tagged = pipe.tag(words, [s.predicates for s in dev] if source is None else None)
        found = [set(s.predicates) for s in tagged]
        scores = prf(gold, found)
        pr = "| — | — | — " if source is None else "".join(f"| {x:.2f} " for x in scores)
        print(f"| {name} {pr}| {srl_f1(dev, tagged):.2f} | {time.perf_counter() - t0:.1f} |")
    print(f"\n{len(dev)} sentences, {sum(map(len, gold))} gold predicates "
          "(ewt.dev.verbs-args.conll: verbal predicates with arguments).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
