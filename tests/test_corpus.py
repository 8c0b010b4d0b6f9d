"""`senna tag-corpus`: partition planning, shard verification, a job on a local Dask
cluster, and a job killed mid-way and resumed.  Cluster tests skip without Dask."""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

import senna
from senna.integrations.corpus import documents, make_job, plan, read_lines
from senna.integrations.corpus_dask import run_job, tag_partition
from senna.integrations.corpus_shards import (
    exclusive,
    format_shard,
    output_dir,
    prepare_output,
    verified,
)
from senna.io.output import OutputOptions

TASKS = ["pos", "ner"]
WORDS = "John Smith flew to Paris on Monday . The cat sat on the mat . Mary met Bob".split()


def corpus_text(n: int) -> str:
    """n lines of varying length with blank lines between some, deterministic."""
    lines = []
    for i in range(n):
        lines.append(" ".join(WORDS[(i * 7) % len(WORDS):][: 3 + (i * 5) % 9]))
        if i % 4 == 3:
            lines.append("")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def tagger():
    return senna.load(tasks=TASKS)


@pytest.fixture
def inputs(tmp_path) -> list[str]:
    text = tmp_path / "a.txt"
    text.write_text(corpus_text(40), encoding="utf-8")
    jsonl = tmp_path / "b.jsonl"
    jsonl.write_text("".join(json.dumps({"id": f"doc{i}", "text": line}) + "\n"
                             for i, line in enumerate(corpus_text(6).split("\n")) if line),
                     encoding="utf-8")
    return [str(text), str(jsonl)]


def test_partitions_cover_every_line_once(tmp_path):
    path = tmp_path / "c.txt"
    raw = "a b\n\nccc dd e\r\nf\n" + "x " * 30 + "\nlast line without newline"
    path.write_bytes(raw.encode())
    want = [(i + 1, line.rstrip("\r")) for i, line in enumerate(raw.split("\n"))]
    for size in (1, 2, 3, 5, 8, 13, 40, 1000):
        job = make_job([str(path)], ["pos"], partition_bytes=size)
        parts = plan(job)
        assert [p.index for p in parts] == list(range(len(parts)))
        got = [item for p in parts for item in read_lines(p)]
        assert got == want, size


def test_jsonl_ids_and_bad_lines(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": 7, "text": "A b."}\n\n{"text": "C d."}\n')
    job = make_job([str(path)], ["pos"])
    assert list(documents(plan(job)[0], job)) == [("7", "A b."), (f"{path}:3", "C d.")]
    path.write_text('{"id": 7, "text": "A b."}\n[1, 2]\n')
    with pytest.raises(ValueError, match=r"d.jsonl:2: no string field 'text'"):
        list(documents(plan(job := make_job([str(path)], ["pos"]))[0], job))
    path.write_text('{"id": 7,\n')
    with pytest.raises(ValueError, match="d.jsonl:1: not a JSON object"):
        list(documents(plan(job := make_job([str(path)], ["pos"]))[0], job))


def test_bad_job_options(tmp_path, inputs):
    with pytest.raises(ValueError, match="no such file"):
        make_job([str(tmp_path / "missing.txt")], ["pos"])
    with pytest.raises(ValueError, match="output formats"):
        make_job(inputs, ["pos"], formats=("parquet",))
    with pytest.raises(ValueError, match="unknown task"):
        make_job(inputs, ["parse"])


def test_partition_shards_verify_and_redo_when_damaged(tmp_path, inputs, tagger):
    job = make_job(inputs, TASKS, partition_bytes=200)
    part = plan(job)[1]
    out = tmp_path / "out"
    out.mkdir()
    first = tag_partition(part, str(out), job, tagger)
    assert first.skipped == 0 and first.docs > 0
    assert verified(out, part, job).docs == first.docs
    shard = out / f"{part.name}.conll"
    good = shard.read_bytes()
    shard.write_bytes(good[:-5])               # a torn write
    assert verified(out, part, job) is None
    assert tag_partition(part, str(out), job, tagger).skipped == 0
    assert shard.read_bytes() == good


def expected_shards(job, tagger) -> dict[str, str]:
    """What every shard must hold: each partition's documents tagged directly."""
    opts = OutputOptions(job.tasks)
    out = {}
    for part in plan(job):
        docs = list(documents(part, job))
        tagged = list(tagger.pipe([text for _, text in docs]))
        for fmt in job.formats:
            out[f"{part.name}.{fmt}"] = "".join(
                format_shard(i, d, fmt, opts) for (i, _), d in zip(docs, tagged, strict=True))
    return out


def shard_files(out: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.iterdir())
            if p.suffix in (".jsonl", ".conll", ".conllu")}


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "senna.cli.main", "tag-corpus", *args]


ENV = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def test_job_on_a_local_cluster(tmp_path, inputs, tagger):
    pytest.importorskip("distributed")
    out = tmp_path / "out"
    args = [*inputs, "--out", str(out), "--tasks", ",".join(TASKS), "--workers", "2",
            "--partition-size", "200", "--format", "jsonl,conll,conllu"]
    run = subprocess.run(cli(*args), capture_output=True, text=True, env=ENV, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and "ERROR" not in run.stderr, run.stderr
    job = make_job(inputs, TASKS, partition_bytes=200, formats=("jsonl", "conll", "conllu"))
    assert shard_files(out) == expected_shards(job, tagger)
    ids = [json.loads(line)["id"] for name, text in shard_files(out).items()
           if name.endswith(".jsonl") for line in text.splitlines()]
    assert ids[0] == f"{inputs[0]}:1" and ids[-1] == "doc6" and len(ids) == len(set(ids))
    again = subprocess.run(cli(*args), capture_output=True, text=True, env=ENV, timeout=300)
    n = len(plan(job))
    assert f"{n} partitions ({n} already done)" in again.stderr


class Records(logging.Handler):
    """Log records kept in a list."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_a_cluster_shut_down_right_after_the_job_logs_no_error(tmp_path, inputs, capsys):
    """Progress shown, then the cluster closed at once: no scheduler task is still polling
    for the progress bar (Dask's own bar left one that logged a CancelledError traceback)."""
    distributed = pytest.importorskip("distributed")
    job = make_job(inputs, TASKS, partition_bytes=200)
    errors = Records()
    logging.getLogger("distributed").addHandler(errors)   # Dask's loggers do not propagate
    try:
        with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            run_job(job, tmp_path / "out", client, progress=True)
    finally:
        logging.getLogger("distributed").removeHandler(errors)
    assert [r.getMessage() or repr(r.exc_info) for r in errors.records] == []
    n = len(plan(job))
    progress = capsys.readouterr().err      # on stderr, redrawn in place, ended by a newline
    last = progress.split("\r")[-1]
    assert f"| {n}/{n} [" in last and " partitions/s]" in last and progress.endswith("\n")


def test_killed_job_resumes_without_loss_or_duplicates(tmp_path, inputs, tagger):
    pytest.importorskip("distributed")
    out = tmp_path / "out"
    args = [*inputs, "--out", str(out), "--tasks", ",".join(TASKS), "--workers", "1",
            "--partition-size", "40", "--quiet"]
    job = make_job(inputs, TASKS, partition_bytes=40)
    total = len(plan(job))
    proc = subprocess.Popen(cli(*args), env=ENV, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("*.done")) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)   # the job and the cluster it started
        proc.wait()
    done = sorted(out.glob("*.done"))
    assert 0 < len(done) < total, "kill the job after its first shards, before its last"
    victim = done[0].name.removesuffix(".done") + ".jsonl"
    (out / victim).write_text("{}\n")      # a shard damaged after it was recorded
    resumed = subprocess.run(cli(*args[:-1]), capture_output=True, text=True, env=ENV,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{total} partitions ({len(done) - 1} already done)" in resumed.stderr
    assert shard_files(out) == expected_shards(job, tagger)
    assert not list(out.glob(".*.tmp"))


def run_cli(capsys, *args: str) -> tuple[int, str]:
    """`senna tag-corpus ARGS` in this process: exit status and stderr."""
    from senna.cli import tag_corpus
    from senna.cli.main import run

    code = run(tag_corpus.main, list(args))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002])
def test_shards_honour_the_umask(tmp_path, inputs, tagger, umask):
    job = make_job(inputs, TASKS)
    old = os.umask(umask)
    try:
        with output_dir(tmp_path / "out", job) as out:
            tag_partition(plan(job)[0], str(out), job, tagger)
    finally:
        os.umask(old)
    files = [p for p in out.iterdir() if p.name != ".lock"]
    assert {p.suffix for p in files} == {".json", ".jsonl", ".conll", ".done"}
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in files} == {
        p.name: oct(0o666 & ~umask) for p in files}


def test_binary_inputs_are_skipped_with_a_warning(tmp_path, inputs):
    noise = tmp_path / "noise.txt"
    noise.write_bytes(bytes(random.Random(0).randrange(256) for _ in range(20000)))
    program = tmp_path / "program"
    program.write_bytes(Path(sys.executable).read_bytes()[:50000])
    latin1 = tmp_path / "latin1.txt"       # a few invalid bytes: text, tagged as it is
    latin1.write_bytes("Le café de René est à Paris .\n".encode("latin-1") * 50)
    high = tmp_path / "high.txt"           # no NUL byte, but no UTF-8 either
    high.write_bytes(bytes(random.Random(1).randrange(128, 256) for _ in range(20000)))
    utf16 = tmp_path / "utf16.jsonl"
    utf16.write_bytes('{"text": "A b."}\n'.encode("utf-16"))
    warned: list[str] = []
    job = make_job([str(noise), inputs[0], str(program), str(latin1), str(high), str(utf16)],
                   TASKS, warn=warned.append)
    assert [path for path, _, _ in job.inputs] == [inputs[0], str(latin1)]
    assert [w.split(":")[0] for w in warned] == [str(noise), str(program), str(high), str(utf16)]
    assert "(over 10% invalid UTF-8 in its first 8 KiB)" in warned[2]
    assert all("skipped, a binary file" in w and "\n" not in w for w in warned)
    with pytest.raises(ValueError, match="no text input files"):
        make_job([str(noise)], TASKS, warn=warned.append)


def test_binary_input_is_one_warning_line_in_the_cli(tmp_path, capsys):
    noise = tmp_path / "noise.bin"
    noise.write_bytes(b"\x7fELF\x02\x01\x01\x00" * 1000)
    code, err = run_cli(capsys, str(noise), "--out", str(tmp_path / "out"), "--quiet")
    assert code == 1
    assert err.splitlines() == [
        f"senna tag-corpus: warning: {noise}: skipped, a binary file (a NUL byte in its "
        "first 8 KiB)", "senna: error: no text input files (every input was skipped)"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_directory_or_fifo_input_is_named_for_what_it_is(tmp_path):
    with pytest.raises(ValueError, match=r"is a directory, not a file"):
        make_job([str(tmp_path)], TASKS)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"fifo: is a FIFO \(named pipe\), not a regular file"):
        make_job([str(fifo)], TASKS)
    with pytest.raises(ValueError, match="no such file"):
        make_job([str(tmp_path / "missing")], TASKS)


def test_without_dask_the_install_hint_is_serves(tmp_path, inputs, capsys, monkeypatch):
    from senna.cli import serve
    from senna.cli.main import run

    monkeypatch.setitem(sys.modules, "distributed", None)
    monkeypatch.setitem(sys.modules, "dask", None)
    code, err = run_cli(capsys, *inputs, "--out", str(tmp_path / "out"))
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert run(serve.main, []) == code == 1
    hint = "pip install '.[{}]' in a checkout of senna (it is not on PyPI), or pip install "
    assert err.startswith("senna: error: tag-corpus needs Dask: " + hint.format("dask"))
    assert capsys.readouterr().err.startswith(
        "senna: error: serve needs Starlette and uvicorn: " + hint.format("serve"))
    assert err.count("\n") == 1 and not (tmp_path / "out").exists()


def test_a_cluster_that_cannot_start_is_one_line(tmp_path, inputs, capsys, monkeypatch):
    distributed = pytest.importorskip("distributed")

    def fail(*args, **kwargs):
        raise RuntimeError("Cluster failed to start: [Errno 13] Permission denied: "
                           "'/dask-scratch-space'\nmore detail")

    monkeypatch.setattr(distributed, "LocalCluster", fail)
    code, err = run_cli(capsys, *inputs, "--out", str(tmp_path / "out"), "--quiet")
    assert code == 1
    assert err == ("senna: error: cannot start a local Dask cluster: Cluster failed to "
                   "start: [Errno 13] Permission denied: '/dask-scratch-space'\n")


def test_an_out_directory_in_use_is_a_usage_error(tmp_path, inputs, capsys):
    out = tmp_path / "out"
    prepare_output(out, make_job(inputs[:1], TASKS))
    code, err = run_cli(capsys, *inputs, "--out", str(out), "--tasks", ",".join(TASKS))
    assert code == 2 and "holds another job's output" in err and err.count("\n") == 1
    with exclusive(out):            # a job running there now
        code, err = run_cli(capsys, inputs[0], "--out", str(out), "--tasks", ",".join(TASKS))
    assert code == 2 and "another tag-corpus job is running there" in err
    assert err.endswith("(senna tag-corpus -h for help)\n") and err.count("\n") == 1


def test_an_unreachable_scheduler_is_one_line(tmp_path, inputs, capsys):
    dask = pytest.importorskip("dask")
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code, err = run_cli(capsys, *inputs, "--out", str(tmp_path / "out"), "--quiet",
                            "--scheduler", "tcp://127.0.0.1:1")
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith("senna: error: cannot reach the Dask scheduler at tcp://127.0.0.1:1: ")


@pytest.mark.parametrize("args, message", [
    (["--tasks", "pos,parse"], "unknown task 'parse'"),
    (["--format", "jsonl,parquet"], "output formats must be some of jsonl, conll, conllu"),
    (["--partition-size", "0"], "partition size and batch size must be at least 1"),
    (["--batch-size", "0"], "partition size and batch size must be at least 1"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--input-format", "xml"], "invalid choice: 'xml'"),
])
def test_bad_options_exit_2(tmp_path, inputs, capsys, args, message):
    code, err = run_cli(capsys, *inputs, "--out", str(tmp_path / "out"), *args)
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert err.endswith("(senna tag-corpus -h for help)\n") and not (tmp_path / "out").exists()


@pytest.mark.parametrize("suffix", [".gz", ".xz", ".bz2"])
def test_compressed_inputs_are_partitioned_by_decompressed_size(tmp_path, suffix):
    """As the same text uncompressed: the same partitions, every line read once, so a
    worker holds one partition of it, not the whole file."""
    import bz2
    import gzip
    import lzma

    opener = {".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}[suffix]
    text = corpus_text(300) + "x" * 5000 + "\nlast line"
    plain = tmp_path / "c.txt"
    plain.write_text(text, encoding="utf-8")
    packed = tmp_path / f"c.txt{suffix}"
    with opener(packed, "wb") as f:
        f.write(text.encode("utf-8"))
    want = [(i + 1, line) for i, line in enumerate(text.split("\n"))]
    for size in (1, 100, 4096, 1 << 20):
        ours = plan(make_job([str(packed)], ["pos"], partition_bytes=size))
        theirs = plan(make_job([str(plain)], ["pos"], partition_bytes=size))
        assert [(p.start, p.first_line) for p in ours] == \
            [(p.start, p.first_line) for p in theirs]
        assert [item for p in ours for item in read_lines(p)] == want
    assert len(plan(make_job([str(packed)], ["pos"], partition_bytes=1000))) > 5


def test_an_input_named_twice_is_tagged_once(tmp_path, inputs):
    link = tmp_path / "link.txt"
    link.symlink_to(inputs[0])
    hard = tmp_path / "hard.txt"
    os.link(inputs[0], hard)
    warned: list[str] = []
    again = str(Path(inputs[0]).parent / "." / Path(inputs[0]).name)
    job = make_job([inputs[0], inputs[1], inputs[0], again, str(link), str(hard)], TASKS,
                   warn=warned.append)
    assert [path for path, _, _ in job.inputs] == inputs
    assert len(warned) == 4 and all(
        w.endswith(f"named again (the same file as {inputs[0]}): tagged once") for w in warned)


def test_a_data_error_is_one_line_without_dasks_failure_block(tmp_path):
    pytest.importorskip("distributed")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "A b."}\n[1, 2]\n', encoding="utf-8")
    run = subprocess.run(cli(str(bad), "--out", str(tmp_path / "out"), "--tasks", "pos",
                             "--workers", "1", "--quiet"),
                         capture_output=True, text=True, env=ENV, timeout=300)
    assert run.returncode == 1
    assert run.stderr.splitlines() == [f"senna: error: {bad}:2: no string field 'text'"]
