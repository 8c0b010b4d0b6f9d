"""The tagging thread behind `senna serve`: one thread tags every request, since the loaded
models keep per-word caches that two threads must not fill at once.

Small requests (up to `Limits.small_tokens` tokens) that ask for the same tasks are tagged
together, up to `Limits.batch_tokens`, and go before large ones; a large request is tagged
alone and, between two stages of the cascade (`GuardedPipeline.checkpoint`), lets the small
requests that arrived meanwhile go first, so one large request delays them by one stage at
most.  At every stage the batch stops (`Expired`) once all its requests are past their
deadline: a timed-out request's work ends with it.  A request whose sentences could hold
more SRL role tags than `Limits.max_roles` first gets its predicates from the verb
detector alone (or POS), and is refused with a 413 before SRL if they are too many.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from senna.api import Tagger
from senna.document import Document
from senna.runtime.pipeline import Columns, Pipeline
from senna.serve.limits import BadRequest, Limits
from senna.tasks import PREDICATE_RULES, TASKS


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
              predicates: list[list[int]]) -> list[dict[int, Sequence[str]]]:
        self.checkpoint()
        return super().roles(task, words, columns, predicates)


@dataclass(eq=False)
class Job:
    """One request's untagged documents on their way through the tagging thread; the
    tagged documents (or the error) arrive in `future`, on its event loop."""

    tasks: tuple[str, ...]
    docs: list[Document]
    deadline: float
    future: asyncio.Future
    lengths: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.lengths = [len(s.words) for d in self.docs for s in d.sentences]

    @property
    def size(self) -> int:
        return sum(self.lengths)

    @property
    def per_predicate(self) -> bool:
        return any(TASKS[t].per_predicate for t in self.tasks)

    def roles_bound(self) -> int:
        """The most role tags its sentences can hold (every word a predicate)."""
        return sum(n * n for n in self.lengths) if self.per_predicate else 0

    def expired(self) -> bool:
        return time.monotonic() > self.deadline

    def settle(self, result: list[Document] | None = None,
               error: BaseException | None = None) -> None:
        """Hand over the result from the tagging thread (ignored if the request is gone)."""
        def set_it() -> None:
            if not self.future.done():
                if error is not None:
                    self.future.set_exception(error)
                else:
                    self.future.set_result(result)
        self.future.get_loop().call_soon_threadsafe(set_it)


class Tagging:
    """The tagging thread, its two queues (small and large requests) and the taggers for
    each task set asked for, all sharing the loaded models."""

    def __init__(self, base: Tagger, limits: Limits):
        self.base = base
        self.limits = limits
        self.taggers: dict[tuple[str, ...], Tagger] = {}
        self.cond = threading.Condition()
        self.small: deque[Job] = deque()
        self.large: deque[Job] = deque()
        self.running: list[tuple[list[Job], bool]] = []   # batches being tagged, is large
        self.closed = False
        self.stats = {"requests": 0, "batches": 0, "stopped": 0}   # shown by /health
        self.thread = threading.Thread(target=self._loop, name="senna-tag", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify()

    def tagger(self, tasks: tuple[str, ...]) -> Tagger:
        """A tagger for a subset of the served tasks (or their dependencies), sharing the
        loaded models and settings, whose cascade checks in with this thread."""
        if tasks not in self.taggers:
            base = self.base.pipeline
            pipe = GuardedPipeline(base.root, tasks, models=base.models,
                                   max_tokens=base.max_tokens,
                                   predicates=base.predicate_choice, documents=base.documents)
            pipe.models = {t: pipe.models[t] for t in pipe.order}   # only those it runs
            pipe.checkpoint = self.checkpoint
            self.taggers[tasks] = Tagger(pipe, self.base.tagset)
        return self.taggers[tasks]

    def submit(self, job: Job) -> None:
        small = job.size <= self.limits.small_tokens and job.roles_bound() <= self.limits.max_roles
        with self.cond:
            (self.small if small else self.large).append(job)
            self.cond.notify()

    def _loop(self) -> None:
        while True:
            with self.cond:
                while not (self.small or self.large or self.closed):
                    self.cond.wait()
                if self.closed:
                    return
                large = not self.small
                batch = [self.large.popleft()] if large else self._take(self.small)
            self._run(batch, large)

    def _take(self, queue: deque[Job]) -> list[Job]:
        """The first small request and every other one with the same tasks, up to
        `batch_tokens` (called holding the lock)."""
        first = queue.popleft()
        batch, size, keep = [first], first.size, deque()
        while queue:
            job = queue.popleft()
            if job.tasks == first.tasks and size + job.size <= self.limits.batch_tokens:
                batch.append(job)
                size += job.size
            else:
                keep.append(job)
        queue.extend(keep)
        return batch

    def checkpoint(self) -> None:
        """Between two stages: stop a batch whose requests have all timed out; in a large
        request, tag the small ones waiting first."""
        batch, large = self.running[-1]
        if all(job.expired() for job in batch):
            raise Expired
        while large:
            with self.cond:
                if not self.small:
                    return
                nested = self._take(self.small)
            self._run(nested, large=False)

    def _run(self, batch: list[Job], large: bool) -> None:
        """Tag a batch and settle its requests (each with the error, if it fails)."""
        live = [job for job in batch if not job.expired()]
        self.stats["stopped"] += len(batch) - len(live)
        if not live:
            return
        self.running.append((live, large))
        try:
            tagger = self.tagger(live[0].tasks)
            preds = self._predicates(live[0]) if large and (
                live[0].roles_bound() > self.limits.max_roles) else None
            docs = tagger.tag_documents([d for job in live for d in job.docs], preds)
        except Exception as e:   # noqa: BLE001 - handed to each waiting request
            self.stats["stopped"] += len(live) if isinstance(e, Expired) else 0
            for job in live:
                job.settle(error=e)
            return
        finally:
            self.running.pop()
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
