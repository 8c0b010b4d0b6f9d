"""Corpus-scale tagging on Dask: many input files -> numbered output shards.

Planning (in the client): each input is cut into partitions of about `partition_bytes`
bytes at line starts (a compressed file, which cannot be cut without reading it, is one
partition), numbered in input order.  Each partition becomes one Dask task, which reads its
lines, tags them through `Tagger.pipe` with the tagger its worker loaded once (a worker
plugin), and writes `part-NNNNN.<fmt>` shards plus a `part-NNNNN.done` record holding each
shard's size and SHA-256.

Why this survives a killed job: shards are written to temporary names and renamed, and the
`.done` record is written last, also by rename; a rerun with the same job (`job.json`)
skips exactly the partitions whose records and shards verify and redoes the others, so no
document is lost or written twice.  Document ids are `PATH:LINE` (or the JSON lines' id
field), and shards in name order hold the documents in input order.

Input: plain text (one document per non-blank line, as the `senna` command reads it) or
JSON lines with a text field; `.gz`, `.bz2` and `.xz` files are read compressed.
Output formats: `jsonl` (the `--format json` document with an `id` first), `conll` and
`conllu` (CoNLL columns; each document starts with a `# id = ...` / `# newdoc id = ...`
comment line).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import lzma
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from senna.io.output import OutputOptions, format_document

try:   # the `dask` extra; planning, reading and writing shards work without it
    from distributed import WorkerPlugin
except ImportError:   # pragma: no cover
    WorkerPlugin = object   # type: ignore[assignment,misc]

COMPRESSED: dict[str, Callable[..., io.IOBase]] = {
    ".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
FORMATS = ("jsonl", "conll", "conllu")
INPUT_FORMATS = ("auto", "text", "jsonl")
PLUGIN = "senna-tagger"


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


def make_job(inputs: Sequence[str], tasks: Sequence[str], **options) -> Job:
    """A job over existing input files; ValueError for a missing or unreadable one."""
    from senna.runtime.pipeline import normalize_tasks

    if not inputs:
        raise ValueError("no input files")
    found = []
    for path in inputs:
        if not os.path.isfile(path):
            raise ValueError(f"{path}: no such file")
        st = os.stat(path)
        found.append((str(path), st.st_size, st.st_mtime_ns))
    job = Job(tuple(found), normalize_tasks(tasks), **options)
    bad = [f for f in job.formats if f not in FORMATS]
    if bad or not job.formats:
        raise ValueError(f"output formats must be some of {', '.join(FORMATS)}, got {bad}")
    if job.input_format not in INPUT_FORMATS:
        raise ValueError(f"input format must be one of {INPUT_FORMATS}")
    if job.partition_bytes < 1 or job.batch_size < 1:
        raise ValueError("partition size and batch size must be at least 1")
    return job


def plan(job: Job) -> list[Part]:
    """Partitions of every input, numbered in input order."""
    parts: list[Part] = []
    for path, size, _ in job.inputs:
        if Path(path).suffix in COMPRESSED:
            parts.append(Part(len(parts), path, 0, None, 1))
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


def read_lines(part: Part) -> Iterator[tuple[int, str]]:
    """(line number, line) of a partition; invalid UTF-8 is replaced."""
    opener = COMPRESSED.get(Path(part.path).suffix)
    if opener is not None:
        with opener(part.path, "rt", encoding="utf-8", errors="replace", newline="\n") as f:
            for n, line in enumerate(f, part.first_line):
                yield n, line.rstrip("\r\n")
        return
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


def _write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary name in the same directory, fsync, rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
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


def tag_partition(part: Part, out: str, job: Job, tagger=None) -> Summary:
    """Tag one partition into its shards (the Dask task); skips a verified partition.
    The tagger is the one this worker's plugin loaded unless one is given."""
    out_dir = Path(out)
    done = verified(out_dir, part, job)
    if done is not None:
        return done
    if tagger is None:
        from distributed import get_worker

        tagger = get_worker().plugins[PLUGIN].tagger
    started = time.perf_counter()
    opts = OutputOptions(job.tasks)
    docs = list(documents(part, job))
    shards: dict[str, list[str]] = {fmt: [] for fmt in job.formats}
    summary = Summary(parts=1, docs=len(docs))
    tagged = tagger.pipe([text for _, text in docs], batch_size=job.batch_size)
    for (doc_id, _), doc in zip(docs, tagged, strict=True):
        summary.sentences += len(doc.sentences)
        summary.tokens += sum(len(s.tokens) for s in doc.sentences)
        for fmt, chunks in shards.items():
            chunks.append(format_shard(doc_id, doc, fmt, opts))
    files = {}
    for fmt, chunks in shards.items():
        name = f"{part.name}.{fmt}"
        data = "".join(chunks).encode("utf-8")
        _write_atomic(out_dir / name, data)
        files[name] = [len(data), hashlib.sha256(data).hexdigest()]
    record = {"part": asdict(part), "files": files, "docs": summary.docs,
              "sentences": summary.sentences, "tokens": summary.tokens}
    _write_atomic(out_dir / f"{part.name}.done", json.dumps(record).encode("utf-8"))
    summary.files = sorted(files)
    summary.tagged_tokens = summary.tokens
    summary.seconds = time.perf_counter() - started
    return summary


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
            raise ValueError(f"{out} holds another job's output (its job.json differs: "
                             "other inputs, input files changed, or other options); "
                             "use a new --out directory")
        return
    _write_atomic(manifest, (json.dumps(job.to_json(), indent=1) + "\n").encode("utf-8"))


class LoadTagger(WorkerPlugin):
    """Dask worker plugin: each worker loads the tagger once, when it starts or joins."""

    name = PLUGIN

    def __init__(self, model_dir: str | None, tasks: Sequence[str]):
        self.model_dir, self.tasks = model_dir, tuple(tasks)
        self.tagger = None

    def setup(self, worker) -> None:
        import gc

        import senna

        self.tagger = senna.load(self.model_dir, self.tasks)
        gc.freeze()   # as the CLI does: full collections need not scan the models again

    def teardown(self, worker) -> None:
        self.tagger = None


def run_job(job: Job, out: str | Path, client, progress: bool = True) -> Summary:
    """Run `job` on a Dask `client`: skip verified partitions, tag the rest, sum up."""
    out = Path(out).resolve()
    prepare_output(out, job)
    parts = plan(job)
    total = Summary()
    todo = []
    for part in parts:
        done = verified(out, part, job)
        if done is None:
            todo.append(part)
        else:
            total.add(done)
    started = time.perf_counter()
    if todo:
        client.register_plugin(LoadTagger(job.model_dir, job.tasks), name=PLUGIN)
        futures = client.map(tag_partition, todo, out=str(out), job=job, pure=False)
        if progress:
            from distributed import progress as show_progress

            show_progress(futures)
        for result in client.gather(futures):
            total.add(result)
    total.seconds = time.perf_counter() - started
    total.files.sort()
    return total


def local_client(workers: int | None = None):
    """A local Dask cluster of `workers` single-threaded processes (default: one per core)."""
    import logging

    import dask
    from distributed import Client, LocalCluster

    n = workers or os.cpu_count() or 1
    # Dask's sampling profiler takes the GIL every 10 ms, and nothing reads it without a
    # dashboard.  Dask also starts workers with MALLOC_TRIM_THRESHOLD_=65536, so glibc hands
    # freed memory back at once; the tagger allocates and frees large arrays all the time,
    # and on a 20k-token job this cost its worker 25-50% more CPU than one process.
    settings = {"distributed.worker.profile.enabled": False,
                "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
    with dask.config.set(settings):
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
    return Client(cluster)
