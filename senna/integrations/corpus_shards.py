"""A corpus job's output directory (`senna.integrations.corpus`): its `job.json` and lock,
the shards written atomically, and the `.done` records that let a rerun skip what was
written whole."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

from senna.integrations.corpus import Job, Part, Summary
from senna.io.output import OutputOptions, format_document


class OutputInUse(ValueError):
    """The output directory belongs to another job (other job.json, or one running now)."""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def verified(out: Path, part: Part, job: Job) -> Summary | None:
    """The partition's summary if its `.done` record and every shard it lists check out."""
    try:
        record = json.loads((out / f"{part.name}.done").read_text(encoding="utf-8"))
        if record["part"] != asdict(part) or set(record["files"]) != {
                f"{part.name}.{fmt}" for fmt in job.formats}:
            return None
        for name, (size, digest) in record["files"].items():
            path = out / name
            if path.stat().st_size != size or _sha256(path) != digest:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return Summary(1, 1, record["docs"], record["sentences"], record["tokens"],
                   files=sorted(record["files"]))


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary name in the same directory, fsync, rename.  The temporary file
    is created with os.open and mode 0666, so that the user's umask decides the shard's
    permissions as it would for any file (tempfile.mkstemp always makes them 0600)."""
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def format_shard(doc_id: str, doc, fmt: str, opts: OutputOptions) -> str:
    """One document in a shard format, carrying its id."""
    if fmt == "jsonl":
        line = format_document(doc, "json", opts)
        return "{" + f'"id": {json.dumps(doc_id, ensure_ascii=False)}, ' + line[1:]
    head = f"# newdoc id = {doc_id}\n" if fmt == "conllu" else f"# id = {doc_id}\n"
    return head + format_document(doc, fmt, opts)


def prepare_output(out: Path, job: Job) -> None:
    """Create `out` with this job's `job.json`, or check that it holds the same job (and
    drop temporary files a killed job left)."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob(".part-*.tmp"):   # left by a killed writer
        stale.unlink(missing_ok=True)
    manifest = out / "job.json"
    if manifest.exists():
        try:
            old = json.loads(manifest.read_text(encoding="utf-8"))
        except ValueError:
            old = None
        if old != job.to_json():
            raise OutputInUse(f"{out} holds another job's output (its job.json differs: "
                             "other inputs, input files changed, or other options); "
                             "use a new --out directory")
        return
    write_atomic(manifest, (json.dumps(job.to_json(), indent=1) + "\n").encode("utf-8"))


@contextmanager
def exclusive(out: Path) -> Iterator[None]:
    """Hold `out`'s lock file for one job: a second job started on the same directory
    would delete the first one's temporary files (as a killed job's) and redo its
    partitions.  OutputInUse while another job holds it.  Without fcntl (Windows) there
    is no lock, and the job.json check alone applies."""
    try:
        import fcntl
    except ImportError:   # pragma: no cover - Windows
        yield
        return
    with open(out / ".lock", "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputInUse(f"{out}: another tag-corpus job is running there; wait for it "
                              "to end or use a new --out directory") from None
        yield


@contextmanager
def output_dir(out: str | Path, job: Job) -> Iterator[Path]:
    """`out`, resolved, created, holding `job` (prepare_output) and locked for it while
    the context lasts; OutputInUse if another job's output or another job is there."""
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with exclusive(out):
        prepare_output(out, job)
        yield out
