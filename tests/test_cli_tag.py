"""`senna` tagger CLI: SENNA v3.0's options, column layout, output formats, streaming."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from senna.cli import tag as cli
from senna.tags import convert, tags_to_brackets

TEXT = "The cat sat on the mat. John runs in New York.\nA dog is in a new mat, and runs.\n"


def tag(models: Path, *args: str, text: str = TEXT) -> str:
    out = io.BytesIO()
    assert cli.main(["-path", str(models), *args], io.BytesIO(text.encode()), out) == 0
    return out.getvalue().decode()


def sentences(output: str) -> list[list[list[str]]]:
    """Output -> sentences of rows of tab-separated fields."""
    blocks = [b for b in output.split("\n\n") if b.strip("\n")]
    return [[line.split("\t") for line in b.strip("\n").split("\n")] for b in blocks]


def test_default_columns_are_token_pos_chk_ner_srl(models):
    sents = sentences(tag(models))
    assert len(sents) == 3
    for rows in sents:
        n_preds = sum(r[4].strip() != "-" for r in rows)
        for r in rows:
            assert len(r) == 5 + n_preds
            assert len(r[0]) >= 15 and len(r[1]) >= 10 and len(r[4]) >= 15
            assert r[4].strip() in ("-", r[0].strip())
    assert [r[0].strip() for r in sents[0]] == "The cat sat on the mat .".split()


def test_task_flags_select_columns_in_senna_order(models):
    plain = sentences(tag(models))
    pos_ner = sentences(tag(models, "-ner", "-pos"))
    assert [[r[0], r[1], r[3]] for s in plain for r in s] == [r for s in pos_ner for r in s]
    only_pos = sentences(tag(models, "-pos", "-notokentags"))
    assert [r for s in only_pos for r in s] == [[r[1]] for s in plain for r in s]
    assert tag(models, "--tasks", "pos,chk") == tag(models, "-pos", "-chk")


def test_pt0_column_comes_after_ner(models):
    rows = [r for s in sentences(tag(models, "-pt0", "-srl", "-ner", "-chk", "-pos")) for r in s]
    plain = [r for s in sentences(tag(models)) for r in s]
    assert [r[:4] + r[5:] for r in rows] == plain
    assert all(r[4].strip()[:2] in ("O", "B-", "I-", "E-", "S-") for r in rows)


def test_offsets_column_indexes_the_line(models):
    lines = TEXT.splitlines()
    out = sentences(tag(models, "-pos", "-offsettags"))
    line_of = [0, 0, 1]
    for rows, k in zip(out, line_of, strict=True):
        for r in rows:
            start, end = map(int, r[1].strip("()").split())
            assert lines[k][start:end] == r[0].strip()


def test_iob_and_bracket_tags(models):
    iobes = sentences(tag(models, "-chk", "-srl"))
    for flag, convert_column in (("-iobtags", lambda c: convert(c, "iob2")),
                                 ("-brackettags", tags_to_brackets)):
        out = sentences(tag(models, "-chk", "-srl", flag))
        for rows, ref in zip(out, iobes, strict=True):
            for j in (1, *range(3, len(rows[0]))):
                got = [r[j].strip() for r in rows]
                assert got == convert_column([r[j].strip() for r in ref])
    assert any(r[1].strip().startswith(("E-", "S-")) for s in iobes for r in s)


def test_usrtokens_and_usrvbs(models, tmp_path):
    vbs = tmp_path / "vbs"
    vbs.write_text("-\nruns\n-\n\n-\n-\nis\n")
    out = sentences(tag(models, "-usrtokens", "-srl", "-usrvbs", str(vbs),
                        text="John runs  fast\n\n  a  dog-cat.\tis\n"))
    assert [[r[0].strip() for r in s] for s in out] == [["John", "runs", "fast"],
                                                         ["a", "dog-cat.", "is"]]
    assert [[r[1].strip() for r in s] for s in out] == [["-", "runs", "-"], ["-", "-", "is"]]
    assert all(len(r) == 3 for s in out for r in s)


def test_other_formats(models):
    conll = sentences(tag(models, "--format", "conll"))
    assert [r for s in conll for r in s] == [[f.strip() for f in r] for s in
                                             sentences(tag(models)) for r in s]
    conllu = tag(models, "--format", "conllu")
    assert "# text = The cat sat on the mat." in conllu
    rows = [line.split("\t") for line in conllu.splitlines() if line and line[0] != "#"]
    assert all(len(r) == 10 and r[4] != "_" and "Chunk=" in r[9] for r in rows)
    assert any("SpaceAfter=No" in r[9] for r in rows)
    docs = [json.loads(line) for line in tag(models, "--format", "json").splitlines()]
    assert [d["text"] for d in docs] == TEXT.splitlines()


def test_batch_size_does_not_change_output(models):
    assert tag(models, "--batch-size", "1") == tag(models)


def test_help_and_subcommand(models, capsys, monkeypatch):
    from senna.cli.main import main
    with pytest.raises(SystemExit) as e:
        main(["-h"])
    assert e.value.code == 0 and "-usrvbs" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"John runs.\n")))
    assert main(["tag", "-path", str(models), "-pos"]) == 0
    assert capsys.readouterr().out.split("\t")[0].strip() == "John"


def _read_sentence(fd: int, timeout: float = 60.0) -> str:
    """Read raw output until a blank line, failing instead of hanging."""
    data = b""
    while not data.endswith(b"\n\n"):
        ready, _, _ = select.select([fd], [], [], timeout)
        assert ready, "no output before the input ended: the CLI does not stream"
        chunk = os.read(fd, 4096)
        assert chunk, "output ended early"
        data += chunk
    return data.decode()


@pytest.mark.skipif(os.name != "posix", reason="select on pipes")
def test_streams_before_input_ends(models):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "senna.cli.main", "-path", str(models),
                             "-usrtokens", "-pos"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env)
    try:
        proc.stdin.write(b"John runs .\n")
        proc.stdin.flush()
        assert _read_sentence(proc.stdout.fileno()).split()[::2] == ["John", "runs", "."]
        proc.stdin.write(b"a dog\n")
        proc.stdin.close()
        assert _read_sentence(proc.stdout.fileno()).split()[::2] == ["a", "dog"]
        assert proc.wait(60) == 0
    finally:
        proc.kill()


def test_pt0_flag_selects_like_the_other_task_flags(models):
    only_pt0 = sentences(tag(models, "-pt0"))
    assert all(len(r) == 2 for s in only_pt0 for r in s)   # token + PT0, nothing else
    both = sentences(tag(models, "-pos", "-pt0"))
    assert all(len(r) == 3 for s in both for r in s)
    assert [r[2] for s in both for r in s] == [r[1] for s in only_pt0 for r in s]
    assert tag(models, "-pt0", "--tasks", "pos") == tag(models, "-pos", "-pt0")


def usage_error(capsys, monkeypatch, args: list[str]) -> str:
    """`senna args` must exit 2 (argparse's convention for bad arguments) with one
    `senna: error:` line; -> that line."""
    from senna.cli.main import main
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"John runs.\n")))
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("senna: error: ") and captured.err.count("\n") == 1, \
        captured.err
    return captured.err


@pytest.mark.parametrize(("args", "message"), [
    (["--tasks", ""], "--tasks"),
    (["--tasks", "pos,parse"], "unknown task 'parse'"),
    (["-iobtags", "-brackettags"], "-iobtags and -brackettags"),
    (["-usrvbs", "vbs.txt", "-posvbs"], "-usrvbs and -posvbs"),
    (["-usrvbs", "vbs.txt", "-pos"], "-usrvbs needs SRL"),
    (["-usrvbs", "missing.txt", "-srl"], "-usrvbs: can't open 'missing.txt'"),
    (["--format", "json", "-iobtags"], "--format json"),
    (["--format", "conllu", "-offsettags"], "--format conllu"),
    (["--batch-size", "0"], "--batch-size"),
    (["--threads", "-1"], "--threads"),
    (["--psg-beam", "0", "-psg"], "--psg-beam must be at least 1, got 0"),
    (["--psg-beam", "2", "-pos"], "--psg-beam is for the parser: add -psg"),
    (["evaluate", "--task", "pos", "--gold", "a", "--pred", "b", "--psg-beam", "2"],
     "--psg-beam is for a parser --model"),
    (["--batch-size", "x"], "invalid int value"),
    (["-nosuchflag"], "unrecognized arguments: -nosuchflag"),
    (["train", "--epochs", "x"], "senna train -h"),
    (["evaluate", "--task", "parse"], "senna evaluate -h"),
    (["lm", "train", "--stages", "10:5,5:5"], "senna lm train -h"),
    (["neighbors"], "senna neighbors -h"),
    (["export-embeddings", "--to", "x"], "senna export-embeddings -h"),
    (["install-nltk-shim"], "senna install-nltk-shim -h"),
])
def test_bad_arguments_exit_2_everywhere(capsys, monkeypatch, models, args, message):
    assert message in usage_error(capsys, monkeypatch, ["-path", str(models), *args]
                                  if args[0].startswith("-") else args)


def test_help_lists_the_task_names_the_parser_reports(capsys):
    """`senna -h` names the tasks as the parser's own error message does (chk is accepted
    as an alias of chunk, but not listed)."""
    from senna.cli.main import main
    from senna.tasks import DEFAULT_TASKS, TASKS
    with pytest.raises(SystemExit):
        main(["-h"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"tasks: {','.join(TASKS)} " in out and f"default: {','.join(DEFAULT_TASKS)}" in out
    assert "pos,chk" not in out


def test_json_leaves_out_tasks_not_asked_for(models):
    """JSON carries the requested tasks only, as the column formats do: no null fields for
    tasks not asked for, nor those run only as another task's input."""
    [doc] = [json.loads(line) for line in tag(models, "--tasks", "chunk", "--format", "json",
                                              text="John runs in New York.\n").splitlines()]
    sent = doc["sentences"][0]
    assert set(sent) == {"tokens", "chunks"}
    assert {k for t in sent["tokens"] for k in t} == {"text", "start", "end", "chunk"}
    [doc] = [json.loads(line) for line in tag(models, "-srl", "--format", "json",
                                              text="John runs in New York.\n").splitlines()]
    sent = doc["sentences"][0]
    assert set(sent) == {"tokens", "predicates"}
    assert {k for t in sent["tokens"] for k in t} == {"text", "start", "end"}


def test_help_lists_subcommands_and_version(capsys):
    import senna
    from senna.cli.main import SUBCOMMANDS, main
    with pytest.raises(SystemExit) as e:
        main(["-h"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    assert all(f"senna {name} " in out for name in SUBCOMMANDS if name != "tag")
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out == f"senna {senna.__version__}\n"


def test_python_dash_m_senna(models):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, "-m", "senna", "-path", str(models), "-pos"],
                         input=b"John runs.\n", capture_output=True, env=env, timeout=120)
    assert res.returncode == 0 and res.stdout.split()[0] == b"John", res.stderr
