"""Corpus-scale tagging on Dask: many input files -> numbered output shards.

Planning (in the client): each input is cut into partitions of about `partition_bytes`
bytes at line starts (a compressed file by its decompressed size: planning reads it
through once, and each partition's worker decompresses it up to its partition, which costs
time, not memory), numbered in input order; a file named twice is tagged once.  Each
partition becomes one Dask task, which reads its lines, tags them through `Tagger.pipe`
with the tagger its worker loaded once (a worker plugin), and writes `part-NNNNN.<fmt>`
shards plus a `part-NNNNN.done` record holding each shard's size and SHA-256.

Why this survives a killed job: shards are written to temporary names and renamed, and the
`.done` record is written last, also by rename; a rerun with the same job (`job.json`)
skips exactly the partitions whose records and shards verify and redoes the others, so no
document is lost or written twice.  Document ids are `PATH:LINE` (or the JSON lines' id
field), and shards in name order hold the documents in input order.

Input: plain text (one document per non-blank line, as the `senna` command reads it) or
JSON lines with a text field; `.gz`, `.bz2` and `.xz` files are read compressed.  A binary
file (a NUL byte, or over 10% invalid UTF-8, in its first 8 KiB) is skipped with a warning:
tagged, it would only fill shards with garbage.
Output formats: `jsonl` (the `--format json` document with an `id` first), `conll` and
`conllu` (CoNLL columns; each document starts with a `# id = ...` / `# newdoc id = ...`
comment line).

This module holds the job, its inputs and partitions and their reading;
`senna.integrations.corpus_shards` the output directory, its shards and their verification;
`senna.integrations.corpus_dask` the tagging on Dask workers.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import json
import lzma
import os
import stat
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

COMPRESSED: dict[str, Callable[..., io.IOBase]] = {
    ".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
FORMATS = ("jsonl", "conll", "conllu")
INPUT_FORMATS = ("auto", "text", "jsonl")
SNIFF_BYTES = 8192       # how much of each input decides whether it is text
MAX_INVALID = 0.1        # share of undecodable characters above which an input is binary


class BadOption(ValueError):
    """A job option that cannot be (an unknown task or format, a size below 1)."""


@dataclass(frozen=True)
class Job:
    """Everything that decides what the shards contain; saved as `job.json` in the output
    directory so that a rerun resumes only the same job."""

    inputs: tuple[tuple[str, int, int], ...]     # (path, size, mtime_ns)
    tasks: tuple[str, ...]
    formats: tuple[str, ...] = ("jsonl", "conll")
    input_format: str = "auto"
    text_field: str = "text"
    id_field: str = "id"
    partition_bytes: int = 1 << 20
    model_dir: str | None = None
    batch_size: int = 256

    def to_json(self) -> dict:
        return json.loads(json.dumps(asdict(self)))


@dataclass(frozen=True)
class Part:
    """Lines of one input whose first byte lies in [start, end) (end None: to EOF)."""

    index: int
    path: str
    start: int
    end: int | None
    first_line: int      # 1-based number of the partition's first line

    @property
    def name(self) -> str:
        return f"part-{self.index:05d}"


@dataclass
class Summary:
    """What one partition held (or what a job did, summed)."""

    parts: int = 0
    skipped: int = 0
    docs: int = 0
    sentences: int = 0
    tokens: int = 0
    tagged_tokens: int = 0     # tokens tagged by this run (not skipped)
    seconds: float = 0.0
    files: list[str] = field(default_factory=list)

    def add(self, other: Summary) -> None:
        for key in ("parts", "skipped", "docs", "sentences", "tokens", "tagged_tokens"):
            setattr(self, key, getattr(self, key) + getattr(other, key))
        self.files += other.files


def input_format(path: str, choice: str) -> str:
    """`auto`: .jsonl/.ndjson (also compressed) are JSON lines, anything else text."""
    if choice != "auto":
        return choice
    stem = path[: -len(Path(path).suffix)] if Path(path).suffix in COMPRESSED else path
    return "jsonl" if stem.endswith((".jsonl", ".ndjson")) else "text"


def regular_file(path: str) -> os.stat_result:
    """The file's status; ValueError naming what it is if it is not a regular file (a
    directory, FIFO or device cannot be cut into partitions by size)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{path}: is a directory, not a file (name the files in it)")
    if not stat.S_ISREG(st.st_mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode) else
                "a socket" if stat.S_ISSOCK(st.st_mode) else "a device")
        raise ValueError(f"{path}: is {kind}, not a regular file (tag-corpus cuts its "
                         "inputs by size; save the stream to a file first)")
    return st


def binary_reason(block: bytes) -> str | None:
    """Why text starting with `block` is binary, or None.  A NUL byte never occurs in
    text; invalid UTF-8 does (a Latin-1 accent here and there, replaced as the tagger
    replaces it everywhere), so only a file made largely of it counts as binary."""
    if b"\0" in block:
        return "a NUL byte"
    # an incremental decoder, not final: a character cut at the block's end is no error
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(block)
    if text and text.count("\ufffd") > MAX_INVALID * len(text):
        return f"over {MAX_INVALID:.0%} invalid UTF-8"
    return None


def sniff(path: str) -> str | None:
    """Why the input at `path` is binary (judged on its first SNIFF_BYTES, uncompressed),
    or None; ValueError for a file that cannot be read or decompressed."""
    opener = COMPRESSED.get(Path(path).suffix, open)
    try:
        with opener(path, "rb") as f:
            block = f.read(SNIFF_BYTES)
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise ValueError(f"{path}: {getattr(e, 'strerror', None) or e}") from None
    return binary_reason(block)


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=3)


def job_options(tasks: Sequence[str], **options) -> Job:
    """A job without inputs, its options checked: BadOption for one that cannot be."""
    from senna.runtime.pipeline import normalize_tasks

    try:
        job = Job((), normalize_tasks(tasks), **options)
    except ValueError as e:   # an unknown task
        raise BadOption(str(e)) from None
    bad = [f for f in job.formats if f not in FORMATS]
    if bad or not job.formats:
        raise BadOption(f"output formats must be some of {', '.join(FORMATS)}, got {bad}")
    if job.input_format not in INPUT_FORMATS:
        raise BadOption(f"input format must be one of {INPUT_FORMATS}")
    if job.partition_bytes < 1 or job.batch_size < 1:
        raise BadOption("partition size and batch size must be at least 1")
    return job


def make_job(inputs: Sequence[str], tasks: Sequence[str],
             warn: Callable[[str], None] = _warn, **options) -> Job:
    """A job over existing input files: BadOption for an option that cannot be (checked
    first), ValueError for a missing or unreadable input.  Binary inputs are left out,
    each with a `warn` call naming it, and so is a file named again (by the same path, a
    link or another spelling of it): its documents would be tagged twice."""
    job = job_options(tasks, **options)
    if not inputs:
        raise ValueError("no input files")
    found: list[tuple[str, int, int]] = []
    seen: dict[tuple[int, int], str] = {}
    for path in inputs:
        st = regular_file(path)
        real = (st.st_dev, st.st_ino)   # one file, whatever path, link or hard link names it
        if real in seen:
            warn(f"{path}: named again (the same file as {seen[real]}): tagged once")
            continue
        seen[real] = str(path)
        reason = sniff(path)
        if reason is not None:
            warn(f"{path}: skipped, a binary file ({reason} in its first "
                 f"{SNIFF_BYTES // 1024} KiB)")
            continue
        found.append((str(path), st.st_size, st.st_mtime_ns))
    if not found:
        raise ValueError("no text input files (every input was skipped)")
    return replace(job, inputs=tuple(found))


def plan(job: Job) -> list[Part]:
    """Partitions of every input, numbered in input order."""
    parts: list[Part] = []
    for path, size, _ in job.inputs:
        if Path(path).suffix in COMPRESSED:
            parts += compressed_parts(path, job.partition_bytes, len(parts))
            continue
        with open(path, "rb") as f:
            starts = [0]
            while starts[-1] + job.partition_bytes < size:
                f.seek(starts[-1] + job.partition_bytes - 1)
                f.readline()              # to the end of the line holding the boundary
                if f.tell() >= size:
                    break
                starts.append(f.tell())
            f.seek(0)
            line = 1
            for i, start in enumerate(starts):
                end = starts[i + 1] if i + 1 < len(starts) else size
                parts.append(Part(len(parts), path, start, end, line))
                line += f.read(end - start).count(b"\n")
    return parts


def compressed_parts(path: str, size: int, first: int) -> list[Part]:
    """Partitions of a compressed file by its decompressed size: offsets and line numbers
    in the decompressed text, found by reading it through once in pieces (memory bounded
    whatever the file's size).  A worker decompresses its partition's file up to the
    partition's start, so each costs decompression time, not memory, for what lies
    before it."""
    parts: list[Part] = []
    try:
        with COMPRESSED[Path(path).suffix](path, "rb") as f:
            start = offset = 0
            line = first_line = 1
            while chunk := f.read(1 << 20):
                cut = start + size - offset   # the boundary inside this chunk, if any
                while cut <= len(chunk):   # (cut <= 0: the boundary's line began before)
                    newline = chunk.find(b"\n", max(cut - 1, 0))
                    if newline < 0:
                        break
                    end = offset + newline + 1
                    line_at = line + chunk.count(b"\n", 0, newline + 1)
                    parts.append(Part(first + len(parts), path, start, end, first_line))
                    start, first_line = end, line_at
                    cut = start + size - offset
                line += chunk.count(b"\n")
                offset += len(chunk)
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise ValueError(f"{path}: {getattr(e, 'strerror', None) or e}") from None
    if start < offset or not parts:
        parts.append(Part(first + len(parts), path, start, None, first_line))
    return parts


def _decompressed(part: Part) -> bytes:
    """A compressed file's partition, decompressed: what lies before it is read and
    dropped in pieces."""
    with COMPRESSED[Path(part.path).suffix](part.path, "rb") as f:
        left = part.start
        while left > 0:
            skipped = len(f.read(min(left, 1 << 20)))
            if not skipped:
                break
            left -= skipped
        return f.read(part.end - part.start) if part.end is not None else f.read()


def read_lines(part: Part) -> Iterator[tuple[int, str]]:
    """(line number, line) of a partition; invalid UTF-8 is replaced."""
    if Path(part.path).suffix in COMPRESSED:
        data = _decompressed(part)
    else:
        with open(part.path, "rb") as f:
            f.seek(part.start)
            data = f.read(part.end - part.start) if part.end is not None else f.read()
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, part.first_line):
        yield n, line.rstrip("\r")


def documents(part: Part, job: Job) -> Iterator[tuple[str, str]]:
    """(id, text) of each document of a partition: non-blank lines, or JSON lines objects."""
    fmt = input_format(part.path, job.input_format)
    for n, line in read_lines(part):
        if not line.strip():
            continue
        if fmt == "text":
            yield f"{part.path}:{n}", line
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{part.path}:{n}: not a JSON object ({e.msg})") from None
        text = obj.get(job.text_field) if isinstance(obj, dict) else None
        if not isinstance(text, str):
            raise ValueError(f"{part.path}:{n}: no string field {job.text_field!r}")
        doc_id = obj.get(job.id_field)
        yield (f"{part.path}:{n}" if doc_id is None else str(doc_id)), text
