"""What checking the manifest costs: `senna.load()` of the shipped models in fresh processes
with verification on, and with it switched off (`digests` replaced by a function that
hashes nothing and returns what the manifest records), alternating, median of each; and
the time spent hashing (every file is hashed before any is parsed, so it adds to the
load).

    python bench/load_manifest.py [--tasks pos] [--runs 7]

Why fresh processes: the embeddings are read (and hashed) once per process, and a
one-sentence run pays for exactly one load.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = r"""
import sys, time
import senna.io.manifest as manifest

spent = [0.0]
real = manifest.digests

def timed(root, names):
    t = time.perf_counter()
    try:
        return real(root, names)
    finally:
        spent[0] += time.perf_counter() - t

def recorded(root, names):
    files = manifest.read_manifest(root)
    return {n: {"size": files[n]["size"], "sha256": files[n]["sha256"]} for n in names}

manifest.digests = timed if sys.argv[1] == "on" else recorded
from senna.api import load
t = time.perf_counter()
load(sys.argv[3], sys.argv[2].split(","))
print(time.perf_counter() - t, spent[0])
"""


def once(mode: str, tasks: str) -> tuple[float, float]:
    """(load seconds, of them hashing) in a fresh process."""
    out = subprocess.run([sys.executable, "-c", CHILD, mode, tasks, str(ROOT / "senna" / "models")],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default="pos", help="comma-separated, as for senna.load")
    p.add_argument("--runs", type=int, default=7)
    a = p.parse_args()
    runs: dict[str, list[tuple[float, float]]] = {"on": [], "off": []}
    for _ in range(a.runs):
        for mode in runs:
            runs[mode].append(once(mode, a.tasks))
    for mode, rows in runs.items():
        load = statistics.median(r[0] for r in rows) * 1e3
        hashing = statistics.median(r[1] for r in rows) * 1e3
        print(f"{a.tasks}: verification {mode:>3}: load {load:6.0f} ms (median of "
              f"{len(rows)}), hashing {hashing:4.0f} ms")


if __name__ == "__main__":
    main()
