"""Labelled bracket precision, recall and F1 with the conventions of evalb's COLLINS.prm,
so that parser scores compare with the literature.

What is counted (evalb, `COLLINS.prm`):

* every phrase node's (label, first word, last word), the root `TOP` left out
  (`DELETE_LABEL TOP`); pre-terminals are no brackets;
* labels cut at their first `-` or `=` (function tags: `NP-SBJ` is `NP`);
* punctuation words (`DELETE_LABEL` on their POS) are removed before the spans are
  measured, so a phrase that differs only by punctuation at its edges still matches, and a
  phrase over nothing but punctuation is dropped; COLLINS.prm deletes `,` `:` `` ` ` ``
  `''` `.`; here `HYPH` and `NFP`, the EWT tags for what the Penn Treebank tags `:` or `,`
  (hyphens, emoticons, `***`), are deleted too.  `-LRB-` `-RRB-` `#` `$` are kept, as
  COLLINS.prm keeps them.  Pass `punctuation=COLLINS_PUNCTUATION` for the file's exact set;
* `ADVP` and `PRT` are the same label (`EQ_LABEL ADVP PRT`);
* brackets match one to one as multisets, as evalb pairs each gold bracket with one unused
  test bracket: a unary chain `X -> Y` over one span is two brackets, `NP -> NP` over one
  span (often left when punctuation is removed) two `NP` brackets, each matched once.

Deviation: punctuation is decided by one POS column for both trees (the gold one); evalb
reads each file's own tags and skips a sentence whose test tags disagree on punctuation.
All sentences count (no 40-word cut-off).  Scores are percentages, 0.0 on an empty
denominator, as in `senna.scoring.metrics`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from senna.scoring.metrics import f1, percent
from senna.syntax.tree import ROOT, Tree, plain_label

COLLINS_PUNCTUATION = frozenset({",", ":", "``", "''", "."})
PUNCTUATION = COLLINS_PUNCTUATION | {"HYPH", "NFP"}
EQUIVALENT = {"PRT": "ADVP"}

Bracket = tuple[str, int, int]


@dataclass(frozen=True)
class BracketScore:
    """evalb's summary: scores in percent, bracket counts, sentences matched exactly."""

    precision: float
    recall: float
    f1: float
    gold_brackets: int
    test_brackets: int
    matched: int
    sentences: int
    exact: int


def evalb_brackets(tree: Tree, tags: Sequence[str],
                   punctuation: Collection[str] = PUNCTUATION) -> Counter[Bracket]:
    """The brackets evalb counts for one tree whose words have POS `tags`: spans over the
    words left after removing punctuation, labels cut and made equivalent, TOP dropped."""
    if tree.end != len(tags):
        raise ValueError(f"tree over {tree.end} words, {len(tags)} POS tags")
    kept = [0]
    for tag in tags:
        kept.append(kept[-1] + (tag not in punctuation))
    out: Counter[Bracket] = Counter()
    for t in tree.nodes():
        label = plain_label(t.label)
        start, end = kept[t.start], kept[t.end]
        if t.label != ROOT and start < end:
            out[EQUIVALENT.get(label, label), start, end] += 1
    return out


def bracket_scores(gold: Sequence[Tree], test: Sequence[Tree], tags: Sequence[Sequence[str]],
                   punctuation: Collection[str] = PUNCTUATION) -> BracketScore:
    """evalb over a corpus: gold and test trees (chains split, see `levels.unchain`) and each
    sentence's POS tags; ValueError when the counts or sentence lengths disagree."""
    if not len(gold) == len(test) == len(tags):
        raise ValueError(f"expected as many test trees and tag lists as gold trees "
                         f"({len(gold)}), got {len(test)} and {len(tags)}")
    n_gold = n_test = matched = exact = 0
    for i, (g, t, pos) in enumerate(zip(gold, test, tags, strict=True)):
        if t.start != g.start or t.end != g.end:
            raise ValueError(f"sentence {i}: test tree covers words {t.start}..{t.end}, "
                             f"gold tree {g.start}..{g.end}")
        gb, tb = evalb_brackets(g, pos, punctuation), evalb_brackets(t, pos, punctuation)
        hits = sum((gb & tb).values())
        size_g, size_t = sum(gb.values()), sum(tb.values())
        n_gold, n_test, matched = n_gold + size_g, n_test + size_t, matched + hits
        exact += size_g == size_t == hits
    p, r = percent(matched, n_test), percent(matched, n_gold)
    return BracketScore(p, r, f1(p, r), n_gold, n_test, matched, len(gold), exact)


def format_brackets(score: BracketScore) -> str:
    """evalb's summary lines for a corpus."""
    exact = percent(score.exact, score.sentences)
    return (f"Number of sentence        = {score.sentences:6d}\n"
            f"Bracketing Recall         = {score.recall:6.2f}\n"
            f"Bracketing Precision      = {score.precision:6.2f}\n"
            f"Bracketing FMeasure       = {score.f1:6.2f}\n"
            f"Complete match            = {exact:6.2f}\n"
            f"Brackets gold / test / matched = {score.gold_brackets} / "
            f"{score.test_brackets} / {score.matched}\n")
