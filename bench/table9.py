"""Table 9 of Collobert et al. (2011) on our dev sets: the window-approach taggers trained
alone versus jointly (multi-task learning, section 5), all from the shipped embeddings with
each task's shipped recipe (task features included): joint training sharing the lookup
tables only, sharing the first layer as well (Figure 5), and the latter with uniform instead
of proportional task sampling.

    python bench/table9.py --out runs/table9 --jobs 2

Run from the repository root (the recipes name ../shared/data/...).  Every cell is an
ordinary `senna train` command, listed under the table; finished runs are not trained again
and interrupted ones resume from their checkpoints.  PT0 is scored with gold POS as its
input column, CHUNK uses words and caps only (its recipe), NER its gazetteer.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.common import best, recipe_runs_parser, run_all, run_minutes, state  # noqa: E402

TASKS = ("pos", "chunk", "ner", "pt0")
JOINT = {  # name -> (share_l1, sampling, column title)
    "joint-tables": ("false", "proportional", "joint: shared tables"),
    "joint-l1": ("true", "proportional", "joint: tables + first layer"),
    "joint-l1-uniform": ("true", "uniform", "joint: tables + first layer, uniform sampling"),
}


def commands(out: Path, recipes: Path, epochs: int) -> dict[str, list[str]]:
    cmds = {f"{t}-alone": ["senna", "train", "--config", str(recipes / f"{t}.json"),
                           "--out", str(out / f"{t}-alone")] for t in TASKS}
    for name, (share, sampling, _) in JOINT.items():
        cmds[name] = ["senna", "train", "--tasks", ",".join(TASKS), "--recipes", str(recipes),
                      "--out", str(out / name), "--share-l1", share, "--sampling", sampling,
                      "--epochs", str(epochs)]
    return cmds


def table(out: Path, cmds: dict[str, list[str]]) -> str:
    lines = ["| task (dev) | alone | " + " | ".join(t for _, _, t in JOINT.values()) + " |",
             "|---|---|" + "---|" * len(JOINT)]
    for task in TASKS:
        cells = [best(out, f"{task}-alone", task)] + [best(out, n, task) for n in JOINT]
        lines.append(f"| {task.upper()} | " + " | ".join(cells) + " |")
    alone = sum(float(state(out, f"{t}-alone")["seconds"]) for t in TASKS
                if state(out, f"{t}-alone")) / 60
    lines.append(f"| minutes (training, all tasks) | {alone:.1f} | "
                 + " | ".join(run_minutes(out, n) for n in JOINT) + " |")
    lines += ["", "Commands (one per run):", ""]
    lines += [f"    {shlex.join(c)}" for c in cmds.values()]
    return "\n".join(lines)


def main() -> int:
    p = recipe_runs_parser(__doc__, "runs/table9")
    p.add_argument("--epochs", type=int, default=25,
                   help="epochs of the joint runs (the alone runs follow their recipes)")
    p.add_argument("--only", help="comma-separated run names (e.g. pos-alone,joint-l1)")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cmds = commands(out, Path(a.recipes), a.epochs)
    if not a.table_only:
        names = [n for n in (*JOINT, *(f"{t}-alone" for t in TASKS))
                 if (not a.only or n in a.only.split(","))
                 and not (state(out, n) or {}).get("finished")]
        run_all(cmds, names, a.jobs, out)
    print(table(out, cmds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
