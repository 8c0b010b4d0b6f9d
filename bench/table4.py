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

import shlex
import sys
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.common import DEV_NAMES, cell, command, minutes, parser, result, run_all  # noqa: E402

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
