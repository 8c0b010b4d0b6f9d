"""Random text through the API: every tag column of every output format (SENNA columns with
IOBES, IOB2 and bracket tags; CoNLL; CoNLL-U; JSON) is a valid sequence, all formats name
the same spans, and every SRL predicate has one V span, holding it.  On the tiny random
models of test_pipeline (whose scores favour nothing: the decoder's constraints alone keep
the output valid) and on the shipped models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pipeline import WORDS, build_models

from senna.api import load
from senna.decode.constraints import valid_iobes
from senna.io.output import OutputOptions, format_document
from senna.tags import brackets_to_spans, split_tag, tags_to_spans

TASKS = ("pos", "chunk", "ner", "pt0", "srl")
SPAN_TASKS = ("chunk", "ner", "pt0")
SHIPPED = Path(__file__).resolve().parents[1] / "senna" / "models"

WORD = st.one_of(st.sampled_from(WORDS + ["John", "Paris", "said", "is", "the", "(", ")",
                                          "'s", "U.S.", "3.5", "--", "...", "New", "York"]),
                 st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF,
                                       exclude_characters="\x85"), min_size=1, max_size=6))
TEXT = st.one_of(
    st.lists(WORD, min_size=1, max_size=40).map(lambda ws: " ".join(ws)),
    st.lists(WORD, min_size=1, max_size=40),                        # pre-tokenised
    st.lists(st.sampled_from(["The cat sat .", "John lives in New York .", "runs , is",
                              "Paris said", "the a . .", "is is is"]), min_size=1, max_size=6)
    .map(" ".join))


def valid_iob2(tags: list[str]) -> bool:
    prev = "O"
    for tag in tags:
        p, kind = split_tag(tag)
        if p not in ("B", "I", "O") or (p == "I" and (prev == "O" or split_tag(prev)[1] != kind)):
            return False
        prev = tag
    return True


def columns(text: str) -> list[list[list[str]]]:
    """senna / conll output (no token column) -> per sentence, its columns."""
    out = []
    for block in text.split("\n\n"):
        if block.strip("\n"):
            rows = [[f.strip() for f in line.split("\t")] for line in block.split("\n")]
            out.append([list(col) for col in zip(*rows, strict=True)])
    return out


def check(doc) -> None:
    """Every format of one tagged document."""
    sents = [s for s in doc.sentences if s.tokens]
    for sent in sents:
        for task in SPAN_TASKS:
            assert valid_iobes(sent.columns[task]), task
        for p in sent.frames:
            assert valid_iobes(list(p.tags))
            v = [a for a in p.arguments if a.label == "V"]
            assert len(v) == 1 and v[0].start <= p.index < v[0].end
    for scheme, valid in (("iobes", valid_iobes), ("iob", valid_iob2), ("brackets", None)):
        opts = OutputOptions(TASKS, scheme, tokens=False)
        for fmt in ("senna", "conll"):
            got = columns(format_document(doc, fmt, opts))
            assert len(got) == len(sents)
            for cols, sent in zip(got, sents, strict=True):
                tags = cols[1:4] + cols[5:]                  # chunk, ner, pt0, roles
                assert len(cols) == 5 + len(sent.predicates)
                want = [sent.columns[task] for task in SPAN_TASKS]
                want += [list(tags) for tags in sent.roles]
                for col, ref in zip(tags, want, strict=True):
                    if valid is None:
                        assert spans_of_brackets(col) == sorted(tags_to_spans(ref))
                    else:
                        assert valid(col) and tags_to_spans(col) == tags_to_spans(ref)
        misc = [line.split("\t")[9] for line in format_document(doc, "conllu", opts).split("\n")
                if line and not line.startswith("#")]
        fields = [dict(f.split("=", 1) for f in m.split("|") if "=" in f) for m in misc]
        keys = ["Chunk", "NER", "PT0"] + [f"SRL{k + 1}" for k in range(30)]
        at = 0
        for sent in sents:
            rows, at = fields[at : at + len(sent.tokens)], at + len(sent.tokens)
            for key in keys:
                col = [r[key] for r in rows if key in r]
                if col and valid is not None:
                    assert len(col) == len(rows) and valid(col), (scheme, key)
                elif col:
                    brackets_to_spans(col)
    data = json.loads(format_document(doc, "json", OutputOptions(TASKS)))
    for sent in data["sentences"]:
        for task in SPAN_TASKS:
            assert valid_iobes([t[task] for t in sent["tokens"]])
        for p in sent["predicates"]:
            assert valid_iobes(p["tags"]) and any(a["label"] == "V" for a in p["arguments"])


def spans_of_brackets(column: list[str]) -> list[tuple[str, int, int]]:
    return sorted(brackets_to_spans(column))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return load(build_models(tmp_path_factory.mktemp("models")), TASKS)


@pytest.fixture(scope="module")
def shipped():
    if not (SHIPPED / "srl" / "config.json").exists():
        pytest.skip("no shipped models")
    return load(SHIPPED, TASKS)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_tiny_models_write_valid_sequences_in_every_format(tiny, text):
    check(tiny(text))


@pytest.mark.regression
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_shipped_models_write_valid_sequences_in_every_format(shipped, text):
    check(shipped(text))
