"""Peak memory of one tag-corpus task on a compressed input: the largest partition of a
`.gz` file of about --mb MB of text, read (and with --tag, tagged into its shards by
POS) in a fresh process, as the worker does, against the whole file as one partition
(how compressed inputs were planned before they were cut by decompressed size).

    python bench/corpus_compressed.py --mb 24 [--tag]
"""

from __future__ import annotations

import os

os.environ.update(dict.fromkeys(("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                 "MKL_NUM_THREADS"), "1"))

import argparse  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

WORDS = "John Smith flew to Paris on Monday . The cat sat on the mat . Mary met Bob".split()

CHILD = """
import json, resource, sys, time
from senna.integrations.corpus import Part, documents, make_job, plan
from senna.integrations.corpus_dask import tag_partition
path, whole, tag, out = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1", sys.argv[4]
job = make_job([path], ["pos"], formats=("jsonl",))
parts = plan(job)
part = Part(0, path, 0, None, 1) if whole else max(
    parts, key=lambda p: (p.end or 1 << 62) - p.start)
started = time.perf_counter()
if tag:
    import senna
    tag_partition(part, out, job, senna.load(tasks=["pos"]))
else:
    docs = list(documents(part, job))
print(json.dumps({"parts": 1 if whole else len(parts), "seconds": time.perf_counter() - started,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=float, default=24.0, help="MB of text (default 24)")
    p.add_argument("--tag", action="store_true", help="tag the partition too (POS)")
    a = p.parse_args()
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.txt.gz"
        rng, written = random.Random(0), 0
        with gzip.open(path, "wb") as f:   # lines of 5-40 words in random order
            while written < a.mb * 1e6:
                line = (" ".join(rng.choices(WORDS, k=rng.randint(5, 40))) + "\n").encode()
                written += f.write(line)
        print(f"{a.mb:g} MB of text, {path.stat().st_size / 1e6:.1f} MB as .gz", flush=True)
        for whole in (True, False):
            started = time.perf_counter()
            run = subprocess.run([sys.executable, "-c", CHILD, str(path), str(int(whole)),
                                  str(int(a.tag)), tmp], capture_output=True, text=True,
                                 cwd=root, check=True)
            r = json.loads(run.stdout)
            what = "whole file as one partition" if whole else \
                f"largest of {r['parts']} partitions"
            print(f"{what}: peak RSS {r['peak_mb']:.0f} MB, {r['seconds']:.1f} s "
                  f"({time.perf_counter() - started:.1f} s with start-up)", flush=True)


if __name__ == "__main__":
    main()
