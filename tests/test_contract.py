"""One contract across entry points: a line is one paragraph (its sentences never cross a
line break), one input line gives its own output sentences, and documents are the same
unit everywhere: one API text, or in the `senna` command one line, or the lines of one
`-DOCSTART-` block. The same text then gives the same annotations from every front end."""

from __future__ import annotations

import io
import json

import pytest

import senna
from senna.cli import tag as cli

LINES = ["Michael Jordan spoke to reporters .", "Reporters thanked Michael Jordan .",
         "Jordan left early ."]


@pytest.fixture(scope="module")
def ner():
    return senna.load(tasks="ner")


def cli_json(text: str, *args: str) -> list[dict]:
    out = io.BytesIO()
    assert cli.main(["--format", "json", *args], io.BytesIO(text.encode()), out) == 0
    return [json.loads(line) for line in out.getvalue().decode().splitlines()]


def sentences(docs: list[dict]) -> list[list[tuple[str, str]]]:
    return [[(t["text"], t["ner"]) for t in s["tokens"]] for d in docs for s in d["sentences"]]


def api_sentences(doc) -> list[list[tuple[str, str]]]:
    return [list(zip(s.words, s.columns["ner"], strict=True)) for s in doc.sentences]


def test_a_line_break_ends_a_sentence_in_the_api_as_in_the_cli(ner):
    text = "He went home\nShe stayed\nand slept"
    assert [s.words for s in ner(text).sentences] == \
        [["He", "went", "home"], ["She", "stayed"], ["and", "slept"]]
    assert sentences(cli_json(text + "\n", "-ner")) == api_sentences(ner(text))
    assert [(t.start, t.end) for t in ner(text).sentences[1].tokens] == [(13, 16), (17, 23)]


@pytest.mark.parametrize("usrtokens", [(), ("-usrtokens",)])
def test_each_line_is_a_document_until_a_docstart_line(ner, usrtokens):
    alone = [api_sentences(ner(line))[0] for line in LINES]
    together = api_sentences(ner("\n".join(LINES)))
    assert alone != together   # the example shows document voting: "Jordan" is PER with it
    text = "\n".join(LINES) + "\n"
    assert sentences(cli_json(text, "-ner", *usrtokens)) == alone
    blocks = cli_json("-DOCSTART-\n" + text + "-DOCSTART-\n" + text, "-ner", *usrtokens)
    assert len(blocks) == 2 * len(LINES)       # one output per input line, as before
    assert sentences(blocks) == together + together


def test_a_long_document_is_tagged_in_parts(monkeypatch, ner):
    monkeypatch.setattr(cli, "DOCUMENT_SENTENCES", 2)
    parts = api_sentences(ner("\n".join(LINES[:2]))) + api_sentences(ner(LINES[2]))
    assert sentences(cli_json("-DOCSTART-\n" + "\n".join(LINES) + "\n", "-ner")) == parts


def test_the_cli_json_is_the_documents_dict(ner):
    line = "Mr. Smith flew to Paris on Monday ."
    assert cli_json(line + "\n", "-ner") == [ner(line).to_dict(["ner"])]


def test_spacy_reads_lines_and_documents_as_the_api(ner):
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    nlp.add_pipe("senna", config={"tasks": ["ner"]})
    doc = nlp("\n".join(LINES))
    assert [[t.text for t in s if not t.is_space] for s in doc.sents] == \
        [line.split() for line in LINES]
    api = ner("\n".join(LINES))
    want = [(s.text, s.label) for sent in api.sentences for s in sent.spans("ner")]
    assert [(e.text, e.label_) for e in doc.ents] == want
    assert ("Jordan", "PER") in want   # one document: the name keeps one type
