"""Issue 9's lever table: each lever's dev gain per task, with its training time and tagging
speed.  Lever 1, character-level word vectors (CharWNN, senna.nn.chars): each task's shipped
recipe (shipped embeddings, its features, seed, epochs) against the same recipe with
`--features <its preset>+chars`, nothing else changed.

    python bench/levers.py --out runs/levers --jobs 2

Run from the repository root (the recipes name ../shared/data/...).  Every run is an
ordinary `senna train` command, listed under the table; finished runs are not trained again
and interrupted ones resume from their checkpoints.  Tagging speed is the NumPy runtime on
the task's dev sentences (`TaskModel.predict`, batches of 256 sentences), in a fresh
single-threaded process per model, freshly loaded for each of `--repeat` passes (so the
character vectors of every distinct word are computed inside the timing, as for a user's
first text); the best pass counts, in tokens per CPU second of the process, which on a
shared machine is steadier than wall time.  "load" is the model's loading time.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from table4 import run_all  # noqa: E402

TASKS = ("pos", "ner", "chunk")
LEVERS = {"base": "shipped recipe", "chars": "+ characters"}  # run suffix -> column title
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

SPEED = """
import json, sys, time
from senna.datasets import load_splits
from senna.runtime.model import TaskModel
from senna.tasks import get_task
from senna.train.loop import TrainConfig

path, repeat = sys.argv[1], int(sys.argv[2])
model = TaskModel.load(path)
cfg = TrainConfig.from_dict(model.saved.info["training"]["config"])
_, dev = load_splits(cfg, get_task(model.task))
words = [s.words for s in dev if s.words]
tokens = sum(map(len, words))
best, load = float("inf"), float("inf")
for _ in range(repeat):
    t0 = time.perf_counter()
    model = TaskModel.load(path)
    load = min(load, time.perf_counter() - t0)
    c0 = time.process_time()
    for i in range(0, len(words), 256):
        model.predict(words[i : i + 256])
    best = min(best, time.process_time() - c0)
print(json.dumps({"tokens": tokens, "cpu": best, "load": load}))
"""


def commands(out: Path, recipes: Path, tasks: tuple[str, ...]) -> dict[str, list[str]]:
    cmds = {}
    for task in tasks:
        recipe = recipes / f"{task}.json"
        base = ["senna", "train", "--config", str(recipe), "--threads", "1"]
        features = json.loads(recipe.read_text())["features"]
        cmds[f"{task}-base"] = [*base, "--out", str(out / f"{task}-base")]
        cmds[f"{task}-chars"] = [*base, "--features", f"{features}+chars",
                                 "--out", str(out / f"{task}-chars")]
    return cmds


def record(out: Path, name: str) -> dict | None:
    path = out / name / "history.json"
    if not path.exists():
        return None
    state = json.loads(path.read_text())
    best = next(h for h in state["history"] if h["epoch"] == state["best_epoch"])
    return {"score": state["best"], "epoch": state["best_epoch"], "to_best": best["seconds"],
            "total": state["seconds"]}


def speed(out: Path, name: str, repeat: int) -> dict | None:
    """Tagging speed of a finished run's model (cached in <run>/speed.json)."""
    cache = out / name / "speed.json"
    if cache.exists():
        return json.loads(cache.read_text())
    if record(out, name) is None:
        return None
    env = {**os.environ, **dict.fromkeys(THREAD_VARS, "1")}
    done = subprocess.run([sys.executable, "-c", SPEED, str(out / name), str(repeat)],
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"speed of {name} failed:\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    cache.write_text(json.dumps(result))
    return result


def table(out: Path, cmds: dict[str, list[str]], tasks: tuple[str, ...], repeat: int) -> str:
    lines = ["| task (dev) | lever | dev score (best epoch) | gain | minutes to best / total "
             "| tagging tokens/s | speed | load s |",
             "|---|---|---|---|---|---|---|---|"]
    for task in tasks:
        base, base_speed = record(out, f"{task}-base"), speed(out, f"{task}-base", repeat)
        for lever, title in LEVERS.items():
            r, s = record(out, f"{task}-{lever}"), speed(out, f"{task}-{lever}", repeat)
            if r is None:
                lines.append(f"| {task.upper()} | {title} | — | | | | | |")
                continue
            rate = s["tokens"] / s["cpu"]
            gain = f"{r['score'] - base['score']:+.2f}" if base and lever != "base" else ""
            ratio = (f"{rate / (base_speed['tokens'] / base_speed['cpu']):.2f}×"
                     if base_speed and lever != "base" else "")
            lines.append(f"| {task.upper()} | {title} | {r['score']:.2f} ({r['epoch']}) | {gain} "
                         f"| {r['to_best'] / 60:.1f} / {r['total'] / 60:.1f} | {rate:,.0f} "
                         f"| {ratio} | {s['load']:.2f} |")
    lines += ["", "Commands (one per run):", ""]
    lines += [f"    {shlex.join(c)}" for c in cmds.values()]
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="runs/levers")
    p.add_argument("--recipes", default="recipes")
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--jobs", type=int, default=2, help="runs in parallel (one core each)")
    p.add_argument("--repeat", type=int, default=3, help="tagging passes per model (best)")
    p.add_argument("--table-only", action="store_true", help="print the table of finished runs")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    tasks = tuple(a.tasks.split(","))
    cmds = commands(out, Path(a.recipes), tasks)
    if not a.table_only:
        run_all(cmds, [n for n in cmds if record(out, n) is None], a.jobs, out)
    print(table(out, cmds, tasks, a.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
