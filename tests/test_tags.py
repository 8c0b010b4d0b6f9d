"""Scheme conversions and bracket columns, on hand-written tricky sequences."""

from __future__ import annotations

import pytest

from senna.tags import (
    SCHEMES,
    brackets_to_spans,
    brackets_to_tags,
    convert,
    spans_to_brackets,
    spans_to_tags,
    split_tag,
    tags_to_brackets,
    tags_to_spans,
)

# One sentence in every scheme: I- starting a chunk after O, adjacent chunks of one type,
# a chunk of another type right after, single-token chunks.
SAME = {
    "iob1": ["I-PER", "I-PER", "B-PER", "I-LOC", "O", "I-LOC", "I-ORG", "B-ORG"],
    "iob2": ["B-PER", "I-PER", "B-PER", "B-LOC", "O", "B-LOC", "B-ORG", "B-ORG"],
    "iobes": ["B-PER", "E-PER", "S-PER", "S-LOC", "O", "S-LOC", "S-ORG", "S-ORG"],
    "bilou": ["B-PER", "L-PER", "U-PER", "U-LOC", "O", "U-LOC", "U-ORG", "U-ORG"],
}
SAME_SPANS = [("PER", 0, 2), ("PER", 2, 3), ("LOC", 3, 4), ("LOC", 5, 6), ("ORG", 6, 7),
              ("ORG", 7, 8)]


def test_split_tag_at_first_dash_like_conlleval() -> None:
    assert split_tag("B-ARG-1") == ("B", "ARG-1")
    assert split_tag("O") == ("O", "")
    assert split_tag("NP") == ("NP", "")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_same_chunks_read_from_every_scheme(scheme: str) -> None:
    assert tags_to_spans(SAME[scheme]) == SAME_SPANS
    assert spans_to_tags(SAME_SPANS, 8, scheme) == SAME[scheme]


@pytest.mark.parametrize("source", SCHEMES)
@pytest.mark.parametrize("target", SCHEMES)
def test_round_trips_between_schemes(source: str, target: str) -> None:
    assert convert(SAME[source], target) == SAME[target]
    assert convert(convert(SAME[source], target), source) == SAME[source]


def test_i_after_o_and_i_of_other_type_start_chunks() -> None:
    assert convert(["O", "I-X", "I-X", "O"], "iob2") == ["O", "B-X", "I-X", "O"]
    assert convert(["B-X", "I-Y"], "iob2") == ["B-X", "B-Y"]
    assert convert(["B-X", "I-Y"], "iobes") == ["S-X", "S-Y"]
    assert tags_to_spans(["I-X", "I-Y", "I-Y"]) == [("X", 0, 1), ("Y", 1, 3)]


def test_iobes_adjacent_same_type_chunks_stay_apart() -> None:
    tags = ["S-X", "S-X", "B-X", "E-X", "B-X", "I-X", "E-X", "E-X"]
    assert tags_to_spans(tags) == [("X", 0, 1), ("X", 1, 2), ("X", 2, 4), ("X", 4, 7),
                                   ("X", 7, 8)]


def test_untyped_and_special_tags_follow_conlleval() -> None:
    assert tags_to_spans(["B", "I", "O", "B", "B"]) == [("", 0, 2), ("", 3, 4), ("", 4, 5)]
    assert spans_to_tags([("", 0, 2)], 3, "iob2") == ["B", "I", "O"]
    assert tags_to_spans(["O", "[", "]", "O"]) == [("", 1, 2), ("", 2, 3)]
    assert tags_to_spans(["B-NP", ".", "I-NP"]) == [("NP", 0, 1), ("NP", 2, 3)]
    assert tags_to_spans(["B-ARG-1", "I-ARG-1"]) == [("ARG-1", 0, 2)]
    assert tags_to_spans([]) == []


def test_spans_to_tags_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown tagging scheme"):
        spans_to_tags([], 3, "ioe2")
    with pytest.raises(ValueError, match="overlaps"):
        spans_to_tags([("X", 0, 2), ("Y", 1, 3)], 3, "iob2")
    with pytest.raises(ValueError, match="does not fit"):
        spans_to_tags([("X", 2, 4)], 3, "iob2")


COLUMN = ["(ARG0*", "*", "*)", "(V*)", "(ARG1*", "*)", "*"]
COLUMN_SPANS = [("ARG0", 0, 3), ("V", 3, 4), ("ARG1", 4, 6)]


def test_brackets_round_trip() -> None:
    assert brackets_to_spans(COLUMN) == COLUMN_SPANS
    assert spans_to_brackets(COLUMN_SPANS, 7) == COLUMN
    assert spans_to_brackets([("A0", 0, 1), ("V", 1, 2)], 3) == ["(A0*)", "(V*)", "*"]


def test_brackets_to_tags_and_back() -> None:
    tags = ["B-ARG0", "I-ARG0", "E-ARG0", "S-V", "B-ARG1", "E-ARG1", "O"]
    assert brackets_to_tags(COLUMN) == tags
    assert brackets_to_tags(COLUMN, "iob2")[:4] == ["B-ARG0", "I-ARG0", "I-ARG0", "B-V"]
    assert tags_to_brackets(tags) == COLUMN


def test_conll2004_closing_labels_and_nesting() -> None:
    assert brackets_to_spans(["(A0*", "*A0)", "(V*V)"]) == [("A0", 0, 2), ("V", 2, 3)]
    assert brackets_to_spans(["(A0(A1*", "*)", "*)"]) == [("A0", 0, 3), ("A1", 0, 2)]
    with pytest.raises(ValueError, match="closes 'A1'"):
        brackets_to_spans(["(A0*", "*A1)"])


@pytest.mark.parametrize("column, message", [
    (["(A0*", "*"], "never closed"),
    (["*", "*)"], "never opened"),
    (["(A0*", "*))"], "never opened"),
    (["A0"], "expected a bracket item"),
])
def test_unbalanced_or_malformed_brackets(column: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        brackets_to_spans(column)


def test_spans_to_brackets_rejects_overlap() -> None:
    with pytest.raises(ValueError, match="overlaps"):
        spans_to_brackets([("A0", 0, 3), ("A1", 0, 2)], 3)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_files_scheme_is_detected_from_its_tags(scheme: str) -> None:
    from senna.schemes import detect_scheme

    assert detect_scheme([SAME[scheme], ["O"]]) == scheme
    assert detect_scheme([["NN", "VBD", "."], ["-LRB-"]]) == "tags"   # plain labels


@pytest.mark.parametrize("columns, where, message", [
    ([["B-X", "O"], ["O", "I-Y"]], (1, 1), "starts a chunk with I- .IOB1. while other"),
    ([["B-X", "NN"]], (0, 1), "'NN' is a plain label beside span tags"),
    ([["S-X", "U-Y"]], (0, 0), "E-/S- .IOBES. beside L-/U- .BILOU."),
])
def test_tags_that_fit_no_scheme_are_named(columns, where, message) -> None:
    from senna.schemes import SchemeError, detect_scheme

    with pytest.raises(SchemeError, match=message) as e:
        detect_scheme(columns)
    assert e.value.where == where
