"""What the parser should do next from a state it reached by its own mistakes (a dynamic
oracle, Goldberg and Nivre 2012, for the level parser of `senna.syntax.decode`).

Why: the level network is trained on the gold levels only, each read with the gold levels
below it (`senna.io.treebank.read_levels`).  At run time it reads the levels it found itself;
once one is wrong it is in a state training never showed it, and errors compound up the
tree.  Training also on the states a parser really reaches, each with the best next level
from there, teaches it to recover (`senna.train.explore`).

A state is what the network reads: `level_features`, the highest phrase found so far over
each word.  Its units are those phrases and the words in none.  The best next level
builds the gold phrases that can still be built, lowest first: a gold phrase whose ends
are unit ends and that groups two units or more (a phrase that cuts through a unit can
never be built; one that wraps a single unit would be a unary chain, one node), and that
holds no other such phrase.  These never overlap (gold phrases nest or are disjoint).
From a gold state this is exactly the next gold level; with nothing left to build it is
a level of `O`, which ends the parse.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from senna.tags import Span, tags_to_spans


def units_of(state: Sequence[str]) -> list[tuple[int, int]]:
    """A state (`level_features` tags) -> its units' word extents (start, end), in order."""
    out, at = [], 0
    for _, a, b in tags_to_spans(state):
        out += [(i, i + 1) for i in range(at, a)] + [(a, b)]
        at = b
    return out + [(i, i + 1) for i in range(at, len(state))]


def next_level(state: Sequence[str], gold: Iterable[Span]) -> list[Span]:
    """The phrases of the best next level from `state`, among the gold tree's phrases
    (`gold`: every level's spans, chains as one `A#B` label), in order of their start."""
    units = units_of(state)
    first = {a: i for i, (a, _) in enumerate(units)}
    last = {b: i for i, (_, b) in enumerate(units)}
    buildable = [(label, a, b) for label, a, b in gold
                 if a in first and b in last and last[b] > first[a]]
    return sorted(((label, a, b) for label, a, b in buildable
                   if not any((c, d) != (a, b) and a <= c and d <= b for _, c, d in buildable)),
                  key=lambda span: span[1])
