"""`senna evaluate`: score a model on a data file, or a prediction file against a gold file,
printing what conlleval / srl-eval print (accuracy for POS; for the parser, psg, evalb's
labelled bracket scores on a file of trees: .gold_conll or bracketed). With --model, the
task, the file format and the files' tag scheme are the model's (--task and --format
override them), and the score is the dev score its training recorded when the file is its
dev file."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from senna.cli.args import Parser, UsageError
from senna.io.formats import WRITABLE
from senna.runtime.ensemble import folder_task, load_tagger
from senna.runtime.parser import BEAM
from senna.scoring.evalb import format_brackets
from senna.scoring.files import data_format, model_task, score_file
from senna.scoring.trees import parse_note, tree_scores
from senna.tasks import LAYOUT, PRESETS, TASKS, TaskSpec, declare, get_task, layout_columns

PROG = "senna evaluate"


def parser() -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description=__doc__)
    p.add_argument("--task", metavar="TASK",
                   help=f"the task (default: the model's; with --pred: needed unless the "
                        f"--format layout names one column of a task of your own): one of "
                        f"{', '.join(TASKS)}, or your own, whose tags are the column of its "
                        f"name in --format columns:... (span F1 when they are spans, else "
                        f"accuracy)")
    p.add_argument("--data", "--gold", dest="gold", required=True,
                   help="gold file in the task's format")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="model directory to run on the gold file's words")
    src.add_argument("--pred", help="predicted file, same format and sentences as the gold")
    p.add_argument("--format", help="reader format (default: the model's training files', "
                                    "else the task's)")
    p.add_argument("--extra-columns", help="file whose tag column the model reads (PT0 for SRL)")
    p.add_argument("--gold-inputs", action="store_true",
                   help="with --model: read the input columns its training predicted (POS "
                        "for PT0 and VBS) from the file, instead of predicting them with the "
                        "models its training used, as training's dev score and the runtime "
                        "do; for the parser, read the file's POS instead of the shipped POS "
                        "tagger's")
    p.add_argument("--psg-beam", type=int, metavar="N",
                   help="with a parser --model: the partial parses it keeps per sentence "
                        f"(default {BEAM}: greedy; more: a beam)")
    p.add_argument("--out", help="with --model: write its predictions here, laid out as the "
                                 "gold file with the tags replaced (in the file's scheme), "
                                 "for another scorer to check (never over an input file)")
    return p


def check_out(out: str | None, inputs: dict[str, str | None]) -> None:
    """UsageError when --out is one of the input files (the same file, through a link or
    another name too): writing the predictions would destroy the gold file."""
    for option, path in inputs.items():
        if not out or not path:
            continue
        try:
            same = os.path.samefile(out, path)
        except OSError:   # --out not there yet (or the input missing: said when read)
            continue
        if same:
            raise UsageError(f"--out {out} is the {option} file {path}: the predictions would "
                             "be written over it; give another file", PROG)


def layout_of(fmt: str | None) -> str:
    """--format columns:word,_,dates -> 'word,_,dates'; '' for a named format."""
    return fmt[len(LAYOUT):] if fmt and fmt.startswith(LAYOUT) else ""


def pred_task(name: str | None, fmt: str | None) -> TaskSpec:
    """The task --pred is scored as: a built-in one (read by the --format layout if given),
    or the user's own, its tags the layout's column of its name (without --task: the one
    column of the layout that no built-in tagger names).  Its scheme is still to be read
    off the gold file (`own_scheme`)."""
    layout = layout_of(fmt)
    if name is None:
        own = [n for n in layout_columns(layout) if n not in ("word", "_")
               and n not in TASKS] if layout else []
        if len(own) != 1:
            raise UsageError("--task is needed with --pred (a model names its own)", PROG)
        name = own[0]
    if get_known(name):
        task = get_task(name)
        return declare(task.name, layout) if layout and task.name in PRESETS else task
    if not layout:
        raise UsageError(f"task {name!r} is not built in ({', '.join(PRESETS)}): name its "
                         f"column in the files' layout, e.g. --format columns:word,{name}",
                         PROG)
    try:
        return declare(name, layout)
    except ValueError as e:
        raise UsageError(str(e), PROG) from None


def get_known(name: str) -> bool:
    """Whether `name` is a task's name or alias (built in, or a loaded model's)."""
    try:
        get_task(name)
    except ValueError:
        return False
    return True


def evaluate_trees(a: argparse.Namespace, task: TaskSpec) -> int:
    """The parser's scores (`tree_scores`), and with a model, how it parsed (on stderr)."""
    sys.stdout.write(format_brackets(tree_scores(task, a.gold, a.model, a.pred,
                                                 a.gold_inputs, a.out, a.psg_beam)))
    if a.model:
        print(f"senna: {parse_note(a.model, a.gold_inputs, a.psg_beam)}", file=sys.stderr)
    return 0


def check_options(a: argparse.Namespace) -> str | None:
    """UsageError for options that do not go together; -> the task named (by --task, else
    the --model folder), None when not known yet."""
    if a.out and not a.model:
        raise UsageError("--out writes a model's predictions: give --model", PROG)
    check_out(a.out, {"--data": a.gold, "--pred": a.pred, "--extra-columns": a.extra_columns})
    if a.gold_inputs and not a.model:
        raise UsageError("--gold-inputs is for a model's input columns: give --model", PROG)
    named = a.task or (folder_task(Path(a.model)) if a.model else None)
    if a.psg_beam is not None and not (a.model and named and get_known(named)
                                          and get_task(named).tree):
        raise UsageError("--psg-beam is for a parser --model", PROG)
    if a.psg_beam is not None and a.psg_beam < 1:
        raise UsageError(f"--psg-beam must be at least 1, got {a.psg_beam}", PROG)
    return named


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    named = check_options(a)
    if named and get_known(named) and get_task(named).tree:
        return evaluate_trees(a, get_task(named))
    # one model, or an ensemble (its first member's record: the same data and settings)
    model = load_tagger(a.model) if a.model else None
    task = model_task(a.task, model, a.model) if model else pred_task(a.task, a.format)
    fmt = data_format(model, task, a.format)
    if a.out and fmt not in WRITABLE and not fmt.startswith(LAYOUT):
        raise UsageError(f"--out writes {', '.join(WRITABLE)} files, not {fmt}", PROG)
    scored = score_file(task, a.gold, fmt, model, a.model or "", a.pred, a.extra_columns,
                        a.gold_inputs, a.out)
    if scored.scheme_note:
        print(scored.scheme_note, file=sys.stderr)
    sys.stdout.write(scored.report.rstrip("\n") + "\n")
    return 0
