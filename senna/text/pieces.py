"""Where a sentence longer than MAX_WORDS words is cut into pieces that are tagged as
sentences of their own (and written whole again: senna.io.output), so that memory and time
per word stay bounded whatever one input line holds: SRL gives every predicate a role
column over its sentence, so a sentence of N words costs in proportion to N squared.

MAX_WORDS = 128 lies above every sentence of the dev sets (the longest: 109 words in
CoNLL-2003 eng.testa, 75 in EWT dev, 78 in CoNLL-2000) and all but two training sentences
(EWT train: 135 and 159 words), so tagging on those sets is unchanged; it is also the
length up to which SRL rows cover the whole sentence (senna.runtime.model.SRL_EXACT).
A cut goes after the last strong boundary in the second half of the piece: sentence-final
punctuation, else `;`/`:`/dashes, else a comma; with none (text without punctuation: a
transcript, a list of tags), the sentence is cut into pieces of equal length of at most
UNMARKED words, about an ordinary sentence's, since nothing says where its sentences end
and SRL's cost per predicate grows with the square of the words its row covers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

__all__ = ["BOUNDARIES", "MAX_WORDS", "UNMARKED", "piece_bounds", "token_groups",
           "token_ranges"]

T = TypeVar("T")

MAX_WORDS = 128
UNMARKED = 24
# Tokens after which a cut is best, strongest first.
BOUNDARIES: tuple[frozenset[str], ...] = (
    frozenset({".", "!", "?", "...", "\u2026", "?!", "!?"}),
    frozenset({";", ":", "--", "\u2013", "\u2014"}),
    frozenset({","}),
)


def _cut(words: Sequence[str], start: int, limit: int) -> tuple[int, bool]:
    """End of the piece of at most `limit` words that starts at `start`, and whether a
    boundary marked it (else it is one of equal pieces of at most UNMARKED words of the
    rest)."""
    hi = min(start + limit, len(words) - 1)           # a cut after word j, lo <= j < hi
    lo = start + limit // 2
    for marks in BOUNDARIES:
        for j in range(hi - 1, lo - 1, -1):
            if words[j] in marks:
                return j + 1, True
    rest = len(words) - start
    pieces = -(-rest // min(limit, UNMARKED))
    return start + -(-rest // pieces), False


def piece_bounds(words: Sequence[str], limit: int = MAX_WORDS) -> list[tuple[int, int]]:
    """Consecutive [start, end) pieces of at most `limit` words covering `words`: the
    whole sentence when it is no longer than `limit` (an empty one included).  Once a
    stretch without boundaries is cut, its rest is cut in the same equal pieces."""
    if limit < 1:
        raise ValueError(f"the longest piece must be at least 1 word, got {limit}")
    out, start, n, most = [], 0, len(words), limit
    while n - start > most:
        end, marked = _cut(words, start, most)
        out.append((start, end))
        start, most = end, limit if marked else min(limit, UNMARKED)
    out.append((start, n))
    return out


def token_groups(items: Iterable[T], size: Callable[[T], int], most: int) -> Iterator[list[T]]:
    """Consecutive groups of items whose sizes add up to at most `most` (an item larger than
    that gets a group of its own), read lazily: network passes, chunks of written output."""
    group: list[T] = []
    total = 0
    for item in items:
        n = size(item)
        if group and total + n > most:
            yield group
            group, total = [], 0
        group.append(item)
        total += n
    if group:
        yield group


def token_ranges(lengths: Sequence[int], max_tokens: int) -> Iterator[tuple[int, int]]:
    """Consecutive [lo, hi) groups of sentences of at most `max_tokens` tokens in all
    (`token_groups` of their lengths)."""
    lo = 0
    for group in token_groups(lengths, int, max_tokens):
        yield lo, lo + len(group)
        lo += len(group)
