"""A training sentence far longer than any real one (a file that lost its blank lines) is
cut into pieces as tagging cuts them, with a note, instead of training as one update an
epoch at a cost that grows with its length; a tree that long is refused in one line."""

from __future__ import annotations

import pytest
from conftest import FIX
from hypothesis import given, settings
from hypothesis import strategies as st

from senna.datasets import LONGEST_TRAINING, cut_long, read_data
from senna.document import Sentence
from senna.io.lines import DataFormatError
from senna.tags import brackets_to_spans, clip_brackets, spans_to_brackets
from senna.tasks import TASKS
from senna.text.pieces import MAX_WORDS
from senna.train.config import TrainConfig


def test_a_bracket_column_is_clipped_to_its_piece():
    column = ["(A0*", "*", "*)", "(V*)", "*"]
    assert clip_brackets(column, 1, 4) == ["(A0*", "*)", "(V*)"]
    assert clip_brackets(["(S(NP*", "*)", "(VP*", "*))"], 1, 3) == ["(S(NP*)", "(VP*))"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 19), st.integers(1, 8)), max_size=6),
       st.integers(0, 19), st.integers(1, 20))
def test_clipped_brackets_are_the_spans_cut_at_the_piece(spans, lo, size):
    """Oracle: the spans of the clipped column are the column's spans, each cut to
    [lo, hi) and shifted (disjoint spans, as a proposition's are)."""
    length, taken, disjoint = 20, set(), []
    for start, n in spans:
        cells = set(range(start, min(start + n, length)))
        if cells and not cells & taken:
            taken |= cells
            disjoint.append((f"A{len(disjoint)}", start, max(cells) + 1))
    hi = min(lo + size, length)
    column = spans_to_brackets(disjoint, length)
    want = sorted((label, max(s, lo) - lo, min(e, hi) - lo)
                  for label, s, e in disjoint if s < hi and e > lo)
    assert sorted(brackets_to_spans(clip_brackets(column, lo, hi))) == want


def _long_sentence(n: int) -> Sentence:
    words = [f"w{i}" if i % 40 else "." for i in range(n)]
    roles = [spans_to_brackets([("A0", 0, 300), ("V", 300, 301), ("A1", 301, min(n, 700))], n)]
    return Sentence(words, {"chunk": ["B-NP", *["I-NP"] * (n - 1)]}, [300], roles)


def test_a_long_sentence_is_cut_into_pieces_that_keep_every_word_and_tag():
    short, long = Sentence(["a", "b"], {"chunk": ["B-NP", "I-NP"]}), _long_sentence(1_000)
    out, note = cut_long([short, long], TASKS["chunk"], "train.txt")
    assert out[0] is short and len(out) > 1 + 1_000 // MAX_WORDS
    assert all(len(s.words) <= MAX_WORDS for s in out[1:])
    assert [w for s in out[1:] for w in s.words] == long.words
    assert [t for s in out[1:] for t in s.columns["chunk"]] == long.columns["chunk"]
    assert [s for s in out[1:] if s.predicates] and all(
        brackets_to_spans(r) for s in out[1:] for r in s.roles)
    assert sum(len(s.predicates) for s in out) == 1
    assert "1 sentence(s) over 512 words cut into" in note and "train.txt" in note


def test_sentences_within_the_bound_are_left_whole():
    s = _long_sentence(LONGEST_TRAINING)
    assert cut_long([s], TASKS["chunk"], "t") == ([s], "")


def test_a_tree_that_long_is_refused_naming_its_file():
    with pytest.raises(DataFormatError, match="over the 512 a training tree may have"):
        cut_long([_long_sentence(600)], TASKS["psg"], "trees.txt")


def test_a_file_without_blank_lines_trains_on_pieces(tmp_path):
    rows = [r for r in (FIX / "conll2000_sample.txt").read_text().splitlines() if r.strip()]
    one = tmp_path / "one.txt"
    one.write_text("\n".join(rows * (LONGEST_TRAINING // len(rows) + 1)) + "\n")
    data = read_data(TrainConfig(task="chunk", train=str(one),
                                 dev=str(FIX / "conll2000_sample.txt")))
    assert len(data.train) > 1 and max(len(s.words) for s in data.train) <= MAX_WORDS
    assert "cut into" in data.note
