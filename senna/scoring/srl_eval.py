"""srl-eval.pl's scores (CoNLL-2005 SRL), so that numbers compare with papers: argument
precision, recall and F1 in percent (V excluded), per-label rows, the V row and the
perfect propositions, and a report laid out as the script's.  Misaligned inputs raise
ValueError naming what was expected and what arrived."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from senna.scoring.metrics import check_count, f1, percent
from senna.tags import Span, brackets_to_spans

Argument = tuple[str, tuple[tuple[int, int], ...]]
"""An SRL argument: its label and its pieces `(start, end)`, end exclusive, sorted."""

_VERB_LABELS = ("V", "C-V")


class SrlRow(NamedTuple):
    """One srl-eval.pl table row: counts, then scores in percent."""

    correct: int
    excess: int
    missed: int
    precision: float
    recall: float
    f1: float


def _srl_row(correct: int, excess: int, missed: int) -> SrlRow:
    """Row with precision = corr/(corr+excess), recall = corr/(corr+missed)."""
    p, r = percent(correct, correct + excess), percent(correct, correct + missed)
    return SrlRow(correct, excess, missed, p, r, f1(p, r))


@dataclass(frozen=True)
class SrlScore:
    """What srl-eval.pl reports: overall (V excluded), per-label rows and the V row."""

    precision: float
    recall: float
    f1: float
    correct: int
    excess: int
    missed: int
    sentences: int
    propositions: int
    perfect_propositions: int
    per_label: dict[str, SrlRow] = field(default_factory=dict)
    verb: SrlRow = field(default_factory=lambda: _srl_row(0, 0, 0))

    @property
    def overall(self) -> SrlRow:
        """The `Overall` row."""
        return SrlRow(self.correct, self.excess, self.missed,
                      self.precision, self.recall, self.f1)


def _merge_continuations(spans: Iterable[Span]) -> list[Argument]:
    """Join each `C-X` span to the closest preceding `X` argument; an orphan stays `C-X`."""
    args: list[tuple[str, list[tuple[int, int]]]] = []
    last: dict[str, int] = {}
    for label, start, end in sorted(spans, key=lambda s: (s[1], s[2])):
        base = label[2:] if label.startswith("C-") else None
        if base is not None and base in last:
            args[last[base]][1].append((start, end))
            continue
        last[label] = len(args)
        args.append((label, [(start, end)]))
    return [(label, tuple(pieces)) for label, pieces in args]


def srl_arguments(spans: Iterable[Span]) -> set[Argument]:
    """Arguments of one proposition as srl-eval.pl scores them: `V` (and `C-V`) left out,
    `C-X` merged into its `X` (one discontinuous argument), `R-X` kept under its own label.

    Written from memory of srl-eval.pl; unsure points: a `C-X` joins the closest `X`
    before it, and a `C-X` with no `X` before it is scored as its own label `C-X`.
    """
    return {arg for arg in _merge_continuations(spans) if arg[0] not in _VERB_LABELS}


def _verb_arguments(spans: Iterable[Span]) -> set[Argument]:
    """The predicate itself (with any `C-V` piece), scored apart as srl-eval.pl's V row."""
    return {arg for arg in _merge_continuations(spans) if arg[0] == "V"}


def _tally(gold: set[Argument], pred: set[Argument], counts: dict[str, list[int]]) -> bool:
    """Add [correct, excess, missed] per label; True if the proposition is perfect."""
    for which, args in enumerate((gold & pred, pred - gold, gold - pred)):
        for label, _ in args:
            counts[label][which] += 1
    return gold == pred


def _column_spans(column: Sequence[str], where: str) -> list[Span]:
    """brackets_to_spans with the sentence/predicate position in the error message."""
    try:
        return brackets_to_spans(column)
    except ValueError as err:
        raise ValueError(f"{where}{err}") from err


def srl_scores(gold: Sequence[Sequence[Sequence[str]]],
               pred: Sequence[Sequence[Sequence[str]]]) -> SrlScore:
    """srl-eval.pl on sentences -> predicate columns -> CoNLL-2005 bracket items.

    Gold and predicted columns are aligned per predicate.  An argument is correct iff the
    other side has one with the same label and exactly the same piece(s); see
    `srl_arguments` for what counts as an argument.  A proposition is perfect when its
    arguments have no excess and no miss (unsure whether srl-eval.pl also asks for the V
    to match; gold and predicted V normally coincide).  The predicate itself is scored
    apart in `verb`, like srl-eval.pl's V row.
    """
    check_count(gold, pred, "sentences")
    counts: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    verb_counts: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    propositions = perfect = 0
    for i, (g_sent, p_sent) in enumerate(zip(gold, pred, strict=True)):
        check_count(g_sent, p_sent, "predicate columns", f"sentence {i}: ")
        for j, (g_col, p_col) in enumerate(zip(g_sent, p_sent, strict=True)):
            where = f"sentence {i}, predicate {j}: "
            check_count(g_col, p_col, "tokens", where)
            g_spans = _column_spans(g_col, f"{where}gold: ")
            p_spans = _column_spans(p_col, f"{where}predicted: ")
            perfect += _tally(srl_arguments(g_spans), srl_arguments(p_spans), counts)
            _tally(_verb_arguments(g_spans), _verb_arguments(p_spans), verb_counts)
            propositions += 1
    per_label = {label: _srl_row(*counts[label]) for label in sorted(counts)}
    total = _srl_row(*(sum(c[k] for c in counts.values()) for k in range(3)))
    return SrlScore(precision=total.precision, recall=total.recall, f1=total.f1,
                    correct=total.correct, excess=total.excess, missed=total.missed,
                    sentences=len(gold), propositions=propositions,
                    perfect_propositions=perfect, per_label=per_label,
                    verb=_srl_row(*verb_counts["V"]))


def _srl_line(name: str, row: SrlRow) -> str:
    """One table row in srl-eval.pl's layout (60 characters wide)."""
    return (f"{name:>10}   {row.correct:6d}  {row.excess:6d}  {row.missed:6d}   "
            f"{row.precision:6.2f}  {row.recall:6.2f}  {row.f1:6.2f}")


def format_srl_eval(score: SrlScore) -> str:
    """A results table laid out like srl-eval.pl's.

    Written from memory of the script's output: the headings, column order, the 60-dash
    rules and the separate V row are as it prints them; exact column widths may differ by
    a space, so compare numbers, not bytes, with the original.
    """
    rule = "-" * 60
    header = (f"{'':>10}   {'corr.':>6}  {'excess':>6}  {'missed':>6}   "
              f"{'prec.':>6}  {'rec.':>6}  {'F1':>6}")
    lines = [
        f"Number of Sentences    :      {score.sentences:6d}",
        f"Number of Propositions :      {score.propositions:6d}",
        "Percentage of perfect props : "
        f"{percent(score.perfect_propositions, score.propositions):6.2f}",
        "",
        header,
        rule,
        _srl_line("Overall", score.overall),
        "-" * 10,
        *(_srl_line(label, row) for label, row in sorted(score.per_label.items())),
        rule,
        _srl_line("V", score.verb),
        rule,
    ]
    return "\n".join(lines) + "\n"
