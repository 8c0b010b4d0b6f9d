"""Reproduce Table 8 of Collobert et al. (2011) on our data: the Table-4 networks (words + caps
features, NN+WLL and NN+SLL) trained again with the word lookup table initialised from our
ranking language model's embeddings, next to the random-initialisation runs of
`bench/table4.py`; and Table 13's first two rows: embeddings kept fixed versus fine-tuned.

    python bench/table8.py --data ../shared/data --embeddings senna/models/embeddings \\
        --random runs/table4 --out runs/table8 --jobs 2

Every run is an ordinary `senna train` command (listed under the table) with the same
settings as its Table-4 counterpart plus `--embeddings`; finished runs are not trained
again and interrupted ones resume from their checkpoints.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.common import DEV_NAMES, cell, command, minutes, parser, result, run_all  # noqa: E402

PAPER_GAIN = {"pos": "+0.5", "chunk": "+2.5", "ner": "+5", "pt0": "—", "srl": "+2"}
ORDER = ("srl-sll", "pos-sll", "chunk-sll", "ner-sll", "pt0-sll", "pos-wll", "chunk-wll",
         "ner-wll", "pt0-wll", "chunk-sll-fixed", "ner-sll-fixed", "pos-sll-fixed",
         "pt0-sll-fixed", "srl-wll")


def runs(epochs: int, srl_epochs: int, embeddings: str) -> dict[str, tuple[str, str, list[str]]]:
    """name -> (task, criterion, extra args), in the order they are scheduled."""
    out = {}
    for name in ORDER:
        task, crit, *fixed = name.split("-")
        extra = ["--epochs", str(srl_epochs if task == "srl" else epochs),
                 "--embeddings", embeddings]
        if fixed:
            extra += ["--fixed-embeddings", "true"]
        out[name] = (task, crit, extra)
    return out


def gain(lm: dict | None, rnd: dict | None) -> str:
    return "—" if lm is None or rnd is None else f"{lm['score'] - rnd['score']:+.2f}"


def table(out: Path, random: Path, cmds: dict[str, list[str]]) -> str:
    lines = ["| task (dev set) | random WLL | LM WLL | gain | random SLL | LM SLL | gain "
             "(paper) | LM SLL, fixed embeddings | minutes to best / total, LM WLL "
             "| LM SLL |", "|---|---|---|---|---|---|---|---|---|---|"]
    for task in DEV_NAMES:   # the paper's tasks (DATA also has the verb detector)
        rw, rs = result(random, f"{task}-wll", False), result(random, f"{task}-sll", False)
        lw, ls = result(out, f"{task}-wll", False), result(out, f"{task}-sll", False)
        fx = result(out, f"{task}-sll-fixed", False)
        lines.append(f"| {task.upper()} ({DEV_NAMES[task]}) | {cell(rw)} | {cell(lw)} "
                     f"| {gain(lw, rw)} | {cell(rs)} | {cell(ls)} | {gain(ls, rs)} "
                     f"({PAPER_GAIN[task]}) "
                     f"| {cell(fx)} | {minutes(lw)} | {minutes(ls)} |")
    lines += ["", "Commands (one per cell):", ""]
    lines += [f"    {shlex.join(c)}" for c in cmds.values()]
    return "\n".join(lines)


def main() -> int:
    p = parser(__doc__, "runs/table8")
    p.add_argument("--embeddings", default="senna/models/embeddings")
    p.add_argument("--random", default="runs/table4", help="bench/table4.py's --out")
    a = p.parse_args()
    data, out = Path(a.data).resolve(), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    emb = str(Path(a.embeddings).resolve())
    cmds = {n: command(data, out, n, *r) for n, r in runs(a.epochs, a.srl_epochs, emb).items()}
    if not a.table_only:
        pending = [n for n in cmds if (not a.only or n in a.only.split(","))
                   and result(out, n) is None]
        run_all(cmds, pending, a.jobs, out)
    print(table(out, Path(a.random), cmds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
