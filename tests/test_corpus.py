"""`senna tag-corpus`: partition planning, shard verification, a job on a local Dask
cluster, and a job killed mid-way and resumed.  Cluster tests skip without Dask."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

import senna
from senna.integrations.corpus import (
    documents,
    format_shard,
    make_job,
    plan,
    read_lines,
    tag_partition,
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
    job = make_job(inputs, TASKS, partition_bytes=200, formats=("jsonl", "conll", "conllu"))
    assert shard_files(out) == expected_shards(job, tagger)
    ids = [json.loads(line)["id"] for name, text in shard_files(out).items()
           if name.endswith(".jsonl") for line in text.splitlines()]
    assert ids[0] == f"{inputs[0]}:1" and ids[-1] == "doc6" and len(ids) == len(set(ids))
    again = subprocess.run(cli(*args), capture_output=True, text=True, env=ENV, timeout=300)
    n = len(plan(job))
    assert f"{n} partitions ({n} already done)" in again.stderr


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
