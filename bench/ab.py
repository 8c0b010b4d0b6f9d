"""Interleaved A/B timing of the `senna` command from two (or more) source trees.

    python bench/ab.py --tree old=/tmp/old-checkout --tree new=. --data ../shared/data -- -pos
    python bench/ab.py --tree old=/tmp/old-checkout --tree new=. --one -- -pos -chk -ner -srl

This machine's speed drifts by up to 30% over minutes, so two versions timed one after the
other compare the host's states as much as the code.  Here the trees take turns, run by run
(`python -m senna.cli.main` with each tree first on PYTHONPATH and its own shipped models),
and each tree's minimum and median CPU time (user + system) over the rounds is printed.
By default the input is the words of bench/speed.py (CoNLL-2003 eng.testa and EWT dev, one
sentence per line, `-usrtokens --preload`), and the time is that of the whole command minus
the same command's on an empty input; `--one` times a one-sentence run as a user would
start it (no --preload).  Make an old tree with `git worktree add /tmp/old-checkout <commit>`.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tqdm import tqdm

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.speed import SOURCES, THREAD_VARS, read_sentences  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(tree: Path, args: list[str], stdin: Path) -> float:
    """User + system seconds of one run of the command from `tree`."""
    env = {**os.environ, **{v: "1" for v in THREAD_VARS}, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stdin, "rb") as inp:
        subprocess.run([sys.executable, "-m", "senna.cli.main", *args], stdin=inp, env=env,
                       cwd=tree, stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tree", action="append", required=True, metavar="LABEL=PATH",
                   help="a source tree to time (give two or more)")
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--one", action="store_true", help="time a one-sentence run instead")
    p.add_argument("options", nargs="*", help="senna options (after --), e.g. -pos")
    a = p.parse_args(argv)
    trees = [(label, Path(path).resolve()) for label, path in
             (t.split("=", 1) for t in a.tree)]
    sentences = [s for src in SOURCES for s in read_sentences(Path(a.data) / src)]
    tokens = sum(len(s) for s in sentences)
    times: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        text, empty, one = (Path(tmp) / n for n in ("text", "empty", "one"))
        text.write_text("".join(" ".join(s) + "\n" for s in sentences), encoding="utf-8")
        empty.write_text("", encoding="utf-8")
        one.write_text(" ".join(sentences[0]) + "\n", encoding="utf-8")
        runs = [("one", one, a.options)] if a.one else [
            ("full", text, ["-usrtokens", "--preload", *a.options]),
            ("empty", empty, ["-usrtokens", "--preload", *a.options])]
        for _ in tqdm(range(a.rounds), desc="rounds", file=sys.stderr):
            for label, tree in trees:
                for kind, stdin, args in runs:
                    times.setdefault((label, kind), []).append(cpu_seconds(tree, args, stdin))
    print(f"senna {' '.join(a.options)}; {a.rounds} rounds, trees in turn; CPU seconds")
    for label, tree in trees:
        if a.one:
            v = times[label, "one"]
            print(f"{label:>8} ({tree}): one sentence, min {min(v):.3f} s, "
                  f"median {statistics.median(v):.3f} s")
            continue
        full, empty = times[label, "full"], times[label, "empty"]
        best = min(full) - min(empty)
        mid = statistics.median(full) - statistics.median(empty)
        print(f"{label:>8} ({tree}): tagging {tokens:,} tokens, min {best:.3f} s "
              f"({tokens / best:,.0f} tokens/s), median {mid:.3f} s ({tokens / mid:,.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
