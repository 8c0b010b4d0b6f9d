"""Work spread over worker processes, results in input order: `ordered_map`.

Why processes: the tagger is Python and NumPy on small matrices, so threads would queue on
the interpreter lock; N processes tag N batches at once.  Workers are started with
"spawn" (a fresh interpreter), never forked from a process whose BLAS threads may be
running, and each sets itself up once (`setup(*args)`: loads its models from their
folders) so that no model is pickled.  At most `2 * N` items are in flight, so an endless
input never sits in memory whole; a worker that dies ends the run with `WorkerError`
rather than a hang.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

IN_FLIGHT = 2   # items outstanding per worker: one being worked on, one waiting


class WorkerError(OSError):
    """A worker process stopped without giving its result (killed, out of memory)."""


STOPPED = "a worker process stopped before giving its result (was it killed, or out of memory?)"


def most_processes() -> int:
    """The largest process count accepted: four per core."""
    return 4 * (os.cpu_count() or 1)


def checked_processes(processes: object, name: str = "processes") -> int:
    """`processes` as a count of worker processes, 0 meaning one per core
    (`os.cpu_count()`); ValueError saying what is allowed for anything else."""
    most = most_processes()
    if isinstance(processes, bool) or not isinstance(processes, int) or \
            not 0 <= processes <= most:
        raise ValueError(f"{name} must be a whole number from 1 to {most} (four per core), "
                         f"or 0 for one per core ({os.cpu_count() or 1}), got {processes!r}")
    return processes or (os.cpu_count() or 1)


# The worker's own state: what `setup` returned, or the error it raised (given back with
# the first item, so that the user sees the model error itself, not a broken pool).
_state: dict[str, Any] = {}


def _setup(setup: Callable[..., Any], args: tuple) -> None:
    try:
        _state["value"] = setup(*args)
    except Exception as e:   # reported with the first item
        _state["error"] = e


def _work(work: Callable[[Any, Any], Any], item: Any) -> Any:
    if "error" in _state:
        raise _state["error"]
    return work(_state["value"], item)


def _result(future: Future) -> Any:
    try:
        return future.result()
    except BrokenProcessPool:
        raise WorkerError(STOPPED) from None


def ordered_map(work: Callable[[Any, T], R], items: Iterable[T], processes: int,
                setup: Callable[..., Any], setup_args: tuple = ()) -> Iterator[R]:
    """`work(state, item)` for each item, in `processes` spawned workers whose `state` is
    `setup(*setup_args)` (run once in each); results in the order of `items`, at most
    IN_FLIGHT * processes items read ahead.  `work`, `setup` and their arguments must be
    picklable (module-level functions, plain data).  An item None is not worked on: the
    results of the items before it are given before the next is read (a pause in the
    input).  An error raised in a worker is raised here, with the results before it
    already given."""
    pool = ProcessPoolExecutor(processes, multiprocessing.get_context("spawn"),
                               initializer=_setup, initargs=(setup, setup_args))
    pending: deque[Future] = deque()
    try:
        for item in items:
            if item is None:   # a pause in the input: everything read so far, now
                while pending:
                    yield _result(pending.popleft())
                continue
            try:
                pending.append(pool.submit(_work, work, item))
            except BrokenProcessPool:
                while pending:   # the results before the break, then its error
                    yield _result(pending.popleft())
                raise WorkerError(STOPPED) from None
            while len(pending) >= IN_FLIGHT * processes:
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def ordered_chain(work: Callable[[Any, T], Iterable[R]], items: Iterable[T], processes: int,
                  setup: Callable[..., Any], setup_args: tuple = ()) -> Iterator[R]:
    """`ordered_map` for work that gives a list per item (a chunk of texts in, its
    documents out): the lists' items, one by one; the workers stop when this is closed."""
    with closing(ordered_map(work, items, processes, setup, setup_args)) as results:
        for result in results:
            yield from result
