"""A corpus job on Dask: each partition one task, tagged by the tagger its worker loaded
once (a worker plugin) into its shards; the client that runs them, on a cluster named or a
local one."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from senna.integrations.corpus import Job, Part, Summary, documents, plan
from senna.integrations.corpus_shards import format_shard, output_dir, verified, write_atomic
from senna.io.output import OutputOptions

try:   # the `dask` extra; planning, reading and writing shards work without it
    from distributed import WorkerPlugin
except ImportError:   # pragma: no cover
    WorkerPlugin = object   # type: ignore[assignment,misc]

PLUGIN = "senna-tagger"


class ClusterError(ValueError):
    """The Dask cluster could not be started or reached."""


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
        write_atomic(out_dir / name, data)
        files[name] = [len(data), hashlib.sha256(data).hexdigest()]
    record = {"part": asdict(part), "files": files, "docs": summary.docs,
              "sentences": summary.sentences, "tokens": summary.tokens}
    write_atomic(out_dir / f"{part.name}.done", json.dumps(record).encode("utf-8"))
    summary.files = sorted(files)
    summary.tagged_tokens = summary.tokens
    summary.seconds = time.perf_counter() - started
    return summary


@dataclass(frozen=True)
class PartFailed:
    """What a partition's task returns instead of raising a data or file error (a bad
    JSON line, a full disk): raised, Dask would log its "Compute Failed" block with a
    traceback before the one line that says what is wrong."""

    message: str


def tag_task(part: Part, out: str, job: Job) -> Summary | PartFailed:
    """The Dask task of one partition: `tag_partition`, its expected errors returned."""
    try:
        return tag_partition(part, out, job)
    except (ValueError, OSError) as e:
        return PartFailed(str(e))


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
    """Run `job` on a Dask `client` into `out`: skip verified partitions, tag the rest."""
    with output_dir(out, job) as path:
        return tag_parts(job, path, client, progress)


def tag_parts(job: Job, out: Path, client, progress: bool = True) -> Summary:
    """Tag the partitions of `job` not yet verified in `out` (an output_dir) on `client`;
    the job's summary.

    Progress is counted in the client as results arrive (distributed.as_completed), not
    by distributed.progress: that one polls the scheduler from a task that is still asleep
    when the cluster shuts down, which then logs a CancelledError traceback."""
    total = Summary()
    todo = []
    for part in plan(job):
        done = verified(out, part, job)
        if done is None:
            todo.append(part)
        else:
            total.add(done)
    started = time.perf_counter()
    if todo:
        from distributed import as_completed
        from tqdm import tqdm

        client.register_plugin(LoadTagger(job.model_dir, job.tasks), name=PLUGIN)
        futures = client.map(tag_task, todo, out=str(out), job=job, pure=False)
        for future in tqdm(as_completed(futures), total=len(todo), unit=" partitions",
                           disable=not progress):
            result = future.result()
            if isinstance(result, PartFailed):
                client.cancel(futures)
                raise ValueError(result.message)
            total.add(result)
    total.seconds = time.perf_counter() - started
    total.files.sort()
    return total


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator:
    """A Dask client of the cluster at `scheduler`, or of a local cluster of `workers`
    processes that is shut down after the client (the cluster outliving its client, not
    the other way round).  ClusterError, one line, when the cluster cannot start or be
    reached."""
    from distributed import Client

    with ExitStack() as stack:
        try:
            cluster = local_cluster(workers) if scheduler is None else scheduler
            if scheduler is None:
                stack.enter_context(cluster)
            client = stack.enter_context(Client(cluster))
        except Exception as e:   # distributed raises RuntimeError, OSError, TimeoutError...
            what = f"reach the Dask scheduler at {scheduler}" if scheduler else \
                "start a local Dask cluster"
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise ClusterError(f"cannot {what}: {first}") from None
        yield client


def local_cluster(workers: int | None = None):
    """A local Dask cluster of `workers` single-threaded processes (default: one per core)."""
    import logging

    import dask
    from distributed import LocalCluster

    n = workers or os.cpu_count() or 1
    # Dask's sampling profiler takes the GIL every 10 ms, and nothing reads it without a
    # dashboard.  Dask also starts workers with MALLOC_TRIM_THRESHOLD_=65536, so glibc hands
    # freed memory back at once; the tagger allocates and frees large arrays all the time,
    # and on a 20k-token job this cost its worker 25-50% more CPU than one process.
    settings = {"distributed.worker.profile.enabled": False,
                "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
    with dask.config.set(settings):
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                            dashboard_address=None, silence_logs=logging.ERROR)
