"""Reproduce Table 4 of Collobert et al. (2011) on our data: NN+WLL and NN+SLL trained from
random embeddings (words + caps features only) for POS, CHUNK, NER, PT0 and SRL; SRL with
the sentence approach, and once with the window approach to show why the paper needs the
sentence approach.  Prints one markdown table of dev scores and training times.

POS, CHUNK, NER and PT0 use the paper's plain SGD with fan-in-scaled learning rates; SRL
uses Adam (lr 1e-3): with plain SGD the sentence approach did not start learning within
an epoch here (dev F1 0 after 6,400 predicates; Adam: 13 F1), see docs/lab/paper-tables.md,
"The paper's Table 4 on our data".

    python bench/table4.py --data ../shared/data --out runs/table4 --jobs 2

Each run is an ordinary `senna train` command (printed in the table's notes); a finished run
is not trained again, an interrupted one resumes from its checkpoint.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from senna.tasks import TASKS


def _options(settings: dict) -> list[str]:
    return [x for k, v in settings.items() for x in (f"--{k.replace('_', '-')}", str(v))]


# task -> (train file, dev file or None for "last 10% of train", extra options): the table's
DATA = {t.name: (*t.data, _options(t.extra)) for t in TASKS.values()}
DEV_NAMES = {"pos": "EWT dev (acc.)", "chunk": "CoNLL-2000 train, last 10% (F1)",
             "ner": "CoNLL-2003 eng.testa (F1)", "pt0": "EWT dev (F1)",
             "srl": "EWT verbs-args dev (F1)"}
PAPER = {"pos": ("96.31", "96.37"), "chunk": ("89.13", "90.33"), "ner": ("79.53", "81.47"),
         "pt0": ("", ""), "srl": ("55.40", "70.99")}


def runs(epochs: int, srl_epochs: int) -> list[tuple[str, str, str, list[str]]]:
    """(name, task, criterion, extra args) for every row cell."""
    out = []
    for task in DEV_NAMES:   # the paper's tasks (DATA also has the verb detector)
        for crit in ("wll", "sll"):
            n = srl_epochs if task == "srl" else epochs
            out.append((f"{task}-{crit}", task, crit, ["--epochs", str(n)]))
    out.append(("srl-window-sll", "srl", "sll",
                ["--approach", "window", "--features", "window", "--epochs", str(epochs)]))
    return out


def command(data: Path, out: Path, name: str, task: str, crit: str, extra: list[str]) -> list[str]:
    train, dev, opts = DATA[task]
    cmd = ["senna", "train", "--task", task, "--criterion", crit,
           "--train", str(data / train), "--out", str(out / name), "--threads", "1"]
    if dev:
        cmd += ["--dev", str(data / dev)]
    return cmd + opts + extra


def run_one(cmd: list[str], log: Path) -> float:
    t0 = time.time()
    with open(log, "w") as f:
        subprocess.run([sys.executable, "-m", "senna.cli.main", *cmd[1:]], stdout=f,
                       stderr=subprocess.STDOUT, check=False)
    return time.time() - t0


def run_all(cmds: dict[str, list[str]], names: list[str], jobs: int, out: Path) -> None:
    """Run the named commands, `jobs` at a time, each logging to out/<name>.log."""
    with ThreadPoolExecutor(jobs) as pool:
        walls = pool.map(lambda n: run_one(cmds[n], out / f"{n}.log"), names)
        for name, secs in zip(names, walls, strict=True):
            print(f"{name}: {secs / 60:.1f} min wall", file=sys.stderr)


def result(out: Path, name: str, finished: bool = True) -> dict | None:
    """A finished run's record, or (finished=False) the last checkpoint of one in progress."""
    path = out / name / "history.json"
    partial = not path.exists()
    if partial:
        path = out / name / "checkpoint" / "state.json"
        if finished or not path.exists():
            return None
    state = json.loads(path.read_text())
    best = next(h for h in state["history"] if h["epoch"] == state["best_epoch"])
    return {"score": state["best"], "epoch": state["best_epoch"], "to_best": best["seconds"],
            "total": state["seconds"], "epochs": state["epoch"], "partial": partial}


def cell(r: dict | None) -> str:
    if r is None:
        return "—"
    return f"{r['score']:.2f}" + (f" (unfinished: {r['epochs']} epochs)" if r["partial"] else "")


def minutes(r: dict | None) -> str:
    if r is None:
        return "—"
    return f"{r['to_best'] / 60:.1f} (ep {r['epoch']}) / {r['total'] / 60:.1f}"


def table(out: Path, cmds: dict[str, list[str]]) -> str:
    lines = ["| task (dev set) | NN+WLL | NN+SLL | paper WLL / SLL (test) "
             "| minutes to best WLL (epoch) / total | minutes SLL |",
             "|---|---|---|---|---|---|"]
    for task in DEV_NAMES:   # the paper's tasks (DATA also has the verb detector)
        w, s = result(out, f"{task}-wll", False), result(out, f"{task}-sll", False)
        paper = " / ".join(PAPER[task]) if PAPER[task][0] else "—"
        lines.append(f"| {task.upper()} ({DEV_NAMES[task]}) | {cell(w)} | {cell(s)} | {paper} "
                     f"| {minutes(w)} | {minutes(s)} |")
    win = result(out, "srl-window-sll", False)
    lines.append(f"| SRL, window approach | — | {cell(win)} | — | — | {minutes(win)} |")
    lines += ["", "Commands (one per cell):", ""]
    lines += [f"    {shlex.join(c)}" for c in cmds.values()]
    return "\n".join(lines)


def parser(doc: str, out: str) -> argparse.ArgumentParser:
    """The options every table bench shares."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--data", default=str(Path(__file__).resolve().parents[1] / "../shared/data"))
    p.add_argument("--out", default=out)
    p.add_argument("--jobs", type=int, default=2, help="runs in parallel (one core each)")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--srl-epochs", type=int, default=10)
    p.add_argument("--only", help="comma-separated run names (e.g. pos-wll,ner-sll)")
    p.add_argument("--table-only", action="store_true", help="print the table of finished runs")
    return p


def recipe_runs_parser(doc: str, out: str) -> argparse.ArgumentParser:
    """The options of the benches whose runs are the recipes plus some options."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--out", default=out)
    p.add_argument("--recipes", default="recipes")
    p.add_argument("--jobs", type=int, default=2, help="runs in parallel (one core each)")
    p.add_argument("--table-only", action="store_true", help="print the table of finished runs")
    return p


def main() -> int:
    a = parser(__doc__, "runs/table4").parse_args()
    data, out = Path(a.data).resolve(), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = [r for r in runs(a.epochs, a.srl_epochs)
            if not a.only or r[0] in a.only.split(",")]
    cmds = {r[0]: command(data, out, *r) for r in runs(a.epochs, a.srl_epochs)}
    if not a.table_only:
        pending = [r[0] for r in todo if result(out, r[0]) is None]
        pending.sort(key=lambda n: not n.startswith("srl-sll") and not n.startswith("srl-wll"))
        run_all(cmds, pending, a.jobs, out)
    print(table(out, cmds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
