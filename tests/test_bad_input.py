"""The tagger CLI on hostile input: empty, huge, binary, exotic; bad -usrvbs files and
broken model directories must give one `senna: error:` line and exit 1, never a traceback."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, WORDS
from hypothesis import given, settings
from hypothesis import strategies as st

from senna.api import load
from senna.cli import reading
from senna.cli import tag as cli
from senna.cli.main import main as senna_main
from senna.io.output import OutputOptions
from senna.text.invisible import INVISIBLE, visible
from senna.text.pieces import MAX_WORDS
from senna.text.tokenize import USRTOKEN_SEPARATORS

ALL = ("pos", "chunk", "ner", "pt0", "srl")


@pytest.fixture(scope="module")
def tagger(models):
    return load(models, ALL)


def tag(models: Path, data: bytes, *args: str) -> str:
    out = io.BytesIO()
    assert cli.main(["-path", str(models), *args], io.BytesIO(data), out) == 0
    return out.getvalue().decode()


def rows(output: str) -> list[list[str]]:
    return [line.split("\t") for line in output.split("\n") if line]


def fails(capsys, monkeypatch, args: list[str], data: bytes = b"John runs .\n") -> str:
    """Run `senna args` in-process; expect exit 1 and one error line; return it."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert senna_main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("senna: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def test_empty_input_and_blank_lines(models):
    assert tag(models, b"") == ""
    assert tag(models, b"\n\n  \t\n\r\n") == ""
    text = b"John runs.\nA dog sat.\n"
    assert tag(models, b"\n\n" + text.replace(b"\n", b"\n\n \n") + b"\n") == tag(models, text)
    assert tag(models, b"a  b\n\n\nc", "-usrtokens") == tag(models, b"a b\nc\n", "-usrtokens")


def test_one_megabyte_line(models):
    line = ("supercalifragilistic" * 50 + " ") * 1040
    out = rows(tag(models, line.encode(), "-offsettags", "-pos", "-chk", "-ner", "-pt0"))
    assert len(out) == 1040 and all(len(r) == 6 for r in out)
    assert all(line[int(r[1][1:-1].split()[0]) : int(r[1][1:-1].split()[1])] == r[0].strip()
               for r in out)


def test_twenty_thousand_token_sentence(models, tmp_path):
    words = [WORDS[i % len(WORDS)] for i in range(20_000)]
    vbs = tmp_path / "vbs"
    vbs.write_text("".join("sat\n" if i == 12_345 else "-\n" for i in range(20_000)))
    out = rows(tag(models, " ".join(words).encode() + b"\n", "-usrtokens", "--tasks",
                   "pos,chk,ner,pt0,srl", "-usrvbs", str(vbs)))
    assert len(out) == 20_000 and all(len(r) == 7 for r in out)   # one sentence
    with_roles = [i for i, r in enumerate(out) if r[6].strip() != "O"]   # in its piece
    assert with_roles[-1] - with_roles[0] < MAX_WORDS
    assert with_roles[0] <= 12_345 <= with_roles[-1]
    assert [r[0].strip() for r in out] == words
    assert [i for i, r in enumerate(out) if r[5].strip() != "-"] == [12_345]


def test_invalid_utf8_control_characters_emoji_cjk(models):
    data = ("naïve café 東京タワー に 行きました 。 🎉🎉 I ❤️ NY 👩‍👩‍👧\n").encode()
    data += b"caf\xe9 \xff\xfe ok \xc3\n"
    data += "a\x00b \x07 \x1b[31m red\x0c \x1c x \u200b y\n".encode()
    docs = [json.loads(line) for line in tag(models, data, "--format", "json").splitlines()]
    assert len(docs) == 3 and "\ufffd" in docs[1]["text"]
    for d in docs:
        toks = [t for s in d["sentences"] for t in s["tokens"]]
        assert all(visible(d["text"][t["start"] : t["end"]]) == t["text"] for t in toks)
        assert "".join(t["text"] for t in toks) == "".join(visible(d["text"]).split())
    assert len(rows(tag(models, data))) == sum(len(s["tokens"]) for d in docs
                                               for s in d["sentences"])


def test_usrvbs_mismatches(capsys, monkeypatch, models, tmp_path):
    vbs = tmp_path / "vbs"
    base = ["-path", str(models), "-usrtokens", "-usrvbs", str(vbs)]
    vbs.write_text("-\nruns\n")
    assert "sentence 1 has 2 lines" in fails(capsys, monkeypatch, base)
    vbs.write_text("-\nruns\n-\n")
    assert "ends before input sentence 2" in fails(capsys, monkeypatch, base,
                                                   b"John runs .\na b\n")
    vbs.write_text("-\nruns\n-\n\n-\n")
    assert "more sentences" in fails(capsys, monkeypatch, base)


def test_missing_and_corrupt_model_dirs(capsys, monkeypatch, models, tmp_path):
    assert "none: no such directory" in fails(capsys, monkeypatch,
                                              ["-path", str(tmp_path / "none")])
    broken = tmp_path / "broken"
    shutil.copytree(models, broken)
    weights = broken / "pos" / "weights.npz"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    assert "weights.npz" in fails(capsys, monkeypatch, ["-path", str(broken), "-pos"])
    (broken / "ner" / "config.json").write_text("{garbage")
    assert "config.json" in fails(capsys, monkeypatch, ["-path", str(broken), "-ner"])


def test_corrupt_model_in_a_subprocess(models, tmp_path):
    broken = tmp_path / "m"
    shutil.copytree(models, broken)
    (broken / "chunk" / "weights.npz").write_bytes(b"PK\x03\x04 not a zip")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, "-m", "senna.cli.main", "-path", str(broken)],
                         input=b"John runs.\n", capture_output=True, env=env, timeout=120)
    assert res.returncode == 1 and res.stdout == b""
    assert res.stderr.decode().startswith("senna: error: ") and b"Traceback" not in res.stderr
    assert res.stderr.count(b"\n") == 1


LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
               max_size=60)


def run_stream(tagger, lines: list[str], fmt: str, usrtokens: bool) -> str:
    out = io.BytesIO()
    opts = OutputOptions(("pos", "chunk", "srl"))
    stream = cli.Stream(tagger, out, fmt, opts, usrtokens)
    stream.run(reading.read_lines(io.BytesIO("\n".join(lines).encode())), batch_size=3)
    return out.getvalue().decode()


@settings(max_examples=40, deadline=None)
@given(st.lists(LINE, max_size=6))
def test_usrtokens_one_line_per_token(tagger, lines):
    out = run_stream(tagger, lines, "senna", usrtokens=True)
    got = [r[0].strip(" ") for r in rows(out)]
    separators = re.compile(f"[{re.escape(USRTOKEN_SEPARATORS)}]+")
    assert got == [visible(w).strip() for line in lines for w in separators.split(line)
                   if visible(w).strip()]


@settings(max_examples=40, deadline=None)
@given(st.lists(LINE, max_size=6))
def test_raw_text_offsets_reproduce_the_input(tagger, lines):
    out = run_stream(tagger, lines, "json", False)
    docs = [json.loads(x) for x in out.splitlines()]   # splitlines: U+2028 etc. escaped
    assert [d["text"] for d in docs] == [x.rstrip("\r\n") for x in lines
                                         if visible(x).split()]
    n_tokens = 0
    for d in docs:
        toks = [t for s in d["sentences"] for t in s["tokens"]]
        assert all(visible(d["text"][t["start"] : t["end"]]) == t["text"] for t in toks)
        assert "".join(t["text"] for t in toks) == "".join(visible(d["text"]).split())
        n_tokens += len(toks)
    assert len(rows(run_stream(tagger, lines, "senna", False))) == n_tokens


def test_api_says_which_inputs_it_takes(tagger):
    with pytest.raises(TypeError, match=r"got bytes.*decode"):
        tagger(b"John runs.")
    with pytest.raises(TypeError, match=r"word 2 .*int"):
        tagger(["a", 1])
    with pytest.raises(TypeError, match="str .*list of str"):
        tagger(42)
    with pytest.raises(TypeError, match="list of texts"):
        tagger.pipe("abc")
    with pytest.raises(TypeError, match="got bytes"):
        list(tagger.pipe([b"abc"]))
    with pytest.raises(TypeError, match="got dict"):
        tagger({"a": 1})
    assert [t.text for t in tagger(("John", "runs")).tokens] == ["John", "runs"]
    assert [t.text for t in tagger(np.array(["John", "runs"])).tokens] == ["John", "runs"]


def test_invisible_characters_never_become_tokens(tagger):
    doc = tagger("\ufeffJohn\u200b runs \u200d.")
    assert [(t.text, t.start, t.end) for t in doc.tokens] == [
        ("John", 1, 5), ("runs", 7, 11), (".", 13, 14)]
    doc = cli.Stream(tagger, io.BytesIO(), usrtokens=True).document(
        "\ufeffJohn \u200b ru\x00ns .".encode())
    assert [(t.text, t.start, t.end) for t in doc.tokens] == [
        ("John", 1, 5), ("runs", 8, 13), (".", 14, 15)]
    # a list is one token per item; an item with nothing visible is refused
    assert [t.text for t in tagger(["\ufeffJohn", "ru\x1bns"]).tokens] == ["John", "runs"]
    with pytest.raises(ValueError, match=r"word 3 \(index 2\) '\\u200b' has no visible"):
        tagger(["\ufeffJohn", "ru\x1bns", "\u200b"])


@pytest.mark.parametrize("fmt", ["senna", "conll", "conllu", "json"])
@pytest.mark.parametrize("usrtokens", [False, True])
def test_control_characters_do_not_reach_the_output(models, fmt, usrtokens):
    data = "\ufeffJohn \x1b[31mruns\x1b[0m in \x9b2J New\x00York \x07.\n\u200b a \u202e b\x7f\n"
    args = ["--format", fmt, "--tasks", "pos,chk,ner,pt0,srl"]
    args += (["-offsettags"] if fmt in ("senna", "conll") else [])
    args += (["-usrtokens"] if usrtokens else [])
    out = tag(models, data.encode(), *args)
    assert out.strip() and not INVISIBLE.search(out), repr(out)
    if fmt == "json":  # the documents still hold the input text, escaped
        assert [json.loads(x)["text"] for x in out.splitlines()] == data.splitlines()


def _edit_weights(model_dir: Path, edit) -> None:
    """Rewrite a model's weights.npz after `edit(dict of arrays)`."""
    with np.load(model_dir / "weights.npz") as z:
        arrays = {k: z[k] for k in z.files}
    edit(arrays)
    np.savez(model_dir / "weights.npz", **arrays)


def _nan_at_start(arrays):
    arrays["l2.weight"][0, 0] = np.nan


def reseal(model: Path) -> None:
    """Record a model's files as they are now (sizes and checksums are checked before
    anything is parsed, so a changed file is otherwise refused for that alone)."""
    from senna.io.manifest import write_manifest

    write_manifest(model, json.loads((model / "manifest.json").read_text())["files"])


@pytest.mark.parametrize(("edit", "message"), [
    (lambda a: a.pop("l2.bias"), r"pos/weights\.npz: array 'l2\.bias' is missing"),
    (lambda a: a.update({"l1.weight": a["l1.weight"][:, :-1]}),
     r"pos/weights\.npz: array 'l1\.weight' has shape \(6, 17\), expected \(6, 18\)"),
    (_nan_at_start, r"pos/weights\.npz: array 'l2\.weight' holds 1 value that is not finite"),
    (lambda a: a.update({"start": a["start"].astype(np.int64)}),
     r"pos/weights\.npz: array 'start' holds int64 values, expected floating point"),
])
@pytest.mark.parametrize("data", [b"", b"John runs.\n"])
def test_model_arrays_are_checked_when_loaded(capsys, monkeypatch, models, tmp_path, edit,
                                              message, data):
    broken = tmp_path / "m"
    shutil.copytree(models, broken)
    _edit_weights(broken / "pos", edit)
    reseal(broken / "pos")   # as if saved so: the load-time checks must catch it
    err = fails(capsys, monkeypatch, ["-path", str(broken), "-pos"], data)
    assert re.search(message, err), err


def test_model_config_is_checked_against_its_files(capsys, monkeypatch, models, tmp_path):
    broken = tmp_path / "m"
    shutil.copytree(models, broken)
    config = json.loads((broken / "ner" / "config.json").read_text())
    config["tags"] = config["tags"][:-1]
    (broken / "ner" / "config.json").write_text(json.dumps(config))
    reseal(broken / "ner")
    err = fails(capsys, monkeypatch, ["-path", str(broken), "-ner"], b"")
    assert re.search(r"ner/config\.json: 8 tags, but net\.n_tags is 9", err), err
    (broken / "pos" / "vocab" / "word.lst").write_text("PADDING\nRARE\nthe\n")
    reseal(broken / "pos")
    err = fails(capsys, monkeypatch, ["-path", str(broken), "-pos"], b"")
    assert re.search(r"pos/vocab/word\.lst: 3 entries, but net\.vocab_sizes\[0\] in "
                     r"config\.json is 18", err), err


def test_rows_of_a_model_over_shared_embeddings_are_checked(tmp_path):
    from senna.io.checkpoint import load_model
    from senna.io.saved_model import ModelError

    shipped = ROOT / "senna" / "models"
    (tmp_path / "embeddings").symlink_to(shipped / "embeddings")
    shutil.copytree(shipped / "chunk", tmp_path / "chunk")
    load_model(tmp_path / "chunk")
    words = json.loads((tmp_path / "chunk" / "config.json").read_text())["net"]["vocab_sizes"][0]

    def out_of_range(a):
        a["emb.tables.0.rows"][-1] = words

    _edit_weights(tmp_path / "chunk", out_of_range)
    (tmp_path / "chunk" / "manifest.json").unlink()   # else its checksum refuses it first
    with pytest.raises(ModelError, match=rf"chunk/weights\.npz: array 'emb\.tables\.0\.rows' "
                                         rf"holds row ids outside \[0, {words}\): {words}"):
        load_model(tmp_path / "chunk")


@pytest.mark.parametrize("preds", [["a"], [1.5], [True], [None]])
def test_predicate_positions_must_be_integers(models, preds):
    """1.5 or True would otherwise be taken as position 1 without a word."""
    tagger = load(models, ("pos", "srl"))
    with pytest.raises(ValueError, match=r"predicate positions must be integers"):
        tagger(["John", "runs", "home"], predicates=preds)
    assert tagger(["John", "runs", "home"], predicates=[np.int64(1)]).sentences[0].predicates == [1]


def test_running_out_of_memory_is_one_error_line(capsys):
    from senna.cli.main import run

    def entry(argv):
        raise MemoryError

    assert run(entry, []) == 1
    err = capsys.readouterr().err
    assert err.startswith("senna: error: out of memory") and err.count("\n") == 1


@pytest.mark.parametrize("piped", [True, False])
def test_a_line_beyond_the_limit_is_one_error_not_all_the_memory(monkeypatch, piped):
    """Input without line breaks (/dev/zero) is refused once a line passes MAX_LINE bytes,
    from a pipe (read in chunks) as from an in-memory stream; the lines before it are read."""
    monkeypatch.setattr(reading, "MAX_LINE", 1000)
    data = b"short line\n" + b"\0" * 5000

    def lines():
        if not piped:
            return list(reading.read_lines(io.BytesIO(data)))
        r, w = os.pipe()
        os.write(w, data)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            return [line for line in reading.read_lines(f) if line is not None]

    with pytest.raises(ValueError, match="input line 2 is longer than 0 MiB") as err:
        lines()
    assert "line breaks" in str(err.value)
    monkeypatch.setattr(reading, "MAX_LINE", 6000)
    assert lines() == [b"short line\n", b"\0" * 5000]
