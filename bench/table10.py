"""Table 10 of Collobert et al. (2011) on our dev sets: ensembles of taggers trained from
different random seeds (section 6.1), combined by voting and by the "joined" layer trained
on the members' hidden layers, next to the members alone; and the tagging speed each costs.

    python bench/table10.py --out runs/table10 --tasks ner,chunk,pos --seeds 1,2,3

Run from the repository root (the recipes name ../shared/data/...).  Each ensemble is one
ordinary command, `senna train --config recipes/<task>.json --seeds ... --joined-epochs 5`
(listed under the table); a finished member is not trained again.  Speed: tokens per second
tagging the dev set's words with gold input columns, one thread, load excluded.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from senna.runtime.ensemble import EnsembleModel
from senna.runtime.model import TaskModel
from senna.runtime.predict import predict_gold_inputs
from senna.scoring.inputs import recorded_dev_set

ROOT = Path(__file__).resolve().parents[1]


def command(task: str, out: Path, recipes: Path, seeds: str, joined: int) -> list[str]:
    return ["senna", "train", "--config", str(recipes / f"{task}.json"), "--out",
            str(out / task), "--seeds", seeds, "--joined-epochs", str(joined)]


def tokens_per_second(model, task, dev: list) -> float:
    predict_gold_inputs(model, task, dev[:50])            # warm the caches
    t0 = time.perf_counter()
    predict_gold_inputs(model, task, dev)
    return sum(len(s.words) for s in dev) / (time.perf_counter() - t0)


def row(task_dir: Path, data: Path) -> str:
    spec = json.loads((task_dir / "ensemble.json").read_text())
    task, dev = recorded_dev_set(task_dir / spec["members"][0], data)
    members = [spec["dev"][m] for m in spec["members"]]
    single = TaskModel.load(task_dir / spec["members"][0])
    vote = EnsembleModel.load(task_dir, "vote")
    speed = [tokens_per_second(m, task, dev) for m in (single, vote)]
    joined, joined_speed = "—", "—"
    if spec.get("joined"):
        joined = f"{spec['dev']['joined']:.2f}"
        joined_model = EnsembleModel.load(task_dir, "joined")
        joined_speed = f"{tokens_per_second(joined_model, task, dev):,.0f}"
    return (f"| {task.name.upper()} | {' / '.join(f'{m:.2f}' for m in members)} "
            f"| {np.mean(members):.2f} | {spec['dev']['vote']:.2f} | {joined} "
            f"| {speed[0]:,.0f} | {speed[1]:,.0f} | {joined_speed} |")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--out", default="runs/table10")
    p.add_argument("--recipes", default="recipes")
    p.add_argument("--tasks", default="ner,chunk,pos")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--joined-epochs", type=int, default=5)
    p.add_argument("--table-only", action="store_true")
    a = p.parse_args()
    out, tasks = Path(a.out), a.tasks.split(",")
    cmds = [command(t, out, Path(a.recipes), a.seeds, a.joined_epochs) for t in tasks]
    if not a.table_only:
        for cmd, task in zip(cmds, tasks, strict=True):
            (out / task).mkdir(parents=True, exist_ok=True)
            with open(out / f"{task}.log", "w") as log:
                subprocess.run([sys.executable, "-m", "senna.cli.main", *cmd[1:]], stdout=log,
                               stderr=subprocess.STDOUT, check=False)
    print("| task (dev) | members (seeds " + a.seeds + ") | member mean | vote | joined "
          "| tokens/s, one model | vote | joined |")
    print("|---|---|---|---|---|---|---|---|")
    for task in tasks:
        if (out / task / "ensemble.json").exists():
            print(row(out / task, Path(a.data)))
    print("\nCommands:\n")
    print("\n".join(f"    {shlex.join(c)}" for c in cmds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
