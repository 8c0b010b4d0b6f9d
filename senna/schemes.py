"""Which tag scheme a file's columns are in (IOB1, IOB2, IOBES, BILOU), told from the tags
themselves, with the evidence for it (`scheme_evidence`): how many tags show each scheme and
which tags no scheme allows where they stand (`violations`), so that one stray tag in a
large file is named, not taken for the file's scheme."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from senna.tags import BILOU, PREFIXES, SCHEMES, split_tag


class SchemeError(ValueError):
    """Tags that fit no scheme; `where` is (sentence, token) of the tag that shows it."""

    def __init__(self, message: str, where: tuple[int, int]):
        super().__init__(message)
        self.where = where


def _is_span_tag(tag: str) -> bool:
    prefix, kind = split_tag(tag)
    return prefix in "BIESLU" and len(prefix) == 1 and bool(kind)


def detect_scheme(columns: Sequence[Sequence[str]]) -> str:
    """The scheme of a file's tag columns (`scheme_evidence`)."""
    return scheme_evidence(columns).scheme


# A file whose tags mostly fit one scheme is read in it when at most 1 tag in MIXED_SHARE
# of its span tags does not fit (a stray I- after O among 264k tokens of CoNLL-2002's
# esp.train); beyond that its tags fit no scheme and it is refused.
MIXED_SHARE = 100
SHOWN = 5   # offending tags whose place a note or error lists


@dataclass(frozen=True)
class SchemeEvidence:
    """What a file's tags show about their scheme: the scheme read, the count of each
    prefix (O included), the chunks starting with I- (after O or another type: IOB1's
    mark), the (sentence, token) of the first tag that shows the scheme, and the tags that
    do not fit it (the first SHOWN places and their number), read by the majority."""

    scheme: str
    counts: dict[str, int]
    i_starts: int
    where: tuple[int, int]
    offending: tuple[tuple[int, int], ...] = ()
    n_offending: int = 0

    def describe(self) -> str:
        """"IOB2 (B- 18797, I- 12654, O 232591; 1 chunk starts with I-)"."""
        if self.scheme == "tags":
            return "plain labels (no span tags)"
        counts = ", ".join(f"{p}{'-' if p != 'O' else ''} {n}"
                           for p, n in self.counts.items() if n)
        starts = f"; {self.i_starts} chunk{'s' if self.i_starts != 1 else ''} " \
                 f"start{'' if self.i_starts != 1 else 's'} with I-"
        return f"{self.scheme.upper()} ({counts}{starts})"


def violations(tags: Sequence[str], scheme: str) -> list[int]:
    """Every tag of a sentence that `scheme` does not allow where it stands, in order: a
    prefix not its own; IOB1: B- not right after a chunk of its type; IOB2: a chunk
    starting with I-; IOBES/BILOU: I- or an end not inside a chunk begun by B-, or B-/I-
    not followed by I-/end of its type."""
    allowed = PREFIXES[scheme]
    bad = {j for j, tag in enumerate(tags) if tag != "O" and tag[:1] not in allowed}
    if scheme in ("iobes", "bilou"):
        tags = [BILOU.get(t[0], t[0]) + t[1:] if t[1:2] == "-" else t for t in tags]
    prev = "O"
    for j, tag in enumerate([*tags, "O"]):
        p, kind = split_tag(tag)
        q, before = split_tag(prev)
        inside = q in ("B", "I") and before == kind     # continues the open chunk
        if scheme == "iob1" and p == "B" and not inside:
            bad.add(j)
        elif scheme == "iob2" and p == "I" and not inside:
            bad.add(j)
        elif scheme in ("iobes", "bilou"):
            opened = q in ("B", "I")
            if (p in ("I", "E") and not inside) or (opened and not (p in ("I", "E")
                                                                  and before == kind)):
                bad.add(j if j < len(tags) else j - 1)
        prev = tag
    return sorted(bad)


def _count_prefixes(columns: Sequence[Sequence[str]]) -> tuple[dict[str, int], int,
                                                              tuple[int, int] | None]:
    """(prefix -> count, chunks starting with I-, place of the first such start)."""
    counts = dict.fromkeys(("B", "I", "E", "S", "L", "U", "O"), 0)
    i_starts, first = 0, None
    for i, col in enumerate(columns):
        counts["O"] += col.count("O") if isinstance(col, list) else list(col).count("O")
        prev = "O"
        for j, tag in enumerate(col):
            if tag != "O":
                counts[tag[0]] = counts.get(tag[0], 0) + 1
                if tag[:2] == "I-" and (prev == "O" or split_tag(prev)[1] != tag[2:]):
                    i_starts += 1
                    first = first or (i, j)
            prev = tag
    return counts, i_starts, first


def _first_showing(columns: Sequence[Sequence[str]], scheme: str,
                   i_start: tuple[int, int] | None) -> tuple[int, int]:
    """The first tag that shows `scheme`: an end/single prefix (IOBES, BILOU), a chunk
    starting with I- (IOB1) or with B- after O or another type (IOB2)."""
    if scheme == "iob1" and i_start is not None:
        return i_start
    for i, col in enumerate(columns):
        prev = "O"
        for j, tag in enumerate(col):
            if scheme in ("iobes", "bilou") and tag[:1] in PREFIXES[scheme][2:] \
                    and tag[1:2] == "-":
                return i, j
            if scheme == "iob2" and tag[:2] == "B-" and (prev == "O" or
                                                      split_tag(prev)[1] != tag[2:]):
                return i, j
            prev = tag
    return 0, 0


def _offences(columns: Sequence[Sequence[str]], scheme: str) -> tuple[int, list[tuple[int, int]]]:
    """(number, first SHOWN places) of the tags `scheme` does not allow where they stand."""
    n, shown = 0, []
    for i, col in enumerate(columns):
        if col.count("O") == len(col):
            continue
        for j in violations(col, scheme):
            n += 1
            if len(shown) < SHOWN:
                shown.append((i, j))
    return n, shown


def scheme_evidence(columns: Sequence[Sequence[str]], declared: str = "") -> SchemeEvidence:
    """The scheme of a file's tag columns and what shows it: "tags" (plain labels, as POS),
    or the span scheme (IOB1, IOB2, IOBES, BILOU; `declared` when given) that the fewest
    tags do not fit where they stand.  The file is read in it, its offending tags listed,
    when at most 1 in MIXED_SHARE of the span tags is such a tag: a stray `I-` after `O`
    in an IOB2 file is a slip, not IOB1.  SchemeError (naming the tag that shows it) for a
    plain label beside span tags, for two schemes that fit equally well (IOB1 and IOB2
    chunks side by side), and for a file that fits its best scheme less well than that."""
    columns = [col if isinstance(col, list) else list(col) for col in columns]
    spans = {t for col in columns for t in col if t != "O" and _is_span_tag(t)}
    plain = next(((i, j) for i, col in enumerate(columns) for j, t in enumerate(col)
                  if t != "O" and not _is_span_tag(t)), None)
    if not spans:
        return SchemeEvidence("tags", {}, 0, (0, 0))
    if plain is not None:
        i, j = plain
        raise SchemeError(f"tag {columns[i][j]!r} is a plain label beside span tags such as "
                          f"{min(spans)!r}: a file's tags are all spans (B-X, I-X, ...) or "
                          f"all labels", plain)
    counts, i_starts, i_start = _count_prefixes(columns)
    n_spans = sum(n for p, n in counts.items() if p != "O")
    found = {s: _offences(columns, s) for s in ((declared,) if declared else SCHEMES)}
    ranked = sorted(found, key=lambda s: (found[s][0], SCHEMES.index(s)))
    best = ranked[0]
    n, shown = found[best]
    tie = len(ranked) > 1 and found[ranked[1]][0] == n
    if tie and n == 0:
        raise SchemeError("no chunk tells IOB1 from IOB2: declare the scheme", (0, 0))
    if tie or n * MIXED_SHARE > n_spans:
        _refuse(columns, best, ranked[1] if tie else "", n, n_spans, shown, i_start)
    return SchemeEvidence(best, counts, i_starts, _first_showing(columns, best, i_start),
                          tuple(shown), n)


def _refuse(columns: Sequence[Sequence[str]], best: str, other: str, n: int, n_spans: int,
            shown: list[tuple[int, int]], i_start: tuple[int, int] | None) -> None:
    """SchemeError for tags that fit no scheme well enough (`scheme_evidence`)."""
    pair = {best, other}
    if pair == {"iob1", "iob2"} and i_start is not None:
        i, j = i_start
        raise SchemeError(f"tag {columns[i][j]!r} starts a chunk with I- (IOB1) while other "
                          f"chunks start with B- (IOB2): the tags fit neither scheme", i_start)
    if pair == {"iobes", "bilou"}:
        _first_error(columns, "E-/S- (IOBES) beside L-/U- (BILOU)", "ESLU")
    i, j = shown[0] if shown else (0, 0)
    raise SchemeError(f"tag {columns[i][j]!r} does not fit {best.upper()}, the scheme that "
                      f"most of the tags fit ({n} of {n_spans} span tags do not: more than 1 "
                      f"in {MIXED_SHARE})", (i, j))


def _first_error(columns: Sequence[Sequence[str]], what: str, prefixes: str) -> None:
    i, j = next((i, j) for i, col in enumerate(columns) for j, t in enumerate(col)
                if t[:1] in prefixes and _is_span_tag(t))
    raise SchemeError(f"tags mix {what}, e.g. {columns[i][j]!r}", (i, j))
