"""How many threads the BLAS library runs while senna tags: one by default, in every entry
point (the CLI, `senna.load`, the spaCy component, the server, tag-corpus workers).

Why one: the tagger's matrix products are small (a few hundred rows per batch of
sentences), so extra BLAS threads gain little on an idle machine and cost many times the
time when its cores are busy (threads spin waiting for each other: 14x for `pipe` with
all five tasks on a loaded 2-core machine).  Users who want more give `threads=N` (or
`--threads N`); 0 leaves the library's own setting.  A user who set OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS or MKL_NUM_THREADS has chosen already: the default then leaves BLAS
alone.  The limit holds only while senna tags (threadpoolctl), so the rest of a user's
program keeps its own."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def checked_threads(threads: int | None) -> int:
    """`threads` as given (0: the library's setting), or the default when None: 1, unless
    the environment names a thread count (then 0); ValueError for anything else."""
    if threads is None:
        return 0 if any(v in os.environ for v in THREAD_VARS) else 1
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads must be a whole number, 0 or more, got {threads!r}")
    return threads


_found: list = [-1, None]   # [len(sys.modules) when looked up, the controller]


def _controller():
    """The BLAS libraries of the process, looked up again only when a module was imported
    since the last lookup (a lookup reads every shared library, 0.3 ms; a BLAS loaded
    later, as PyTorch's or SciPy's, comes with an import)."""
    if _found[0] != len(sys.modules):
        from threadpoolctl import ThreadpoolController

        _found[1] = ThreadpoolController()
        _found[0] = len(sys.modules)
    return _found[1]


@contextmanager
def blas_threads(threads: int) -> Iterator[None]:
    """BLAS limited to `threads` threads inside the block (0: unchanged)."""
    with _controller().limit(limits=threads, user_api="blas") if threads else nullcontext():
        yield
