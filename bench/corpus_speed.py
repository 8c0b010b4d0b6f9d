"""Corpus tagging throughput: `senna tag-corpus` on a local Dask cluster
with 1 and 2 workers, against one process calling `Tagger.pipe`, and against spaCy's
`nlp.pipe(n_process=2)` running the `senna` component on `spacy.blank("en")` (no English
spaCy model is installed here: en_core_web_sm is downloaded from GitHub, out of reach).

    python bench/corpus_speed.py [--data ../shared/data] [--words 300000]
        [--tasks pos,chunk,ner,srl] [--source lm/enwiki_c_2020_slice.txt.xz]

The text is the first paragraphs (one per line) of `--source` up to `--words` whitespace
tokens, written to a temporary file.  Every configuration tags the whole file, each
starting from nothing (cluster start, model loading): "wall" is that end-to-end time and
"tokens/s" divides the configuration's own token count by it; "CPU" sums user and system
time over all processes of the run (the machine's other load does not inflate it).
"start-up" is the same configuration on a one-line input, and "excl. start-up" subtracts
it.  BLAS is limited to one thread everywhere (Dask's workers get that by default).
Needs the `dask` and `spacy` extras.
"""

from __future__ import annotations

import os

os.environ.update(dict.fromkeys(("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                 "MKL_NUM_THREADS"), "1"))

import argparse  # noqa: E402
import lzma  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def sample(source: Path, words: int, dest: Path) -> int:
    """First paragraphs of `source` up to `words` whitespace tokens -> dest; token count."""
    n = 0
    with lzma.open(source, "rt", encoding="utf-8") as f, open(dest, "w", encoding="utf-8") as o:
        for line in f:
            if not line.strip():
                continue
            o.write(line)
            n += len(line.split())
            if n >= words:
                break
    return n


def single(path: Path, tasks: list[str]) -> int:
    import senna

    tagger = senna.load(tasks=tasks)
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    return sum(len(s.tokens) for d in tagger.pipe(lines, batch_size=256) for s in d.sentences)


def dask_job(path: Path, tasks: list[str], workers: int, parts: int) -> int:
    from senna.integrations.corpus import make_job
    from senna.integrations.corpus_dask import dask_client, run_job

    out = Path(tempfile.mkdtemp(prefix="senna-bench-"))
    try:
        size = path.stat().st_size
        job = make_job([str(path)], tasks, formats=("jsonl",),
                       partition_bytes=max(1, size // parts))
        with dask_client(workers=workers) as client:
            total = run_job(job, out, client, progress=False)
        return total.tokens
    finally:
        shutil.rmtree(out)


def spacy_pipe(path: Path, tasks: list[str], n_process: int) -> int:
    import spacy

    import senna.integrations.spacy  # noqa: F401  (registers the factory)

    nlp = spacy.blank("en")
    nlp.add_pipe("senna", config={"tasks": tasks})
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    return sum(sum(not t.is_space for t in doc)
               for doc in nlp.pipe(lines, batch_size=32, n_process=n_process))


def cpu_seconds() -> float:
    """User + system time of this process and of its children that have ended (Dask's
    worker processes after the cluster closes, spaCy's after nlp.pipe returns)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn: Callable[[Path], int], path: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (all processes) and tokens of one run."""
    started, cpu = time.perf_counter(), cpu_seconds()
    tokens = fn(path)
    return time.perf_counter() - started, cpu_seconds() - cpu, tokens


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    p.add_argument("--source", default="lm/enwiki_c_2020_slice.txt.xz")
    p.add_argument("--words", type=int, default=300_000)
    p.add_argument("--tasks", default="pos,chunk,ner,srl")
    p.add_argument("--partitions", type=int, default=16,
                   help="Dask partitions the text is cut into (default 16)")
    a = p.parse_args()
    tasks = a.tasks.split(",")
    tmp = Path(tempfile.mkdtemp(prefix="senna-bench-"))
    try:
        text, tiny = tmp / "text.txt", tmp / "tiny.txt"
        words = sample(a.data / a.source, a.words, text)
        tiny.write_text("The cat sat on the mat.\n", encoding="utf-8")
        configs: list[tuple[str, Callable[[Path], int]]] = [
            ("one process, Tagger.pipe", lambda f: single(f, tasks)),
            ("tag-corpus, Dask, 1 worker", lambda f: dask_job(f, tasks, 1, a.partitions)),
            ("tag-corpus, Dask, 2 workers", lambda f: dask_job(f, tasks, 2, a.partitions)),
            ("spaCy nlp.pipe, n_process=2", lambda f: spacy_pipe(f, tasks, 2)),
        ]
        print(f"text: {a.source}, {words:,} whitespace tokens, "
              f"{text.stat().st_size / 1e6:.1f} MB; tasks {','.join(tasks)}; "
              f"{os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.1f}\n")
        print("| configuration | tokens | wall (s) | tokens/s | start-up (s) "
              "| tokens/s excl. start-up | CPU (s) | tokens per CPU s |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, fn in configs:
            startup, _, _ = timed(fn, tiny)
            wall, cpu, tokens = timed(fn, text)
            print(f"| {name} | {tokens:,} | {wall:.1f} | {tokens / wall:,.0f} | {startup:.1f} "
                  f"| {tokens / max(wall - startup, 1e-9):,.0f} | {cpu:.1f} "
                  f"| {tokens / cpu:,.0f} |", flush=True)
        print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
