"""Tests for senna.io.conll: readers on small fixtures, round trips, errors, real-file counts."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import FIX

from senna.datasets import split_train_dev
from senna.document import Sentence
from senna.io.conll import (
    read_columns,
    read_conll2000,
    read_conll2002,
    read_conll2003,
    read_conllu,
    read_gold_conll,
    read_pt0,
    read_srl,
    read_tagged,
)
from senna.io.conll_write import write_columns, write_srl
from senna.io.formats import WRITABLE, guess_format, read_dataset, write_dataset
from senna.io.lines import DataFormatError
from senna.io.treebank import read_treebank, read_trees


def _write(tmp_path: Path, text: str | bytes, name: str = "data.txt") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def _error(func, *args) -> DataFormatError:
    with pytest.raises(DataFormatError) as info:
        func(*args)
    return info.value


# --------------------------------------------------------------------------- readers


def test_read_conll2000() -> None:
    sents = read_conll2000(FIX / "conll2000_sample.txt")
    assert [len(s.words) for s in sents] == [4, 6, 7]
    assert sents[0].words == ["Friday", "'s", "Market", "Activity"]
    assert sents[0].columns == {
        "pos": ["NNP", "POS", "NNP", "NN"],
        "chunk": ["B-NP", "B-NP", "I-NP", "I-NP"],
    }
    assert sents[2].columns["chunk"][4] == "B-PRT"
    assert [s.doc for s in sents] == [0, 1, 2]   # no -DOCSTART-: a document per sentence


def test_a_file_without_docstart_has_a_document_per_sentence(tmp_path: Path) -> None:
    """Else the one-type-per-name vote (senna.decode.documents) ran over a whole file."""
    text = (FIX / "conll2003_sample.txt").read_text(encoding="utf-8")
    plain = "\n".join(line for line in text.split("\n") if not line.startswith("-DOCSTART-"))
    sents = read_conll2003(_write(tmp_path, plain))
    assert [s.doc for s in sents] == [0, 1, 2]
    assert [s.doc for s in read_conllu(FIX / "ud_sample.conllu")][:2] == [0, 1]
    assert [s.doc for s in read_srl(FIX / "srl_small.conll")][:2] == [0, 1]


def test_read_conll2003_documents() -> None:
    sents = read_conll2003(FIX / "conll2003_sample.txt")
    assert [s.words[0] for s in sents] == ["EU", "Peter", "Rare"]
    assert [s.doc for s in sents] == [0, 0, 1]
    assert list(sents[0].columns) == ["pos", "chunk", "ner"]
    assert sents[0].columns["ner"][:3] == ["I-ORG", "O", "I-MISC"]
    assert sents[2].words[-2:] == ["17,000", "."]
    assert all("-DOCSTART-" not in s.words for s in sents)


def test_read_conll2002_dutch_docstart_without_blank_line() -> None:
    sents = read_conll2002(FIX / "conll2002_ned_sample.txt")
    assert sents[0].words == ["Antwerpen", "/", "Brussel"]
    assert sents[1].words == ["Willy", "Van", "Damme"]
    assert [s.doc for s in sents] == [0, 1, 1]
    assert sents[1].columns == {"pos": ["N", "Prep", "N"], "ner": ["B-PER", "I-PER", "I-PER"]}


def test_read_conll2002_spanish_file_has_pos() -> None:
    sents = read_conll2002(FIX / "conll2002_esp_sample.txt")
    assert list(sents[1].columns) == ["pos", "ner"]
    assert sents[1].columns["ner"][1:3] == ["B-PER", "I-PER"]


def test_read_conll2002_two_columns(tmp_path: Path) -> None:
    path = _write(tmp_path, "Madrid B-LOC\nes O\n\nJuan B-PER\n")
    sents = read_conll2002(path)
    assert [s.columns for s in sents] == [{"ner": ["B-LOC", "O"]}, {"ner": ["B-PER"]}]


def test_read_columns_generic(tmp_path: Path) -> None:
    text = "-DOCSTART-\tx\ty\n\nw1\ta\tb\n\n-DOCSTART-\tx\ty\nw2\tc\td\n"
    sents = read_columns(_write(tmp_path, text), ["left", "right"], sep="\t", docstart=True)
    assert [(s.words, s.columns, s.doc) for s in sents] == [
        (["w1"], {"left": ["a"], "right": ["b"]}, 0),
        (["w2"], {"left": ["c"], "right": ["d"]}, 1),
    ]


def test_read_tagged_and_pt0() -> None:
    pos = read_tagged(FIX / "ewt_sample.pos")
    assert [s.words for s in pos][:2] == [["UPDATE", ":"], ["So", "what", "happened", "?"]]
    assert pos[1].columns == {"pos": ["RB", "WP", "VBD", "."]}
    assert read_tagged(FIX / "ewt_sample.pos", name="xpos")[0].columns == {"xpos": ["NN", ":"]}
    pt0 = read_pt0(FIX / "ewt_sample.pt0")
    assert [s.words for s in pt0] == [s.words for s in pos]
    assert pt0[2].columns["pt0"][:4] == ["S-NP", "O", "B-NP", "E-NP"]


def test_read_srl() -> None:
    sents = read_srl(FIX / "ewt_sample.verbs-args.conll")
    assert [s.predicates for s in sents] == [[], [2], [1, 5]]
    assert sents[0].roles == [] and sents[0].columns["lemma"] == ["-", "-"]
    third = sents[2]
    assert third.words[:3] == ["There", "is", "a"]
    assert [third.columns["lemma"][i] for i in third.predicates] == ["be", "learn"]
    assert third.columns["pos"][5] == "VB" and third.columns["parse"][0] == "(TOP(S(NP*)"
    assert third.roles[0][1] == "(V*)" and third.roles[1][5] == "(V*)"
    assert all(len(col) == len(third.words) for col in third.roles)
    assert [f.word for f in third.frames] == ["is", "learn"]


def test_read_conllu_skips_multiword_and_empty_nodes() -> None:
    sents = read_conllu(FIX / "ud_sample.conllu")
    assert sents[0].words == ["I", "did", "n't", "go", "."]
    assert sents[0].columns["xpos"] == ["PRP", "VBD", "RB", "VB", "."]
    assert sents[0].columns["lemma"][2] == "not"
    assert list(sents[0].columns) == [
        "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc",
    ]  # fmt: skip
    assert sents[1].words == ["Sam", "ate", "apples", "and", "Kim", "pears", "."]
    assert sents[1].columns["head"][5] == "5"


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("conll2000_sample.txt", "conll2000"),
        ("conll2003_sample.txt", "conll2003"),
        ("conll2002_ned_sample.txt", "conll2002"),
        ("ewt_sample.pos", "tagged"),
        ("ewt_sample.pt0", "pt0"),
        ("ewt_sample.verbs-args.conll", "srl"),
        ("ud_sample.conllu", "conllu"),
    ],
)
def test_read_dataset_dispatch(name: str, fmt: str) -> None:
    sents = read_dataset(FIX / name, fmt)
    assert sents and len(sents) == len(read_dataset(str(FIX / name), fmt))
    assert isinstance(sents[0], Sentence)
    assert bool(sents[-1].predicates) == (fmt == "srl")


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("data/conll2000/train.txt", "conll2000"),
        ("data/conll2003/eng.testa", "conll2003"),
        ("x/eng.train", "conll2003"),
        ("x/esp.testa", "conll2002"),
        ("x/ned.train", "conll2002"),
        ("ewt/ewt.dev.pos", "tagged"),
        ("ewt/ewt.dev.pt0", "pt0"),
        ("ewt/ewt.train.props.conll", "srl"),
        ("ewt/en_ewt-ud-dev.conllu", "conllu"),
    ],
)
def test_guess_format(path: str, fmt: str) -> None:
    assert guess_format(path) == fmt


def test_guess_format_and_read_dataset_refuse_unknown(tmp_path: Path) -> None:
    assert "cannot guess" in str(_error(guess_format, tmp_path / "notes.md"))
    assert "unknown format" in str(_error(read_dataset, FIX / "ewt_sample.pos", "csv"))
    assert len(read_dataset(FIX / "ewt_sample.pos")) == 3


# --------------------------------------------------------------------------- tolerance


def test_crlf_blank_runs_whitespace_lines_bom_and_no_trailing_newline(tmp_path: Path) -> None:
    text = "\ufeffa DT B-NP\r\nb NN I-NP\r\n\r\n  \t \r\n\r\n\nc VB B-VP"
    sents = read_conll2000(_write(tmp_path, text))
    assert [s.words for s in sents] == [["a", "b"], ["c"]]
    assert sents[0].columns["chunk"] == ["B-NP", "I-NP"]


def test_tab_files_keep_words_with_spaces(tmp_path: Path) -> None:
    sents = read_tagged(_write(tmp_path, "New York\tNNP\n:\t:\n"))
    assert sents[0].words == ["New York", ":"]


# --------------------------------------------------------------------------- round trips


def _roundtrip_columns(tmp_path: Path, sents, reader, names, sep=" ", docstart=False):
    path = tmp_path / "out.txt"
    write_columns(sents, path, names, sep=sep, docstart=docstart)
    return reader(path)


def test_roundtrip_column_formats(tmp_path: Path) -> None:
    cases = [
        (read_conll2000, "conll2000_sample.txt", ("pos", "chunk"), " ", False),
        (read_conll2003, "conll2003_sample.txt", ("pos", "chunk", "ner"), " ", True),
        (read_conll2002, "conll2002_ned_sample.txt", ("pos", "ner"), " ", True),
        (read_tagged, "ewt_sample.pos", ("pos",), "\t", False),
        (read_pt0, "ewt_sample.pt0", ("pos", "pt0"), "\t", False),
    ]
    for reader, name, names, sep, docstart in cases:
        sents = reader(FIX / name)
        assert _roundtrip_columns(tmp_path, sents, reader, names, sep, docstart) == sents, name


# a fixture of every format `write_dataset` writes
WRITTEN = {"conll2000": "conll2000_sample.txt", "conll2003": "conll2003_sample.txt",
           "conll2002": "conll2002_ned_sample.txt", "tagged": "ewt_sample.pos",
           "pt0": "ewt_sample.pt0", "srl": "ewt_sample.verbs-args.conll"}


@pytest.mark.parametrize("fmt", WRITABLE)
def test_every_writable_format_reads_back_as_written(tmp_path: Path, fmt: str) -> None:
    """`senna evaluate --out` writes the gold file's format: what it writes must read back
    in that format (files of trees are written by the parser alone)."""
    sents = read_dataset(FIX / WRITTEN[fmt], fmt)
    names = list(sents[0].columns)
    write_dataset(sents, tmp_path / "out", fmt, names, docstart=fmt in ("conll2002", "conll2003"))
    assert read_dataset(tmp_path / "out", fmt) == sents
    assert not {"trees", "levels", "gold_conll"} & set(WRITABLE)


def test_roundtrip_srl_to_path_and_stream(tmp_path: Path) -> None:
    sents = read_srl(FIX / "ewt_sample.verbs-args.conll")
    write_srl(sents, tmp_path / "out.conll")
    assert read_srl(tmp_path / "out.conll") == sents
    buffer = io.StringIO()
    write_srl(sents, buffer)
    assert buffer.getvalue() == (tmp_path / "out.conll").read_text(encoding="utf-8")


def test_write_columns_to_stream_matches_fixture_layout() -> None:
    buffer = io.StringIO()
    write_columns(read_conll2000(FIX / "conll2000_sample.txt"), buffer, ("pos", "chunk"))
    text = (FIX / "conll2000_sample.txt").read_text(encoding="utf-8")
    assert buffer.getvalue().rstrip("\n") == text.rstrip("\n")


def test_writers_refuse_values_that_would_not_read_back(tmp_path: Path) -> None:
    bad = Sentence(["New York"], {"pos": ["NNP"]})
    with pytest.raises(ValueError, match="would not read back"):
        write_columns([bad], tmp_path / "x.txt", ("pos",))
    write_columns([bad], tmp_path / "x.pos", ("pos",), sep="\t")  # fine with tabs
    assert read_tagged(tmp_path / "x.pos") == [bad]
    with pytest.raises(ValueError, match="no column"):
        write_columns([bad], tmp_path / "y.txt", ("chunk",))
    srl = read_srl(FIX / "ewt_sample.verbs-args.conll")[1]
    srl.roles[0][0] = "(ARG0*"
    with pytest.raises(ValueError, match="unbalanced"):
        write_srl([srl], tmp_path / "z.conll")
    srl.predicates = [1]
    with pytest.raises(ValueError, match="disagree"):
        write_srl([srl], tmp_path / "z.conll")


# --------------------------------------------------------------------------- errors


def test_wrong_column_count_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "a DT B-NP\nb NN I-NP\n\nc VB\n")
    err = _error(read_conll2000, path)
    assert str(err).startswith(f"{path}:4: wrong number of columns")
    assert "expected 3" in str(err) and "got 2" in str(err)
    assert (err.path, err.line) == (str(path), 4)


def test_wrong_column_count_in_tab_files_and_conllu(tmp_path: Path) -> None:
    assert _error(read_pt0, _write(tmp_path, "a\tDT\tB-NP\nb\tNN\n")).line == 2
    assert _error(read_tagged, _write(tmp_path, "a\t\tDT\n")).line == 1  # empty field
    lines = (FIX / "ud_sample.conllu").read_text(encoding="utf-8").split("\n")
    lines[6] = lines[6].rsplit("\t", 1)[0]
    err = _error(read_conllu, _write(tmp_path, "\n".join(lines), "bad.conllu"))
    assert err.line == 7 and "expected 10" in str(err)


def test_conll2002_unknown_layout(tmp_path: Path) -> None:
    err = _error(read_conll2002, _write(tmp_path, "\n-DOCSTART- -DOCSTART- O\nA B C D\n"))
    assert err.line == 3 and "CoNLL-2002 layout" in str(err)


def test_bad_utf8_reports_line(tmp_path: Path) -> None:
    path = _write(tmp_path, b"a DT B-NP\n\nb\xff\xfe NN I-NP\n")
    err = _error(read_conll2000, path)
    assert err.line == 3 and "UTF-8" in str(err) and str(path) in str(err)


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_empty_file(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path, text)
    readers = (read_conll2000, read_conll2003, read_conll2002, read_tagged, read_pt0, read_srl)
    for reader in (*readers, read_conllu):
        err = _error(reader, path)
        assert "no sentences" in str(err) and str(path) in str(err)


def test_only_docstart_or_comments_is_empty(tmp_path: Path) -> None:
    assert "no sentences" in str(_error(read_conll2003, _write(tmp_path, "-DOCSTART- -X- O O\n")))
    assert "no sentences" in str(_error(read_conllu, _write(tmp_path, "# sent_id = 1\n\n")))


def test_missing_file(tmp_path: Path) -> None:
    err = _error(read_conll2000, tmp_path / "nope.txt")
    assert str(tmp_path / "nope.txt") in str(err) and "FileNotFoundError" in str(err)
    assert isinstance(err, ValueError)
    assert "cannot read" in str(_error(read_srl, tmp_path))  # a directory


def test_srl_unbalanced_brackets(tmp_path: Path) -> None:
    never_closed = "a\tDT\t(S*\t-\t(ARG0*\nb\tVB\t*)\tgo\t(V*)\n"
    err = _error(read_srl, _write(tmp_path, never_closed))
    assert err.line == 1 and "unbalanced" in str(err) and "argument column 1" in str(err)
    closes_nothing = "x\tNN\t(S*)\t-\n\na\tDT\t(S*\t-\t*)\nb\tVB\t*)\tgo\t(V*)\n"
    assert _error(read_srl, _write(tmp_path, closes_nothing)).line == 3
    not_a_bracket = "a\tDT\t(S*\t-\tB-ARG0\nb\tVB\t*)\tgo\t(V*)\n"
    assert "bad argument cell" in str(_error(read_srl, _write(tmp_path, not_a_bracket)))


def test_srl_predicate_column_mismatch(tmp_path: Path) -> None:
    too_many_preds = "a\tVB\t(S*\tgo\t(V*)\nb\tVB\t*)\tsee\t*\n"
    err = _error(read_srl, _write(tmp_path, too_many_preds))
    assert err.line == 2 and "2 predicates" in str(err) and "got 1 argument" in str(err)
    too_many_columns = "a\tDT\t(S*\t-\t*\t*\nb\tVB\t*)\tgo\t(V*)\t*\n"
    assert _error(read_srl, _write(tmp_path, too_many_columns)).line == 1
    ragged = "a\tDT\t(S*\t-\t*\nb\tVB\t*)\tgo\t(V*)\t*\n"
    assert "wrong number of columns" in str(_error(read_srl, _write(tmp_path, ragged)))
    assert _error(read_srl, _write(tmp_path, "a\tDT\t*\n")).line == 1


def test_conllu_bad_token_id(tmp_path: Path) -> None:
    row = "\t".join(["2", "x", "x", "X", "X", "_", "0", "root", "_", "_"])
    assert "bad token ID" in str(_error(read_conllu, _write(tmp_path, row + "\n")))


# --------------------------------------------------------------------------- split


def test_split_train_dev_takes_last_fraction() -> None:
    items = list(range(8936))
    train, dev = split_train_dev(items)
    assert (len(train), len(dev)) == (8043, 893)
    assert train + dev == items and dev[0] == 8043
    assert split_train_dev(items) == (train, dev)
    assert split_train_dev(range(10), 0.3) == (list(range(7)), [7, 8, 9])
    assert split_train_dev(range(5), 0.0) == (list(range(5)), [])
    assert split_train_dev(range(3), 0.1) == ([0, 1], [2])
    with pytest.raises(ValueError):
        split_train_dev(items, 1.0)
    # groups (a tree's levels) stay on one side: dev opens at the group's first item
    assert split_train_dev(range(10), 0.3, lambda i: i % 4 == 0) == (list(range(4)),
                                                                       list(range(4, 10)))
    assert split_train_dev(range(10), 0.3, lambda i: False) == (list(range(7)), [7, 8, 9])


# --------------------------------------------------------------------------- real data


REAL_COUNTS = {
    "conll2000/train.txt": ("conll2000", 8936, 211_727),
    "conll2003/eng.train": ("conll2003", 14041, 203_621),
    "conll2003/eng.testa": ("conll2003", 3250, 51_362),
    "ewt/ewt.train.pos": ("tagged", 12539, 204_498),
    "ewt/ewt.dev.pos": ("tagged", 1972, 24_966),
    "ewt/ewt.train.pt0": ("pt0", 12539, 204_498),
    "ewt/ewt.train.verbs-args.conll": ("srl", 12539, 204_498),
    "ewt/ewt.dev.verbs-args.conll": ("srl", 1972, 24_966),
    "conll2002/ned.train": ("conll2002", 15806, 202_644),
    "ewt/en_ewt-ud-dev.conllu": ("conllu", 2001, 25_147),
}


def test_real_files_counts(data_dir: Path) -> None:
    read = {}
    for rel, (fmt, n_sents, n_tokens) in REAL_COUNTS.items():
        read[rel] = sents = read_dataset(data_dir / rel)
        assert guess_format(data_dir / rel) == fmt
        assert (len(sents), sum(len(s.words) for s in sents)) == (n_sents, n_tokens), rel
    assert read["conll2003/eng.train"][-1].doc == 945  # 946 -DOCSTART- documents
    preds = [sum(len(s.predicates) for s in read[f"ewt/ewt.{part}.verbs-args.conll"])
             for part in ("train", "dev")]  # fmt: skip
    assert preds == [26040, 3182]  # ewt/STATS.txt pred_verbs-args


def test_real_files_roundtrip(tmp_path: Path, data_dir: Path) -> None:
    eng = read_conll2003(data_dir / "conll2003/eng.testa")
    write_columns(eng, tmp_path / "eng.testa", ("pos", "chunk", "ner"), docstart=True)
    assert read_conll2003(tmp_path / "eng.testa") == eng
    srl = read_srl(data_dir / "ewt/ewt.dev.props.conll")
    write_srl(srl, tmp_path / "dev.conll")
    assert read_srl(tmp_path / "dev.conll") == srl


# --------------------------------------------------------------------------- bracketed trees


def test_bracketed_trees_read_as_the_gold_conll_file_of_the_same_trees() -> None:
    """The fixture's trees written as a PTB file (several lines a tree, function tags,
    indices, empty elements, an empty root label) read as the .gold_conll file does, and
    so do their levels, which the parser trains on."""
    trees, gold = FIX / "ewt_sample.mrg", FIX / "ewt_sample.gold_conll"
    assert guess_format(trees) == "trees"
    assert "-SBJ" in trees.read_text() and "-NONE-" in trees.read_text()
    expect = [(s.words, s.columns) for s in read_gold_conll(gold)]
    for reader in (read_trees, read_treebank, read_dataset):
        assert [(s.words, s.columns) for s in reader(trees)] == expect
    assert [(s.words, s.columns) for s in read_treebank(gold)] == expect
    assert [(s.words, s.columns) for s in read_dataset(trees, "levels")] == \
        [(s.words, s.columns) for s in read_dataset(gold, "levels")]


@pytest.mark.parametrize("text", ["( (S (NP (NN a)) (VP (VBZ b))) )",
                                  "(ROOT (S (NP-SBJ-1 (NN a)) (VP=2 (VBZ b))))",
                                  "(TOP (S (NP (NN a)) (VP (NP (-NONE- *T*-1)) (VBZ b))))",
                                  "(S\n  (NP (NN a))\n  (VP (VBZ b)))",
                                  "*x*  Copyright (C) 1990  *x*\n*x*  *x*\n"
                                  "( (S (NP (NN a)) (VP (VBZ b))) )"])
def test_a_trees_root_and_decorations_read_one_way(tmp_path, text) -> None:
    (s,) = read_trees(_write(tmp_path, "\n" + text + "\n\n"))
    assert (s.words, s.columns) == (["a", "b"], {"pos": ["NN", "VBZ"],
                                                 "parse": ["(TOP(S(NP*)", "(VP*)))"]})


@pytest.mark.parametrize(("text", "line", "what"), [
    ("(S (NN a))\n(S (NN b)\n\n", 2, "never closed"),
    ("(S (NN a))\nword (S (NN b))\n", 2, "outside a tree"),
    ("(S (NN a))\n)\n", 2, "outside a tree"),
    ("(S (NN a))\n\n(S (NN b) c)\n", 3, "bad bracket string"),
    ("(NN a)\n", 1, "no phrase over the words"),
    ("\n\n", 1, "no trees"),
    ("(S (NN a))\n" + "(S " * 600 + "(NN a)" + ")" * 600, 2, "nested 601 deep"),
])
def test_bad_tree_files_name_the_line(tmp_path, text, line, what) -> None:
    err = _error(read_trees, _write(tmp_path, text))
    assert err.line == line and what in str(err)


def test_a_line_beyond_the_limit_is_refused_at_its_line(tmp_path, monkeypatch):
    """A file without line breaks (/dev/zero, a binary file) is refused after MAX_LINE
    bytes, read in pieces, not held whole; the error names the line, however the pieces
    fall; UTF-8 errors still name their line."""
    from senna.io import lines as lines_module

    monkeypatch.setattr(lines_module, "MAX_LINE", 100)
    monkeypatch.setattr(lines_module, "_PIECE", 64)
    path = tmp_path / "data.txt"
    path.write_bytes(b"a\tB-X\n\nb\tO\n" + b"x" * 500 + b"\nc\tO\n")
    with pytest.raises(DataFormatError, match="line longer than 100 bytes") as err:
        lines_module.read_lines(path)
    assert err.value.line == 4
    path.write_bytes(b"a\tO\n" * 50 + b"b\t\xff\n")
    with pytest.raises(DataFormatError, match="invalid UTF-8") as err:
        lines_module.read_lines(path)
    assert err.value.line == 51
    path.write_bytes(b"a\tO\n" * 50)
    assert lines_module.read_lines(path) == ["a\tO"] * 50 + [""]
