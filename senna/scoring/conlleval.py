"""conlleval.pl's scores (CoNLL-2000 chunking, CoNLL-2003 NER), so that numbers compare
with papers: span precision, recall and F1 and token accuracy, all in percent, and the
report text the script prints.  Misaligned inputs raise ValueError naming what was
expected and what arrived."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from senna.scoring.metrics import check_count, f1, percent
from senna.tags import split_tag, tags_to_spans


class TypeScore(NamedTuple):
    """One conlleval per-type line: scores in percent and the number of predicted chunks."""

    precision: float
    recall: float
    f1: float
    found: int


@dataclass(frozen=True)
class ChunkScore:
    """What conlleval.pl reports: overall scores (percent), counts, per-type rows."""

    precision: float
    recall: float
    f1: float
    accuracy: float
    tokens: int
    gold_phrases: int
    found_phrases: int
    correct_phrases: int
    per_type: dict[str, TypeScore] = field(default_factory=dict)


def chunk_scores(gold_sents: Sequence[Sequence[str]],
                 pred_sents: Sequence[Sequence[str]]) -> ChunkScore:
    """conlleval.pl on aligned sentences of tags (any of IOB1/IOB2/IOBES, even mixed).

    A predicted chunk is correct iff a gold chunk has the same start, end and type.  Token
    accuracy compares tags as conlleval does, i.e. as (prefix, type) pairs.
    """
    check_count(gold_sents, pred_sents, "sentences")
    gold_n: Counter[str] = Counter()
    found_n: Counter[str] = Counter()
    correct_n: Counter[str] = Counter()
    tokens = right = 0
    for i, (gold, pred) in enumerate(zip(gold_sents, pred_sents, strict=True)):
        check_count(gold, pred, "tags", f"sentence {i}: ")
        tokens += len(gold)
        right += sum(split_tag(g) == split_tag(p) for g, p in zip(gold, pred, strict=True))
        gold_spans, pred_spans = tags_to_spans(gold), tags_to_spans(pred)
        gold_n.update(label for label, _, _ in gold_spans)
        found_n.update(label for label, _, _ in pred_spans)
        correct_n.update(label for label, _, _ in set(gold_spans) & set(pred_spans))
    per_type = {}
    for kind in sorted(set(gold_n) | set(found_n)):
        p, r = percent(correct_n[kind], found_n[kind]), percent(correct_n[kind], gold_n[kind])
        per_type[kind] = TypeScore(p, r, f1(p, r), found_n[kind])
    correct, found, in_gold = correct_n.total(), found_n.total(), gold_n.total()
    p, r = percent(correct, found), percent(correct, in_gold)
    return ChunkScore(precision=p, recall=r, f1=f1(p, r), accuracy=percent(right, tokens),
                      tokens=tokens, gold_phrases=in_gold, found_phrases=found,
                      correct_phrases=correct, per_type=per_type)


def format_conlleval(score: ChunkScore) -> str:
    """The text conlleval.pl prints (no accuracy line when there are no tokens, like it)."""
    lines = [f"processed {score.tokens} tokens with {score.gold_phrases} phrases; "
             f"found: {score.found_phrases} phrases; correct: {score.correct_phrases}."]
    if score.tokens > 0:
        lines.append(f"accuracy: {score.accuracy:6.2f}%; precision: {score.precision:6.2f}%; "
                     f"recall: {score.recall:6.2f}%; FB1: {score.f1:6.2f}")
    for kind, row in sorted(score.per_type.items()):
        lines.append(f"{kind:>17}: precision: {row.precision:6.2f}%; "
                     f"recall: {row.recall:6.2f}%; FB1: {row.f1:6.2f}  {row.found}")
    return "\n".join(lines) + "\n"
