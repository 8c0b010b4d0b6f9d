"""AllenNLP SRL predictor JSON: schema, BIO tags, bracketed description, CLI format."""

from __future__ import annotations

import io
import json
import re

import pytest

import senna
from senna.cli import tag as cli
from senna.io.allennlp import description, document_json

TEXT = "John Smith flew to Paris on Monday to meet the board.\nThe cat sat on the mat.\n"


@pytest.fixture(scope="module")
def tagger():
    return senna.load(tasks=["srl"])


def test_description_matches_allennlp_rendering():
    words = ["The", "cat", "sat", "on", "the", "mat", "."]
    tags = ["B-ARG0", "I-ARG0", "B-V", "B-ARGM-LOC", "I-ARGM-LOC", "I-ARGM-LOC", "O"]
    assert description(words, tags) == "[ARG0: The cat] [V: sat] [ARGM-LOC: on the mat] ."
    assert description(["a", "b"], ["B-ARG1", "B-ARG1"]) == "[ARG1: a] [ARG1: b]"
    assert description(["a", "b"], ["O", "O"]) == "a b"


def check_sentence(obj: dict) -> None:
    """What AllenNLP's predictor guarantees: one BIO tag per word, one V per frame."""
    assert set(obj) == {"words", "verbs"}
    for verb in obj["verbs"]:
        assert set(verb) == {"verb", "description", "tags"}
        assert len(verb["tags"]) == len(obj["words"])
        assert all(re.fullmatch(r"O|[BI]-[A-Z0-9-]+", t) for t in verb["tags"])
        assert [obj["words"][i] for i, t in enumerate(verb["tags"]) if t == "B-V"] == \
            [verb["verb"]]
        plain = re.sub(r"\[[A-Z0-9-]+: ", "", verb["description"]).replace("]", "")
        assert plain.split() == obj["words"]


def test_document_json(tagger):
    doc = tagger("John Smith flew to Paris on Monday to meet the board. The cat sat.")
    out = document_json(doc)
    assert len(out) == 2
    for obj in out:
        check_sentence(obj)
    assert [v["verb"] for v in out[0]["verbs"]] == ["flew", "meet"]
    assert out[0]["verbs"][0]["description"].startswith("[ARG0: John Smith] [V: flew]")


def test_sentence_without_predicates_has_no_verbs(tagger):
    assert document_json(tagger(["Hello", "world", "!"])) == [
        {"words": ["Hello", "world", "!"], "verbs": []}]


def test_cli_format_allennlp_is_one_object_per_sentence():
    out = io.BytesIO()
    assert cli.main(["--format", "allennlp"], io.BytesIO(TEXT.encode()), out) == 0
    lines = out.getvalue().decode().splitlines()
    assert len(lines) == 2
    for line in lines:
        check_sentence(json.loads(line))
    assert json.loads(lines[1])["words"] == ["The", "cat", "sat", "on", "the", "mat", "."]
