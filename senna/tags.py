"""Tagging-scheme conversions: tag sequences <-> labelled spans <-> CoNLL-2005 bracket columns.

Spans are `(label, start, end)` with `end` exclusive.  Chunks are read from tags with the
startOfChunk/endOfChunk rules of conlleval.pl, so that training data, decoder output and
the scorer in `senna.scoring.conlleval` all agree on what a chunk is.

conlleval.pl details reproduced here:

* A tag is split at its FIRST dash: `B-ARG-X` is prefix `B`, type `ARG-X`.  A tag without
  a dash (`O`, `NP`, `B`) is all prefix, with the empty type `""`.
* A chunk starts on `B` after `B`/`I`/`O`, on `I` after `O`, on `E` after `E`/`O`, on `I`
  after `E`, and on any tag other than `O`/`.` whose type differs from the previous one.
  It ends before `B`/`O` after `B`/`I`, before `E`/`I`/`O` after `E`, and before any tag
  whose type differs from that of a previous tag other than `O`/`.`.
* `[` and `]` are one-token chunks; `.`, like `O`, is exempt from the type-change rules
  but, unlike `O`, appears in none of the pairs above.  A sentence starts on an implicit
  `O`, and no chunk runs past its last token.

Deviation: conlleval.pl knows no `S-` prefix and does not end a chunk at `E-X B-X` or
`S-X S-X`, so it merges adjacent IOBES chunks of one type.  The extra rules below
(`S` always starts and ends a chunk; `E` ends before `B`/`S`; `B`/`I` end before `S`;
`B`/`I`/`E` start after `S` or `E`) make IOBES work and never fire on the IOB1, IOB2,
IOE1 or IOE2 input that conlleval.pl was written for, where results are unchanged.
Not reproduced: Perl reads the type `0` (as in `B-0`) as false, i.e. as the empty type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress, repeat

Span = tuple[str, int, int]

SCHEMES = ("iob1", "iob2", "iobes", "bilou")
# The prefixes of each scheme's tags besides O (a type follows the dash: B-PER).
PREFIXES = {"iob1": ("B", "I"), "iob2": ("B", "I"), "iobes": ("B", "I", "E", "S"),
            "bilou": ("B", "I", "L", "U")}
BILOU = {"L": "E", "U": "S"}   # BILOU is IOBES under other names: Last = End, Unit = Single

_END_PAIRS = frozenset({
    ("B", "B"), ("B", "O"), ("I", "B"), ("I", "O"), ("E", "E"), ("E", "I"), ("E", "O"),
    ("E", "B"), ("E", "S"), ("B", "S"), ("I", "S"),          # IOBES extension
})
_START_PAIRS = frozenset({
    ("B", "B"), ("I", "B"), ("O", "B"), ("O", "I"), ("E", "E"), ("E", "I"), ("O", "E"),
    ("E", "B"), ("S", "B"), ("S", "I"), ("S", "E"),          # IOBES extension
})
_OUTSIDE = ("O", ".")
_BRACKET_TOKEN = re.compile(r"^((?:\([^()*\s]+)*)\*((?:[^()*\s]*\))*)$")


def split_tag(tag: str) -> tuple[str, str]:
    """`B-ARG-X` -> (`B`, `ARG-X`); `O` -> (`O`, ``): conlleval's `^([^-]*)-(.*)$` split."""
    prefix, dash, kind = tag.partition("-")
    return (prefix, kind) if dash else (tag, "")


def _end_of_chunk(prev: str, prev_type: str, tag: str, kind: str) -> bool:
    """conlleval.pl endOfChunk (plus the IOBES rules): does a chunk end before `tag`?"""
    if (prev, tag) in _END_PAIRS or prev in ("S", "[", "]"):
        return True
    return prev not in _OUTSIDE and prev_type != kind


def _start_of_chunk(prev: str, prev_type: str, tag: str, kind: str) -> bool:
    """conlleval.pl startOfChunk (plus the IOBES rules): does a chunk start at `tag`?"""
    if (prev, tag) in _START_PAIRS or tag in ("S", "[", "]"):
        return True
    return tag not in _OUTSIDE and prev_type != kind


class RoleTags(Sequence[str]):
    """A tag column that is O outside words [start, start + len(tags)): the role column of
    a predicate whose row covers only a window of a long sentence, held in memory in
    proportion to the window instead of the sentence.  Reads like a list of `length` tags;
    its copies (`copy.deepcopy`, hence `dataclasses.asdict`) are plain lists."""

    __slots__ = ("length", "start", "tags")

    def __init__(self, length: int, start: int, tags: Sequence[str]):
        if not 0 <= start <= start + len(tags) <= length:
            raise ValueError(f"tags for words {start}..{start + len(tags)} do not fit in "
                             f"{length} words")
        self.length, self.start, self.tags = length, start, list(tags)

    def __len__(self) -> int:
        return self.length

    def __iter__(self) -> Iterator[str]:
        tail = self.length - self.start - len(self.tags)
        return chain(repeat("O", self.start), self.tags, repeat("O", tail))

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):        # in proportion to the slice, not the column
            lo, hi, step = i.indices(self.length)
            if step != 1:
                return list(self)[i]
            hi, s = max(lo, hi), self.start
            before = max(0, min(hi, s) - lo)
            inner = self.tags[max(lo, s) - s : max(0, min(hi, s + len(self.tags)) - s)]
            return ["O"] * before + inner + ["O"] * (hi - lo - before - len(inner))
        j = range(self.length)[i] - self.start        # IndexError outside the column
        return self.tags[j] if 0 <= j < len(self.tags) else "O"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RoleTags | list | tuple):
            return len(other) == self.length and list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"RoleTags({self.length}, {self.start}, {self.tags!r})"

    def __deepcopy__(self, memo: dict) -> list[str]:
        return list(self)


def _inside(tags: Sequence[str]) -> tuple[int, Sequence[str]]:
    """(offset, tags[offset:end]) without the O runs at either end, which change no span
    (found with C-speed counts, so a long column of O costs microseconds); the whole
    column if it ends on `.`, which keeps a chunk open through the O that follow."""
    if isinstance(tags, RoleTags):
        return tags.start, tags.tags
    if not isinstance(tags, list) or len(tags) < 64:
        return 0, tags
    lo, hi = 0, len(tags)                          # first tag other than O: in [lo, hi]
    while lo < hi:
        mid = (lo + hi) // 2
        if tags[lo : mid + 1].count("O") == mid + 1 - lo:
            lo = mid + 1
        else:
            hi = mid
    first = lo
    lo, hi = first, len(tags)                      # end of the last tag other than O
    while lo < hi:
        mid = (lo + hi) // 2
        if tags[mid:].count("O") == len(tags) - mid:
            hi = mid
        else:
            lo = mid + 1
    if lo > first and tags[lo - 1] == ".":
        return 0, tags
    return first, tags[first:lo]


def tags_to_spans(tags: Sequence[str]) -> list[Span]:
    """Chunks of one sentence as conlleval.pl sees them, in order of their start.

    A chunk takes the type of its first tag.  Where the rules say a chunk starts while
    another is open, the open one is closed there (conlleval counts chunks by starts).
    BILOU tags are read as the IOBES tags they rename (L- as E-, U- as S-).
    """
    offset, inside = _inside(tags)
    found = _iobes_spans(inside)   # what the taggers give; any other column is read below
    if found is None:
        if any(t[:2] in ("L-", "U-") for t in inside):
            inside = [BILOU[t[0]] + t[1:] if t[:2] in ("L-", "U-") else t for t in inside]
        found = _conlleval_spans(inside)
    if not offset:
        return found
    return [(label, start + offset, end + offset) for label, start, end in found]


_NOT_O = "O".__ne__


def _iobes_spans(tags: Sequence[str]) -> list[Span] | None:
    """The chunks of a well-formed IOBES column (S-X alone; B-X, I-X..., E-X of one type,
    adjacent), which are conlleval's for it; None for any other column (other prefixes,
    an untyped or broken chunk), left to `_conlleval_spans`."""
    spans: list[Span] = []
    start, label, last = -1, "", -2
    for i in compress(range(len(tags)), map(_NOT_O, tags)):
        tag = tags[i]
        prefix, kind = tag[:2], tag[2:]
        if not kind:
            return None
        if prefix == "S-" or prefix == "B-":
            if start >= 0:
                return None
            if prefix == "S-":
                spans.append((kind, i, i + 1))
            else:
                start, label = i, kind
        elif (prefix == "I-" or prefix == "E-") and start >= 0 and last == i - 1 \
                and kind == label:
            if prefix == "E-":
                spans.append((label, start, i + 1))
                start = -1
        else:
            return None
        last = i
    return None if start >= 0 else spans


def _conlleval_spans(tags: Sequence[str]) -> list[Span]:
    """conlleval.pl's chunks of any column (the reference `_iobes_spans` agrees with)."""
    spans: list[Span] = []
    start: int | None = None
    label = ""
    prev, prev_type = "O", ""
    last = "O"
    for i, tag in enumerate(tags):
        if tag == "O" == last and start is None:   # O after O outside a chunk: no change
            continue
        last = tag
        cur, kind = split_tag(tag)
        starts = _start_of_chunk(prev, prev_type, cur, kind)
        if start is not None and (starts or _end_of_chunk(prev, prev_type, cur, kind)):
            spans.append((label, start, i))
            start = None
        if starts:
            start, label = i, kind
        prev, prev_type = cur, kind
    if start is not None:
        spans.append((label, start, len(tags)))
    return spans


def _checked_spans(spans: Iterable[Span], length: int) -> list[Span]:
    """Spans sorted by start; ValueError unless they lie inside the sentence and are disjoint."""
    ordered = sorted(spans, key=lambda s: (s[1], s[2]))
    last_end = 0
    for label, start, end in ordered:
        if not 0 <= start < end <= length:
            raise ValueError(f"span {(label, start, end)!r} does not fit in a sentence of "
                             f"{length} tokens (expected 0 <= start < end <= {length})")
        if start < last_end:
            raise ValueError(f"span {(label, start, end)!r} overlaps a previous span "
                             f"ending at {last_end}; expected disjoint spans")
        last_end = end
    return ordered


def _tag(prefix: str, label: str) -> str:
    """Untyped chunks (label ``) get a bare prefix, as conlleval reads them back."""
    return f"{prefix}-{label}" if label else prefix


def spans_to_tags(spans: Iterable[Span], length: int, scheme: str) -> list[str]:
    """Tags of `length` tokens in `scheme`; ValueError on unknown schemes or bad spans.

    iob1 writes `B-` only on the first token of a span that directly follows a span of the
    same type; iob2 writes `B-` on every first token; iobes adds `E-` ends and `S-` singles;
    bilou is iobes with `L-` ends and `U-` units.
    """
    if scheme not in SCHEMES:
        raise ValueError(f"unknown tagging scheme {scheme!r}; expected one of {SCHEMES}")
    tags = ["O"] * length
    prev: Span | None = None
    for label, start, end in _checked_spans(spans, length):
        for i in range(start, end):
            tags[i] = _tag("I", label)
        if scheme in ("iobes", "bilou"):
            last, single = ("E", "S") if scheme == "iobes" else ("L", "U")
            if end - start == 1:
                tags[start] = _tag(single, label)
            else:
                tags[start], tags[end - 1] = _tag("B", label), _tag(last, label)
        elif scheme == "iob2" or (prev is not None and prev[0] == label and prev[2] == start):
            tags[start] = _tag("B", label)
        prev = (label, start, end)
    return tags


def convert(tags: Sequence[str], target_scheme: str) -> list[str]:
    """Re-tag a sentence in `target_scheme`, keeping exactly the chunks conlleval reads."""
    return spans_to_tags(tags_to_spans(tags), len(tags), target_scheme)


def _parse_bracket_token(i: int, token: str) -> tuple[list[str], list[str]]:
    """`(A0*` -> (['A0'], []); `*)` -> ([], ['']); `*A0)` (CoNLL-2004 style) -> ([], ['A0'])."""
    match = _BRACKET_TOKEN.match(token)
    if match is None:
        raise ValueError(f"token {i}: expected a bracket item like '(A0*', '*', '*)' or "
                         f"'(V*)', got {token!r}")
    opens = match.group(1).split("(")[1:]
    closes = match.group(2).split(")")[:-1]
    return opens, closes


def brackets_to_spans(column: Sequence[str]) -> list[Span]:
    """Spans of one CoNLL-2005 proposition column, e.g. ["(A0*", "*)", "(V*)"].

    Closing brackets may repeat the label (`*A0)`, CoNLL-2004) and must then match.
    ValueError on malformed items and unbalanced brackets.
    """
    spans: list[Span] = []
    stack: list[tuple[str, int]] = []
    for i, token in enumerate(column):
        opens, closes = _parse_bracket_token(i, token)
        stack.extend((label, i) for label in opens)
        for label in closes:
            if not stack:
                raise ValueError(f"unbalanced brackets: token {i} ({token!r}) closes a "
                                 "bracket that was never opened")
            open_label, start = stack.pop()
            if label and label != open_label:
                raise ValueError(f"unbalanced brackets: token {i} ({token!r}) closes "
                                 f"{label!r} but the open bracket is {open_label!r}")
            spans.append((open_label, start, i + 1))
    if stack:
        label, start = stack[-1]
        raise ValueError(f"unbalanced brackets: '({label}' opened at token {start} is never "
                         f"closed in a column of {len(column)} tokens")
    return sorted(spans, key=lambda s: (s[1], -s[2]))


def spans_to_brackets(spans: Iterable[Span], length: int) -> list[str]:
    """CoNLL-2005 bracket column for disjoint spans; ValueError if they overlap or nest."""
    column = ["*"] * length
    for label, start, end in _checked_spans(spans, length):
        column[start] = f"({label}{column[start]}"
        column[end - 1] = f"{column[end - 1]})"
    return column


def clip_brackets(column: Sequence[str], start: int, end: int) -> list[str]:
    """Cells [start, end) of a bracket column, a proposition's or a tree's (nested
    brackets, e.g. "(S(NP*"), each bracket that crosses the cut clipped to the piece: how a
    sentence too long to train on whole is cut (senna.datasets.cut_long)."""
    opens = [""] * (end - start)
    closes = [0] * (end - start)
    for label, s, e in brackets_to_spans(column):
        if s < end and e > start:
            opens[max(s, start) - start] += f"({label}"
            closes[min(e, end) - 1 - start] += 1
    return [f"{o}*{')' * c}" for o, c in zip(opens, closes, strict=True)]


def brackets_to_tags(column: Sequence[str], scheme: str = "iobes") -> list[str]:
    """Bracket column -> per-token tags in `scheme` (how SRL targets are trained)."""
    return spans_to_tags(brackets_to_spans(column), len(column), scheme)


def tags_to_brackets(tags: Sequence[str]) -> list[str]:
    """Per-token tags (any scheme) -> bracket column (how SRL output is written)."""
    return spans_to_brackets(tags_to_spans(tags), len(tags))
