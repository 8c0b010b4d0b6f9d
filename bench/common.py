"""What the benches share: the training runs behind the paper's tables (each an ordinary
`senna train` command run as a subprocess and logged), their records and how a table cell
shows them, and the options every table bench takes."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from senna.tasks import TASKS

ROOT = Path(__file__).resolve().parents[1]


def _options(settings: dict) -> list[str]:
    return [x for k, v in settings.items() for x in (f"--{k.replace('_', '-')}", str(v))]


# task -> (train file, dev file or None for "last 10% of train", extra options): the table's
DATA = {t.name: (*t.data, _options(t.extra)) for t in TASKS.values()}
DEV_NAMES = {"pos": "EWT dev (acc.)", "chunk": "CoNLL-2000 train, last 10% (F1)",
             "ner": "CoNLL-2003 eng.testa (F1)", "pt0": "EWT dev (F1)",
             "srl": "EWT verbs-args dev (F1)"}


def command(data: Path, out: Path, name: str, task: str, crit: str, extra: list[str]) -> list[str]:
    """The `senna train` command of one run of a paper table (`data`'s files for `task`)."""
    train, dev, opts = DATA[task]
    cmd = ["senna", "train", "--task", task, "--criterion", crit,
           "--train", str(data / train), "--out", str(out / name), "--threads", "1"]
    if dev:
        cmd += ["--dev", str(data / dev)]
    return cmd + opts + extra


def run_one(cmd: list[str], log: Path) -> float:
    """Run one `senna train` command in this checkout, logging to `log`; wall seconds."""
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
    score, epoch = best_of(state)
    at = next(h for h in state["history"] if h["epoch"] == epoch)
    return {"score": score, "epoch": epoch, "to_best": at["seconds"],
            "total": state["seconds"], "epochs": state["epoch"], "partial": partial}


def best_of(state: dict, task: str | None = None) -> tuple[float | None, int | None]:
    """A run's best dev score and its epoch: of `task`, or of its one task (older runs'
    records hold a single score)."""
    if not isinstance(state["best"], dict):
        return state["best"], state.get("best_epoch")
    b = state["best"].get(task) if task else next(iter(state["best"].values()), None)
    return (b["score"], b["epoch"]) if b else (None, None)


def cell(r: dict | None) -> str:
    """A run's score for a table cell (`result`), or a dash."""
    if r is None:
        return "—"
    return f"{r['score']:.2f}" + (f" (unfinished: {r['epochs']} epochs)" if r["partial"] else "")


def minutes(r: dict | None) -> str:
    """Minutes to a run's best epoch and in all (`result`), or a dash."""
    if r is None:
        return "—"
    return f"{r['to_best'] / 60:.1f} (ep {r['epoch']}) / {r['total'] / 60:.1f}"


def state(out: Path, name: str) -> dict | None:
    """A run's final record, else its last checkpoint, else None."""
    for path in (out / name / "history.json", out / name / "checkpoint" / "state.json"):
        if path.exists():
            return {**json.loads(path.read_text()), "finished": path.name == "history.json"}
    return None


def best(out: Path, name: str, task: str) -> str:
    """A run's best score for `task` and its epoch (`state`; a joint run has one per task)."""
    s = state(out, name)
    if s is None:
        return "—"
    score, epoch = best_of(s, task)
    if score is None:
        return "—"
    note = "" if s["finished"] else f", unfinished at {s['epoch']}"
    return f"{score:.2f} (ep {epoch}{note})"


def run_minutes(out: Path, name: str) -> str:
    """A run's training minutes so far (`state`), or a dash."""
    s = state(out, name)
    return "—" if s is None else f"{s['seconds'] / 60:.1f}"


def parser(doc: str, out: str) -> argparse.ArgumentParser:
    """The options every table bench shares."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT / "../shared/data"))
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
