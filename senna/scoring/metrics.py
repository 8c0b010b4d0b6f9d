"""What every scorer here shares: percentages, F1 and the alignment check, with the
conventions of the CoNLL scripts (a zero denominator gives 0.0), and the plain token
accuracy, a fraction (0-1) as usual for a bare accuracy."""

from __future__ import annotations

from collections.abc import Sequence, Sized


def check_count(gold: Sized, pred: Sized, what: str, where: str = "") -> None:
    """ValueError unless gold and pred have as many items (sentences, tags, columns...)."""
    if len(gold) != len(pred):
        raise ValueError(f"{where}expected {len(gold)} predicted {what} (as many as in gold), "
                         f"got {len(pred)}")


def percent(num: int, den: int) -> float:
    """100 * num / den, or 0.0 for an empty denominator (the scripts' convention)."""
    return 100.0 * num / den if den else 0.0


def f1(precision: float, recall: float) -> float:
    """Harmonic mean; 0.0 when both are 0, as conlleval.pl and srl-eval.pl do."""
    total = precision + recall
    return 2.0 * precision * recall / total if total > 0 else 0.0


def accuracy(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> float:
    """Fraction (0-1) of tokens whose tags are equal, over all sentences; 0.0 without tokens."""
    check_count(gold, pred, "sentences")
    total = right = 0
    for i, (g, p) in enumerate(zip(gold, pred, strict=True)):
        check_count(g, p, "tags", f"sentence {i}: ")
        total += len(g)
        right += sum(a == b for a, b in zip(g, p, strict=True))
    return right / total if total else 0.0
