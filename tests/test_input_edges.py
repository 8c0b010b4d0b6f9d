"""Input at the edges of the layouts: pre-tokenised items that are not one token (API,
-usrtokens, server), CoNLL-U's MISC keys with -vbs, and the layout flags --format allennlp
cannot apply."""

from __future__ import annotations

import io
import re
import sys
import warnings
from pathlib import Path

import pytest
from conftest import build_models
from hypothesis import given, settings
from hypothesis import strategies as st

from senna.api import load, pretokenized_document
from senna.cli import tag as cli
from senna.cli.main import main as senna_main
from senna.tasks import TASKS
from senna.text.tokenize import pretokenized_tokens, split_pretokenized

ALL = ("pos", "chunk", "ner", "pt0", "srl")
SHIPPED = Path(__file__).resolve().parents[1] / "senna" / "models"


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> Path:
    return build_models(tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="module")
def tagger(models):
    return load(models, ALL)


def spans(doc) -> list[tuple[str, int | None, int | None]]:
    return [(t.text, t.start, t.end) for t in doc.tokens]


def test_the_reported_list_names_its_first_bad_item(tagger):
    with pytest.raises(ValueError, match=r"^pre-tokenised word 2 \(index 1\) '' is empty: "
                                         r"give one token per item$"):
        tagger(["New", "", "a b", "\u200f", "x\ny"])


@pytest.mark.parametrize(("item", "why"), [
    ("", "is empty"), (" ", "has no visible character"), ("\u200f", "has no visible character"),
    ("\xa0\u200b", "has no visible character"), ("a b", "holds 2 tokens separated by whitespace"),
    ("x\ny", "holds 2 tokens"), ("a\u2028b\tc", "holds 3 tokens"), ("y\r\nz", "holds 2 tokens")])
def test_items_that_are_not_one_token_are_refused(tagger, item, why):
    with pytest.raises(ValueError, match=rf"word 2 \(index 1\) .* {why}"):
        tagger(["New", item, "York"])
    with pytest.raises(ValueError, match=r"word 1 \(index 0\)"):
        list(tagger.pipe([["fine"], [item]]))


def test_a_long_bad_item_gives_a_short_error(tagger):
    with pytest.raises(ValueError) as e:
        tagger(["a b" * 100_000])
    assert len(str(e.value)) < 200 and "300000 characters" in str(e.value)


def test_items_are_trimmed_to_the_token_their_line_gives(tagger):
    items = ["\ufeffNew", "\xa0York\u200b", "10\xa0000", "a\n", "\U0001f600"]
    doc = tagger(items)
    assert spans(doc) == [("New", 1, 4), ("York", 6, 10), ("10\xa0000", 12, 18), ("a", 19, 20),
                          ("\U0001f600", 22, 23)]
    line = " ".join(items)
    assert doc.text == line and spans(pretokenized_document(line)) == spans(doc)


PIECES = st.sampled_from(["a", "é", "Ω", " ", "  ", "\t", "\xa0", "\u3000", "\u200b", "\x85",
                          "\u2028", "\x1c", "\ufeff", "\x00", "\U0001f600", "10\xa0000"])
LINE = st.lists(PIECES, max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(LINE, st.lists(LINE, max_size=6))
def test_fast_paths_find_what_the_rule_says(line, items):
    """The whole-line shortcuts of `pretokenized_document` (str.split, SpacedTokens, a list
    split back from its line) agree with `split_pretokenized` / `pretokenized_tokens`."""
    assert list(pretokenized_document(line).tokens) == split_pretokenized(line)
    try:
        want = pretokenized_tokens(items)
    except ValueError as e:
        with pytest.raises(ValueError, match=re.escape(str(e))):
            pretokenized_document(items)
        return
    assert list(pretokenized_document(items).tokens) == want


def test_usrtokens_drop_tokens_of_spaces_and_trim_them(models):
    line = "a \xa0 b \u3000 c\xa0d \xa0e\u2003"
    assert spans(pretokenized_document(line)) == [("a", 0, 1), ("b", 4, 5), ("c\xa0d", 8, 11),
                                                  ("e", 13, 14)]
    out = io.BytesIO()
    assert cli.main(["-path", str(models), "-usrtokens", "-pos", "--format", "conllu"],
                    io.BytesIO(line.encode() + b"\n"), out) == 0
    forms = [r.split("\t")[1] for r in out.getvalue().decode().splitlines()
             if r and not r.startswith("#")]
    assert forms == ["a", "b", "c\xa0d", "e"]


def test_server_refuses_items_that_are_not_one_token(tagger):
    pytest.importorskip("httpx")
    pytest.importorskip("starlette")
    with warnings.catch_warnings():   # Starlette 1.x asks for httpx2; httpx still works
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from senna.serve.app import create_app

    with TestClient(create_app(tagger)) as client:
        r = client.post("/tag", json={"tokens": [["a", "b"], ["c", "\u200b"]]})
        assert r.status_code == 422
        assert "sentence 2: pre-tokenised word 2 (index 1) '\\u200b'" in r.json()["error"]
        r = client.post("/tag", json={"tokens": ["\ufeffthe", "c\xa0d"], "tasks": ["pos"]})
        assert r.status_code == 200
        (sent,) = r.json()["documents"][0]["sentences"]
        assert [t["text"] for t in sent["tokens"]] == ["the", "c\xa0d"]


def test_spacy_tokens_that_show_nothing_or_hold_spaces_are_tagged(models):
    spacy = pytest.importorskip("spacy")
    from senna.integrations import spacy as component  # registers the factory

    nlp = spacy.blank("en")
    nlp.add_pipe("senna", config={"tasks": list(ALL), "model_dir": str(models)})
    doc = nlp.make_doc("John \u200b runs in New York \ufeff .")
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[4:6])
    doc = nlp.get_pipe("senna")(doc)
    assert [t.text for t in doc] == ["John", "\u200b", "runs", "in", "New York", "\ufeff", "."]
    assert [t.tag_ == "_SP" for t in doc] == [False, True, False, False, False, True, False]
    assert component.tagger_word("New York") == "New\xa0York"


def test_every_span_task_names_its_conllu_misc_key():
    assert all(t.misc for t in TASKS.values()
               if t.scheme != "tags" and not t.per_predicate and not t.tree)


def test_conllu_names_the_verb_detector_column():
    if not (SHIPPED / "vbs" / "config.json").exists():
        pytest.skip("no shipped models")
    out = io.BytesIO()
    assert cli.main(["--format", "conllu", "-vbs"], io.BytesIO(b"He went home.\n"), out) == 0
    assert out.getvalue().decode().splitlines() == [
        "# text = He went home.",
        "1\tHe\t_\t_\t_\t_\t_\t_\t_\tVBS=O",
        "2\twent\t_\t_\t_\t_\t_\t_\t_\tVBS=S-V",
        "3\thome\t_\t_\t_\t_\t_\t_\t_\tVBS=O|SpaceAfter=No",
        "4\t.\t_\t_\t_\t_\t_\t_\t_\tVBS=O",
        ""]


def usage_error(capsys, monkeypatch, args: list[str]) -> str:
    """`senna args` exits 2 with one `senna: error:` line; -> that line."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"John runs.\n")))
    assert senna_main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("senna: error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("flag", ["-offsettags", "-brackettags", "-notokentags"])
def test_allennlp_refuses_flags_it_cannot_apply_as_json_does(capsys, monkeypatch, models,
                                                             flag):
    args = ["-path", str(models), flag, "--format"]
    json_err = usage_error(capsys, monkeypatch, [*args, "json"])
    err = usage_error(capsys, monkeypatch, [*args, "allennlp"])
    assert err == json_err.replace("--format json", "--format allennlp")
    assert f"does not apply {flag} (it applies to the formats senna" in err


def test_allennlp_takes_iobtags_its_own_scheme(models):
    out = io.BytesIO()
    assert cli.main(["-path", str(models), "-iobtags", "--format", "allennlp"],
                    io.BytesIO(b"John runs .\n"), out) == 0
    assert out.getvalue().startswith(b'{"words": ["John", "runs", "."]')
