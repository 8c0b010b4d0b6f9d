"""Random text through the API: every tag column of every output format (SENNA columns with
IOBES, IOB2 and bracket tags; CoNLL; CoNLL-U; JSON) is a valid sequence, all formats name
the same spans, and every SRL predicate has one V span, holding it.  On the tiny random
models of test_pipeline (whose scores favour nothing: the decoder's constraints alone keep
the output valid) and on the shipped models.

Then the layouts themselves: pre-tokenised lists with odd items (empty, whitespace inside or
around, line breaks, control and invisible characters, very long, non-BMP) are refused
naming the first bad item or give one well-formed token per item, and every format under
every combination of the CLI's task and layout flags (-vbs included) is well-formed: constant
columns per sentence, CoNLL-U's 10 fields and named MISC items, JSON that parses."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest
from conftest import WORDS, build_models, tiny_model
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from senna.api import load
from senna.cli import tag as cli
from senna.cli.args import UsageError
from senna.decode.constraints import valid_iobes
from senna.io.checkpoint import save_model
from senna.io.output import FORMATS, OutputOptions, format_document
from senna.tags import brackets_to_spans, split_tag, tags_to_spans
from senna.tasks import TASKS as ALL_TASKS
from senna.text.invisible import visible
from senna.text.tokenize import USRTOKEN_SEPARATORS

TASKS = ("pos", "chunk", "ner", "pt0", "srl")
SPAN_TASKS = ("chunk", "ner", "pt0")
SHIPPED = Path(__file__).resolve().parents[1] / "senna" / "models"


def bad_item(word: str) -> bool:
    """An item that is not one token: nothing visible but spaces, or a separator (ASCII
    whitespace, a line break) between visible characters."""
    core = visible(word).strip()
    return not core or any(c in USRTOKEN_SEPARATORS for c in core)


WORD = st.one_of(st.sampled_from(WORDS + ["John", "Paris", "said", "is", "the", "(", ")",
                                          "'s", "U.S.", "3.5", "--", "...", "New", "York"]),
                 st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF,
                                       exclude_characters="\x85"), min_size=1, max_size=6))
TEXT = st.one_of(
    st.lists(WORD, min_size=1, max_size=40).map(lambda ws: " ".join(ws)),
    st.lists(WORD, min_size=1, max_size=40).filter(                 # pre-tokenised
        lambda ws: not any(map(bad_item, ws))),
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
    """The tiny models, with a verb detector (random too) choosing SRL's predicates."""
    root = build_models(tmp_path_factory.mktemp("models"))
    save_model(root / "vbs", tiny_model("vbs", ["O", "S-V"], ("pos",), seed=6))
    return load(root, (*TASKS, "vbs"))


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


# Pre-tokenised items: ordinary words and odd ones.
ODD_ITEM = st.one_of(
    WORD,
    st.sampled_from(["", " ", "a b", "x\ny", "\u200f", "\ufeff", "\xa0", "\xa0a\u200b", "a\xa0b",
                     "a\u2028b", "b\u2028", "\t", "a\x00b", "\x1b[31m", "\U0001d518\U0001f600",
                     "\u3000x\u3000", "\r\n", "a\x85", "\u202ex"]),
    st.text(max_size=8),                                              # any character
    st.integers(2_000, 20_000).map(lambda n: "w\U0001f600" * n))      # very long, non-BMP


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ODD_ITEM, min_size=1, max_size=12))
def test_pretokenised_odd_items_are_refused_or_one_token_each(tiny, items):
    bad = [i for i, w in enumerate(items) if bad_item(w)]
    if bad:
        with pytest.raises(ValueError, match=rf"^pre-tokenised word {bad[0] + 1} \(index "
                                             rf"{bad[0]}\) .*: give one token per item$"):
            tiny(items)
        return
    doc = tiny(items)
    assert [t.text for t in doc.tokens] == [visible(w).strip() for w in items]
    assert all(visible(doc.text[t.start : t.end]) == t.text for t in doc.tokens)
    for fmt in FORMATS:
        well_formed(doc, fmt, OutputOptions((*TASKS, "vbs"), offsets=fmt in ("senna", "conll")))


TASK_FLAGS = [f"-{t.column.lower()}" for t in ALL_TASKS.values()]
LAYOUT_FLAGS = ["-iobtags", "-brackettags", "-notokentags", "-offsettags"]
FLAGS = st.tuples(st.lists(st.sampled_from(TASK_FLAGS), min_size=1, unique=True),
                  st.lists(st.sampled_from(LAYOUT_FLAGS), unique=True),
                  st.sampled_from(FORMATS))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT, FLAGS)
@example("He went home.", (["-vbs"], [], "conllu"))
def test_every_format_and_flag_writes_a_well_formed_layout(tiny, text, flags):
    tasks_flags, layout, fmt = flags
    try:
        a, tasks = cli_options([*tasks_flags, *layout, "--format", fmt])
    except UsageError as e:   # then the same without the flags refused
        assert "contradict" in str(e) or f"--format {fmt} does not apply" in str(e)
        refused = {f for f, _ in cli.COLUMN_ONLY.get(fmt, ())} | {"-brackettags"}
        a, tasks = cli_options([*tasks_flags, *(f for f in layout if f not in refused),
                                "--format", fmt])
    well_formed(tiny(text), fmt, cli.output_options(a, tasks))


def cli_options(args: list[str]) -> tuple[argparse.Namespace, tuple[str, ...]]:
    """The tagger CLI's parsed and checked options, and its tasks (UsageError if refused)."""
    a = cli.parser().parse_args(args)
    tasks = cli.requested_tasks(a)
    cli.check_options(a, tasks)
    return a, tasks


MISC_KEYS = {t.misc for t in ALL_TASKS.values() if t.misc} | {"Pred", "SpaceAfter"}


def well_formed(doc, fmt: str, opts: OutputOptions) -> None:
    """The layout of `fmt` holds for every sentence of `doc` (those with tokens)."""
    out = format_document(doc, fmt, opts)
    assert out.splitlines() == out.split("\n")[:-1] or out == ""  # no other line breaks
    sents = [s for s in doc.sentences if s.tokens]
    if fmt in ("senna", "conll"):
        blocks = out.split("\n\n")
        assert len(blocks) == len(sents) + 1 and blocks[-1] == ""
        for block, sent in zip(blocks, sents, strict=False):
            rows = [line.split("\t") for line in block.split("\n")]
            assert len(rows) == len(sent.tokens) and len({len(r) for r in rows}) == 1
            assert all(f.strip(" ") for r in rows for f in r)     # no blank field
            if opts.tokens:
                assert [r[0].strip(" ") for r in rows] == [t.text for t in sent.tokens]
    elif fmt == "conllu":
        blocks = out.split("\n\n")
        assert len(blocks) == len(sents) + 1 and blocks[-1] == ""
        for block, sent in zip(blocks, sents, strict=False):
            rows = [line.split("\t") for line in block.split("\n") if not line.startswith("#")]
            assert [r[0] for r in rows] == [str(i + 1) for i in range(len(sent.tokens))]
            for r in rows:
                assert len(r) == 10 and r[1] and r[1] == r[1].strip() and all(r)
                items = [] if r[9] == "_" else r[9].split("|")
                assert all((k in MISC_KEYS or re.fullmatch("SRL[1-9][0-9]*", k)) and v
                           for k, _, v in (i.partition("=") for i in items)), r[9]
    else:
        lines = out.splitlines()
        objs = [json.loads(line) for line in lines]
        if fmt == "json":
            assert len(objs) == 1 and [len(s["tokens"]) for s in objs[0]["sentences"]] == [
                len(s.tokens) for s in doc.sentences]
        else:
            assert [len(o["words"]) for o in objs] == [len(s.tokens) for s in sents]
            assert all(len(v["tags"]) == len(o["words"]) for o in objs for v in o["verbs"])
