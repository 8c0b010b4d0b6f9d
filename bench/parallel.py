"""Every core: tokens/s of `senna --jobs N` and of `Tagger.pipe(processes=N)` against N,
on the words of bench/speed.py (CoNLL-2003 eng.testa and the EWT dev set, one sentence per
line, -usrtokens), all four tasks unless --tasks says otherwise.

    python bench/parallel.py [--jobs 1,2] [--tasks pos,chk,ner,srl] [--repeat 3] [--limit N]

CLI: `python -m senna.cli.main -usrtokens --preload --jobs N`, whole command and "excl.
load" (minus the same command on an empty input, which starts the N workers and loads
their models too), wall time.  API: a fresh process runs `senna.load()` then
`pipe(lists of words, processes=N)`; its time counts the workers' start and model loading,
as a user waits for them.  Every process has one BLAS thread (OMP_NUM_THREADS and the like
are 1).  Speed-up: tokens/s at N over tokens/s at N=1.  Rounds run every configuration once
and the median of --repeat counts, as in bench/speed.py.  On a machine with fewer idle
cores than N, the workers share cores, and so does every other process on it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.speed import (  # noqa: E402
    ROOT,
    SOURCES,
    Run,
    entry_point_run,
    median,
    rate,
    read_sentences,
    run_once,
    senna_command,
)


def measure(counts: list[int], tasks: list[str], text: Path, empty: Path, repeat: int,
            model_dir: str | None) -> dict[tuple[str, int], list[Run]]:
    """Every configuration `repeat` times, round by round: the CLI on `text` and on
    `empty`, and the API's tagging (`entry_point_run`), for each N."""
    base = senna_command() + ["-usrtokens", "--preload"] + \
        (["-path", model_dir] if model_dir else []) + [f"-{t}" for t in tasks]
    runs: dict[tuple[str, int], list[Run]] = {}
    for k in range(repeat):
        for n in counts:
            print(f"round {k + 1}/{repeat}, N={n}", file=sys.stderr, flush=True)
            cmd = base + ["--jobs", str(n)]
            runs.setdefault(("load", n), []).append(run_once(cmd, empty))
            runs.setdefault(("full", n), []).append(run_once(cmd, text))
            if not tasks:   # the API's default tasks are the CLI's (all four)
                runs.setdefault(("api", n), []).append(
                    entry_point_run("api", text, model_dir, n)[1])
    return runs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--model-dir", help="models' root directory (default: the shipped ones)")
    p.add_argument("--jobs", default="1,2", help="comma-separated process counts (1 first)")
    p.add_argument("--tasks", default="",
                   help="comma-separated task flags for the CLI, e.g. pos or pos,chk (default: "
                        "all four, which the API row needs)")
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    p.add_argument("--limit", type=int, default=0, help="only the first N sentences")
    a = p.parse_args(argv)
    counts = [int(x) for x in a.jobs.split(",")]
    tasks = [t for t in a.tasks.split(",") if t]
    sentences = [s for src in SOURCES for s in read_sentences(Path(a.data) / src)]
    sentences = sentences[: a.limit] if a.limit else sentences
    tokens = sum(map(len, sentences))
    before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        text, empty = Path(tmp) / "input.txt", Path(tmp) / "empty.txt"
        text.write_text("".join(" ".join(s) + "\n" for s in sentences), encoding="utf-8")
        empty.write_text("", encoding="utf-8")
        runs = measure(counts, tasks, text, empty, a.repeat, a.model_dir)
    print(f"{len(sentences):,} sentences, {tokens:,} tokens ({', '.join(SOURCES)}); tasks: "
          f"{','.join(tasks) or 'all four'}; median of {a.repeat}; load average {before:.1f} "
          f"before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs\n")
    print("| N | CLI whole command (tokens/s) | CLI excl. load (tokens/s) | CLI speed-up "
          "(excl. load) | CLI load (s) | API pipe(processes=N) (tokens/s) | API speed-up |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    first = None
    for n in counts:
        load, full = median(runs["load", n]), median(runs["full", n])
        api = median(runs["api", n]) if ("api", n) in runs else None
        secs = full.wall - load.wall
        first = first or (secs, api.wall if api else None)
        api_cells = (f"{rate(tokens, api.wall)} | {first[1] / api.wall:.2f}x" if api
                     else "— | —")
        print(f"| {n} | {rate(tokens, full.wall)} | {rate(tokens, secs)} "
              f"| {first[0] / secs:.2f}x | {load.wall:.2f} | {api_cells} |")
    print(f"\nCommand: {' '.join(senna_command())} -usrtokens --preload --jobs N "
          f"{' '.join(f'-{t}' for t in tasks)}< sentences > /dev/null; API: senna.load(), "
          "then pipe([line.split(' ') ...], processes=N), workers' start included.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
