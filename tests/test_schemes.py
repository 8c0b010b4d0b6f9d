"""A file's tag scheme is read off its tags, said with what showed it, and survives a slip:
one stray tag among many does not turn an IOB2 file into IOB1, and a tag that fits no
scheme is named at its own line."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from senna.datasets import read_data
from senna.io.lines import DataFormatError
from senna.schemes import MIXED_SHARE, SchemeError, scheme_evidence

PERSON = [["B-PER", "I-PER", "O"], ["O", "B-LOC"]]   # IOB2: chunks start with B-


def iob2_file(path, sentences: int, stray: dict[int, str] | None = None):
    """A file of `sentences` IOB2 sentences `word x TAG`, sentence i's second tag replaced
    by stray[i]; -> the line of each stray tag."""
    lines, where = [], {}
    for i in range(sentences):
        tags = ["B-PER", "I-PER", "O", "B-LOC"]
        if stray and i in stray:
            tags[1] = stray[i]
            where[i] = len(lines) + 2
        lines += [f"w{k}\tx\t{t}" for k, t in enumerate(tags)] + [""]
    path.write_text("\n".join(lines) + "\n")
    return where


def settings(path, scheme: str = "") -> SimpleNamespace:
    return SimpleNamespace(task="people", columns="word,_,people", scheme=scheme,
                           train=str(path), dev="", dev_fraction=0.1, format="",
                           extra_columns="", extra_train=None, approach=None, licence="")


def test_the_evidence_counts_every_prefix():
    evidence = scheme_evidence(PERSON)
    assert evidence.scheme == "iob2" and evidence.n_offending == 0
    assert evidence.describe() == "IOB2 (B- 2, I- 1, O 2; 0 chunks start with I-)"
    assert scheme_evidence([["O", "I-PER", "I-PER"], ["I-LOC", "B-LOC"]]).scheme == "iob1"
    assert scheme_evidence([["NN", "VB"]]).describe() == "plain labels (no span tags)"


def test_one_stray_i_after_o_is_a_slip_not_iob1():
    many = [["B-PER", "I-PER", "O", "B-LOC"]] * MIXED_SHARE
    evidence = scheme_evidence([*many, ["O", "I-PER", "O"]])
    assert evidence.scheme == "iob2"
    assert (evidence.n_offending, evidence.offending) == (1, ((MIXED_SHARE, 1),))
    assert "1 chunk starts with I-" in evidence.describe()


def test_tags_that_fit_no_scheme_well_are_refused():
    with pytest.raises(SchemeError, match="fit"):
        scheme_evidence([["B-PER", "I-PER"], ["O", "I-LOC"], ["B-X", "L-X"], ["U-Y"]])
    with pytest.raises(SchemeError, match="starts a chunk with I- .IOB1. while other chunks"):
        scheme_evidence([["I-PER", "O"], ["O", "B-LOC"]])


def test_training_reads_a_slip_as_its_scheme_and_names_its_line(tmp_path):
    data = tmp_path / "people.txt"
    where = iob2_file(data, 200, {150: "I-LOC"})
    read = read_data(settings(data))
    assert read.task.source_scheme == "iob2"
    assert f"tags of {data} read as IOB2" in read.note
    assert re.search(rf"1 tag of [0-9]+ not fitting IOB2 where it stands, read as it reads "
                     rf"them: line {where[150]}$", read.note), read.note


@pytest.mark.parametrize("stray", ["L-PER", "I-LOC"])
def test_a_tag_outside_the_scheme_or_too_many_slips_are_an_error_at_its_line(tmp_path, stray):
    data = tmp_path / "people.txt"
    where = iob2_file(data, 200 if stray[0] == "L" else 20, {12: stray})
    with pytest.raises(DataFormatError) as err:
        read_data(settings(data))
    assert err.value.line == where[12] and f"{stray!r}" in str(err.value)


def test_a_declared_scheme_the_tags_do_not_show_is_refused(tmp_path):
    data = tmp_path / "people.txt"
    iob2_file(data, 5)
    with pytest.raises(DataFormatError, match="shows IOB2 tags, not the declared IOBES"):
        read_data(settings(data, "iobes"))
