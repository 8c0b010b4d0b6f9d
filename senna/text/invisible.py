"""Characters that display as nothing, and how tokens leave them out.

Why: control characters copied to the output reach the user's terminal (ESC starts escape
sequences), a byte-order mark at the start of a file became a token or stuck to the first
one, and zero-width characters became tokens of their own.  The tokenisers therefore read
the text *as displayed*: these characters are dropped before tokens are found, while token
offsets keep indexing the original text.  A token's text is then
``visible(text[t.start:t.end])``: equal to the slice unless an invisible character sits
inside the token (e.g. "co\\u00adop" gives the token "coop" over 7 characters); a token
never starts or ends with one, and none is made of them alone.

The set: control characters (Unicode category Cc) that are not whitespace for
`str.isspace` (tab, newline, U+001C..U+001F and U+0085 stay separators), the soft hyphen,
zero-width space/non-joiner/joiner, the bidirectional marks, embeddings, overrides and
isolates (which can reorder what a terminal shows), the word joiner and invisible
operators U+2060..U+2064, and the byte-order mark / zero-width no-break space U+FEFF.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

__all__ = ["INVISIBLE", "INVISIBLE_CHARS", "visible", "visible_with_offsets"]

INVISIBLE_CHARS = ("\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\u00ad\u200b-\u200f\u202a-\u202e"
                   "\u2060-\u2064\u2066-\u2069\ufeff")
INVISIBLE = re.compile(f"[{INVISIBLE_CHARS}]+")


def visible(text: str) -> str:
    """`text` without its invisible characters."""
    return INVISIBLE.sub("", text) if INVISIBLE.search(text) else text


def visible_with_offsets(text: str) -> tuple[str, Callable[[int], int] | None]:
    """-> (visible text, map from its indices to indices of `text`), the map None when
    nothing was removed.  A map over runs (bisect), so a text of mostly control
    characters costs no per-character table."""
    runs = [(m.start(), m.end()) for m in INVISIBLE.finditer(text)]
    if not runs:
        return text, None
    starts: list[int] = []   # where each run sits in the visible text
    removed: list[int] = []  # characters removed up to and including each run
    total = 0
    for s, e in runs:
        starts.append(s - total)
        total += e - s
        removed.append(total)

    def original(i: int) -> int:
        k = bisect_right(starts, i)
        return i + (removed[k - 1] if k else 0)

    return INVISIBLE.sub("", text), original
