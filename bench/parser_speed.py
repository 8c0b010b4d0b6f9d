"""Parser speed: the first N sentences of EWT dev (gold POS; a parser whose first level keeps
PT0's phrases gets the gold level 0, as training scores it) parsed by a psg model, in CPU
seconds per token, for one or more source trees taking turns, with a digest of the trees
each tree's code gives (equal digests: the same trees).

    python bench/parser_speed.py --model runs/psg --data ../shared/data \
        --tree old=/tmp/old-checkout --tree new=. --sentences 300 --rounds 3

Each run is a fresh single-threaded process with the tree first on PYTHONPATH; the time is
that of `ParserModel.parse` alone (the model loaded and the file read before).  Make an old
tree with `git worktree add /tmp/old-checkout <commit>`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.speed import THREAD_VARS  # noqa: E402

RUN = """
import hashlib, json, sys, time
from senna.io.conll import read_gold_conll
from senna.runtime.ensemble import load_tagger
from senna.syntax.levels import lowest_label
from senna.syntax.levels import normalise, tree_to_levels
from senna.syntax.tree import conll_to_tree
model, data, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
parser = load_tagger(model)
gold = read_gold_conll(data)[:n]
words = [s.words for s in gold]
cols = [{"pos": s.columns["pos"],
         "pt0": [lowest_label(t) for t in
                 tree_to_levels(normalise(conll_to_tree(s.columns["parse"])))[0]]}
        for s in gold]
t = time.process_time()
trees = parser.parse(words, cols)
seconds = time.process_time() - t
print(json.dumps({"tokens": sum(map(len, words)), "seconds": seconds,
                  "digest": hashlib.md5(str(trees).encode()).hexdigest()[:12]}))
"""


def run(tree: Path, model: str, data: str, sentences: int) -> dict:
    env = {**os.environ, **{v: "1" for v in THREAD_VARS}, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", RUN, model, data, str(sentences)], env=env,
                         cwd=tree, capture_output=True, text=True, check=True)   # cwd: first
    # on sys.path
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="a trained psg model directory")
    p.add_argument("--data", default="../shared/data")
    p.add_argument("--tree", action="append", metavar="NAME=DIR",
                   help="a source tree to time (repeatable; default: this checkout)")
    p.add_argument("--sentences", type=int, default=300)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    root = Path(__file__).resolve().parent.parent
    trees = dict(t.split("=", 1) for t in a.tree) if a.tree else {"this": str(root)}
    data = str((Path(a.data) / "ewt" / "ewt.dev.gold_conll").resolve())
    model = str(Path(a.model).resolve())
    results: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(a.rounds):
        for name, tree in trees.items():
            results[name].append(run(Path(tree).resolve(), model, data, a.sentences))
    print("| tree | tokens | tokens/s (best) | tokens/s (median) | trees digest |")
    print("|---|---:|---:|---:|---|")
    for name, runs in results.items():
        rates = [r["tokens"] / r["seconds"] for r in runs]
        print(f"| {name} | {runs[0]['tokens']:,} | {max(rates):,.0f} | "
              f"{statistics.median(rates):,.0f} | {runs[0]['digest']} |")


if __name__ == "__main__":
    main()
