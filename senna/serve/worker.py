"""The tagging threads behind `senna serve`: one for small requests, one for large ones,
each with its own loaded models (they keep per-word caches that two threads must not fill
at once), so that a large request never holds small ones behind it.  Large means many
tokens or a high cost: tokens weighted by what the requested tasks cost per token (SRL's
per-token cost grows with the sentence's length, as its predicates do), so that a short
request asking for the parser and SRL on a 500-word sentence is large.

Each lane keeps one queue per client address and takes their requests in turn (round
robin), so that a client's requests wait behind its own, not behind everyone's.  Requests
that ask for the same tasks are tagged together.  Between two stages of the cascade
(`GuardedPipeline.checkpoint`) a batch stops (`Expired`) once all its requests are past
their deadline or abandoned by their clients: such a request's work ends with it.  A request
whose sentences could hold more SRL role tags than `Limits.max_roles` first gets its
predicates from the verb detector alone (or POS), and is refused with a 413 before SRL if
they are too many.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from senna.api import Tagger
from senna.document import Document
from senna.runtime.pipeline import Columns, Pipeline
from senna.serve.limits import BadRequest, Limits
from senna.tasks import PREDICATE_RULES, TASKS

# What a token costs per task, relative to POS (measured with bench/serve_load.py's
# sentences on one core: POS 25 us a token, the parser about 8 times that); SRL's adds
# one part per predicate, about one word in eight.
TASK_COST = {"pos": 1.0, "chunk": 2.0, "ner": 1.0, "pt0": 2.0, "vbs": 1.0, "srl": 4.0,
             "psg": 8.0}
SRL_PER_WORD = 1 / 8   # predicates per word, for the cost of SRL's per-predicate part


class Expired(Exception):
    """Every request of the batch is past its deadline: stop tagging it."""


class GuardedPipeline(Pipeline):
    """A pipeline that calls `checkpoint` before each stage of its cascade (each window
    task's pass, SRL), where the tagging thread stops expired work or lets small requests
    go first; its results are the plain pipeline's."""

    checkpoint: Callable[[], None] = staticmethod(lambda: None)

    def _window_tags(self, task: str, words: list[list[str]],
                     columns: list[Columns]) -> list[list[str]]:
        self.checkpoint()
        return super()._window_tags(task, words, columns)

    def roles(self, task: str, words: list[list[str]], columns: list[Columns],
              predicates: list[list[int]], cut: Sequence[bool] | None = None
              ) -> list[dict[int, Sequence[str]]]:
        self.checkpoint()
        return super().roles(task, words, columns, predicates, cut)


@dataclass(eq=False)
class Job:
    """One request's untagged documents on their way through the tagging thread; the
    tagged documents (or the error) arrive in `future`, on its event loop."""

    tasks: tuple[str, ...]
    docs: list[Document]
    deadline: float
    future: asyncio.Future
    client: str = ""   # the client's address: its requests are taken in turn with others'
    abandoned: bool = False   # set on the event loop when the client has gone
    lengths: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.lengths = [len(s.words) for d in self.docs for s in d.sentences]

    @property
    def size(self) -> int:
        return sum(self.lengths)

    @property
    def cost(self) -> float:
        """About what tagging costs, in POS-token units (`TASK_COST`)."""
        per_token = sum(TASK_COST.get(t, 1.0) for t in self.tasks)
        srl = SRL_PER_WORD * TASK_COST["srl"] if self.per_predicate else 0.0
        return sum(n * (per_token + srl * n) for n in self.lengths)

    @property
    def per_predicate(self) -> bool:
        return any(TASKS[t].per_predicate for t in self.tasks)

    def roles_bound(self) -> int:
        """The most role tags its sentences can hold (every word a predicate)."""
        return sum(n * n for n in self.lengths) if self.per_predicate else 0

    def expired(self) -> bool:
        """Past its deadline, or its client has gone: its work may stop."""
        return self.abandoned or time.monotonic() > self.deadline

    def settle(self, result: list[Document] | None = None,
               error: BaseException | None = None) -> None:
        """Hand over the result from the tagging thread (ignored if the request is gone)."""
        def set_it() -> None:
            if not self.future.done():
                if error is not None:
                    self.future.set_exception(error)
                else:
                    self.future.set_result(result)
        try:
            self.future.get_loop().call_soon_threadsafe(set_it)
        except RuntimeError:   # the event loop has closed: the server is stopping
            pass


class Lane:
    """A tagging thread with its own loaded models (loaded by `load` when first needed)
    and its queues, one per client, taken in turn; requests that ask for the same tasks
    are tagged together, up to `Limits.batch_tokens`, except one whose predicates must be
    counted first."""

    def __init__(self, name: str, load: Callable[[], Tagger], limits: Limits):
        self.load = load
        self.limits = limits
        self.loaded: Tagger | None = None
        self.taggers: dict[tuple[str, ...], Tagger] = {}
        self.cond = threading.Condition()
        self.queues: OrderedDict[str, deque[Job]] = OrderedDict()   # next client first
        self.running: list[Job] = []
        self.closed = False
        self.stats = {"requests": 0, "batches": 0, "stopped": 0}
        self.thread = threading.Thread(target=self._loop, name=f"senna-tag-{name}", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify()

    def tagger(self, tasks: tuple[str, ...]) -> Tagger:
        """A tagger for a subset of the lane's tasks (or their dependencies), sharing its
        models and settings, whose cascade checks in with this lane."""
        if tasks not in self.taggers:
            if self.loaded is None:
                self.loaded = self.load()
                self.loaded.pipeline.preload()
            base = self.loaded.pipeline
            pipe = GuardedPipeline(base.root, tasks, models=base.models,
                                   task_dirs=base.task_dirs, max_tokens=base.max_tokens,
                                   predicates=base.predicate_choice, documents=base.documents)
            pipe.models = {t: pipe.models[t] for t in pipe.order}   # only those it runs
            pipe.checkpoint = self.checkpoint
            self.taggers[tasks] = Tagger(pipe, self.loaded.tagset, self.loaded.threads)
        return self.taggers[tasks]

    @property
    def queued(self) -> int:
        """Requests waiting for their turn in this lane."""
        with self.cond:
            return sum(map(len, self.queues.values()))

    def submit(self, job: Job) -> None:
        with self.cond:
            self.queues.setdefault(job.client, deque()).append(job)
            self.cond.notify()

    def _loop(self) -> None:
        while True:
            with self.cond:
                while not (self.queues or self.closed):
                    self.cond.wait()
                if self.closed:
                    return
                batch = self._take()
            self._run(batch)

    def counted(self, job: Job) -> bool:
        """Whether the job's predicates must be counted before SRL."""
        return job.roles_bound() > self.limits.max_roles

    def _take(self) -> list[Job]:
        """The first request of the client whose turn it is (its next one waits for every
        other client's turn), with every queued request asking for the same tasks, up to
        `batch_tokens` (called holding the lock)."""
        client, mine = next(iter(self.queues.items()))
        first = mine.popleft()
        self.queues.move_to_end(client)
        batch, size = [first], first.size
        for queue in self.queues.values() if not self.counted(first) else ():
            for job in list(queue):
                if (job.tasks == first.tasks and size + job.size <= self.limits.batch_tokens
                        and not self.counted(job)):
                    batch.append(job)
                    queue.remove(job)
                    size += job.size
        for name in [name for name, queue in self.queues.items() if not queue]:
            del self.queues[name]
        return batch

    def checkpoint(self) -> None:
        """Between two stages: stop the batch once all its requests have timed out."""
        if self.running and all(job.expired() for job in self.running):
            raise Expired

    def _run(self, batch: list[Job]) -> None:
        """Tag a batch and settle its requests (each with the error, if it fails)."""
        live = [job for job in batch if not job.expired()]
        self.stats["stopped"] += len(batch) - len(live)
        if not live:
            return
        self.running = live
        try:
            tagger = self.tagger(live[0].tasks)
            preds = self._predicates(live[0]) if self.counted(live[0]) else None
            docs = tagger.tag_documents([d for job in live for d in job.docs], preds)
        except Exception as e:   # noqa: BLE001 - handed to each waiting request
            self.stats["stopped"] += len(live) if isinstance(e, Expired) else 0
            for job in live:
                job.settle(error=e)
            return
        finally:
            self.running = []
        self.stats["requests"] += len(live)
        self.stats["batches"] += 1
        tagged = iter(docs)
        for job in live:
            job.settle([next(tagged) for _ in job.docs])

    def _predicates(self, job: Job) -> list[list[int]]:
        """The predicates SRL would take in the job's sentences, from their source's
        cascade alone (the verb detector, or POS); a 413 if they make too many role tags."""
        pipe = self.tagger(job.tasks).pipeline
        task = next(t for t in pipe.order if TASKS[t].per_predicate)
        source = pipe.predicate_source[task]
        sents = [s for d in job.docs for s in d.sentences]
        columns, _ = self.tagger((source,)).pipeline.annotate([s.words for s in sents])
        preds = [PREDICATE_RULES[source](c) for c in columns]
        roles = sum(len(p) * n for p, n in zip(preds, job.lengths, strict=True))
        if roles > self.limits.max_roles:
            raise BadRequest(413, f"{sum(map(len, preds))} predicates make {roles} SRL role "
                                  f"tags (predicates x words of their sentence); the limit "
                                  f"is {self.limits.max_roles} per request: send shorter "
                                  "sentences or fewer at a time, or leave out srl")
        return preds


class Tagging:
    """Two lanes: small requests (up to `Limits.small_tokens` tokens and `small_cost`) on
    the loaded models, larger ones on a copy of them loaded when the first arrives, so that
    a large request slows small ones (the two threads share the interpreter) but never
    holds them."""

    def __init__(self, base: Tagger, limits: Limits):
        self.limits = limits
        self.small = Lane("small", lambda: base, limits)
        pipe = base.pipeline
        self.large = Lane("large", lambda: Tagger(
            Pipeline(pipe.root, pipe.tasks, predicates=pipe.predicate_choice,
                     documents=pipe.documents, task_dirs=pipe.task_dirs), base.tagset,
            base.threads),
            limits)

    @property
    def stats(self) -> dict[str, int]:
        """Requests tagged, batches, requests stopped past their deadline, requests
        waiting for their turn (/health)."""
        return {**{k: self.small.stats[k] + self.large.stats[k] for k in self.small.stats},
                "queued": self.small.queued + self.large.queued}

    def submit(self, job: Job) -> None:
        small = (job.size <= self.limits.small_tokens and job.cost <= self.limits.small_cost
                 and not self.small.counted(job))
        (self.small if small else self.large).submit(job)

    def start(self) -> None:
        self.small.start()
        self.large.start()

    def stop(self) -> None:
        self.small.stop()
        self.large.stop()
