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
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from senna.cli.args import Parser, UsageError
from senna.io.conll import has_docstart
from senna.io.formats import WRITABLE, write_dataset
from senna.io.lines import DataFormatError
from senna.runtime.ensemble import folder_task
from senna.runtime.parser import BEAM
from senna.scoring import gold_scheme, group_roles, score_predictions
from senna.tags import SchemeError, convert, scheme_evidence
from senna.tasks import (
    LAYOUT,
    PRESETS,
    TASKS,
    TaskSpec,
    declare,
    get_task,
    layout_columns,
    with_scheme,
)

PROG = "senna evaluate"


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna evaluate", description=__doc__)
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


def check_words(gold: list, pred: list, path: str) -> None:
    """ValueError unless the prediction file tags the gold file's words: scores of other
    sentences would mean nothing."""
    if len(pred) != len(gold):
        raise ValueError(f"{path}: {len(pred)} sentences, the gold file has {len(gold)}")
    for i, (g, p) in enumerate(zip(gold, pred, strict=True)):
        if g.words != p.words:
            if len(g.words) != len(p.words):
                raise ValueError(f"{path}: sentence {i + 1} has {len(p.words)} tokens, the "
                                 f"gold file's has {len(g.words)}")
            j = next(j for j, (a, b) in enumerate(zip(g.words, p.words, strict=True))
                     if a != b)
            raise ValueError(f"{path}: sentence {i + 1}, token {j + 1} is {p.words[j]!r}, the "
                             f"gold file has {g.words[j]!r}")


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


def written(out: str, write) -> None:
    """Call `write()`, an OSError naming `out` (a full disk says which file it was)."""
    try:
        write()
    except OSError as e:
        raise OSError(f"{out}: cannot write the predictions: {e.strerror or e}") from None


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


def own_scheme(task: TaskSpec, gold: list, path: str) -> TaskSpec:
    """A user's task with the scheme its gold tags show: spans (scored by span F1) or plain
    labels (accuracy).  A built-in task as it is."""
    if task.name in PRESETS or task.source_scheme:
        return task
    try:
        evidence = scheme_evidence([s.columns[task.target] for s in gold])
    except SchemeError as e:
        raise DataFormatError(f"the {task.name} tags fit no scheme: {e}", path) from None
    return with_scheme(task, evidence.scheme)


def check_target(task: TaskSpec, sentences: list, path: str, fmt: str) -> None:
    """ValueError unless the file has the task's tag column (a layout may name others)."""
    if task.per_predicate or not sentences or task.target in sentences[0].columns:
        return
    has = [c for c in sentences[0].columns if not c.startswith("_")]
    own = [c for c in has if c not in TASKS]
    hint = (f"; to score the {own[0]} column as a task of your own, pass --task {own[0]}"
            if own else "")
    raise ValueError(f"{path}: read as {fmt}, the file has no {task.target} column to score "
                     f"(its columns: words{''.join(', ' + c for c in has)}){hint}")


def predicted_from_file(task, gold: list, path: str, fmt: str) -> list[list[str]]:
    from senna.datasets import read_task_file

    pred = read_task_file(path, fmt, task)
    check_words(gold, pred, path)
    check_target(task, pred, path, fmt)
    if task.per_predicate:
        from senna.tags import brackets_to_tags
        return [brackets_to_tags(c, "iobes") for s in pred for c in s.roles]
    return [s.columns[task.target] for s in pred]


def model_task(given: str | None, model, path: str) -> TaskSpec:
    """The model's task; a --task naming another is an error (its model would be scored
    against the wrong column)."""
    task = get_task(given or model.task)
    if model.task != task.name:
        raise ValueError(f"{path} holds a {model.task} model, not a {task.name} model: "
                         f"pass --task {model.task}, or a {task.name} model")
    return task


def predict_inputs(spec: list[tuple[str, str]], sentences: list, model_path: str) -> list:
    """Copies of the sentences whose input columns `spec` names (column, model directory:
    those the model's training predicted) are tagged by those models, as training scored its
    dev set; ValueError naming --gold-inputs when such a model is not found."""
    from senna.datasets import beside_package, tag_column
    from senna.runtime.ensemble import load_tagger

    if not spec:
        return sentences
    out = [replace(s, columns=dict(s.columns)) for s in sentences]
    for column, path in spec:
        found = beside_package(path)
        if not found.is_dir() or folder_task(found) is None:
            raise ValueError(f"{model_path} reads {column} tags predicted by {path}, which "
                             f"is not found: give that model there, or pass --gold-inputs "
                             f"to read the file's {column} column")
        tag_column(load_tagger(found), out, column)
    return out


def write_predictions(task: TaskSpec, gold: list, predicted: list, fmt: str, scheme: str,
                      names: list[str], gold_path: str, out: str) -> None:
    """The gold sentences with their tags replaced by `predicted` (the network's scheme),
    in `scheme`, written in the gold file's format and columns."""
    if task.per_predicate:
        rows = [replace(s, roles=cols) for s, cols in zip(gold, group_roles(gold, predicted),
                                                         strict=True)]
    else:
        rows = [replace(s, columns={**s.columns, task.target:
                                    convert(p, scheme) if task.metric == "chunk" else list(p)})
                for s, p in zip(gold, predicted, strict=True)]
    lines = Path(gold_path).read_text(encoding="utf-8-sig", errors="replace").split("\n")
    write_dataset(rows, out, fmt, names, docstart=has_docstart(lines))


def runtime_inputs(model, task: TaskSpec, sentences: list, model_path: str) -> list:
    """Copies of the sentences with the columns of the tasks `task` requires (POS for the
    parser) predicted as the runtime predicts them: by the models the model's training
    named (`predicted_columns`), else by the shipped models."""
    from senna.datasets import parse_spec
    from senna.runtime.pipeline import default_model_dir

    config = model.saved.info.get("training", {}).get("config", {})
    spec = dict(parse_spec(config.get("predicted_columns")))
    for column in task.requires:
        spec.setdefault(column, str(default_model_dir() / column))
    return predict_inputs(list(spec.items()), sentences, model_path)


def write_parse_column(gold_path: str, gold: Sequence, trees: Sequence, out: str) -> None:
    """A `.gold_conll` file written again, line for line, with each sentence's parse cells
    (its sixth column) those of `trees` (one per sentence, in order); a file of bracketed
    trees (`gold`: its sentences) written as one bracketed tree a line."""
    from senna.io.treebank import bracketed
    from senna.syntax.tree import tree_to_brackets, tree_to_conll

    if bracketed(gold_path):
        with open(out, "w", encoding="utf-8") as f:
            for tree, s in zip(trees, gold, strict=True):
                f.write(tree_to_brackets(tree, s.words, s.columns["pos"]) + "\n")
        return
    cells = iter([c for tree in trees for c in tree_to_conll(tree)])
    lines = Path(gold_path).read_text(encoding="utf-8").splitlines()
    with open(out, "w", encoding="utf-8") as f:
        for line in lines:
            if line.strip():
                fields = line.split("\t")
                fields[5] = next(cells)
                line = "\t".join(fields)
            f.write(line + "\n")


def tree_scores(task: TaskSpec, gold_path: str, model: str | None = None,
                pred: str | None = None, gold_inputs: bool = False, out: str | None = None,
                beam: int | None = None):
    """The parser's labelled bracket scores (senna.syntax.score, evalb's COLLINS.prm) on a file of
    trees (`read_treebank`: OntoNotes .gold_conll or bracketed): the trees of `model` from
    the file's words, or those of `pred`, a predicted file of the same sentences. The POS
    tags the model reads are predicted as at run time (by the models its training predicted
    them with, else the shipped POS tagger), or the file's with `gold_inputs`; a parser
    whose first level keeps the PT0 tagger's phrases gets them from its own PT0 tagger if it
    has one, else from the shipped one, reading those POS. `out`: the gold file written
    again with the model's trees in its parse column (a file `pred` can score).  `beam`:
    the partial parses the parser keeps per sentence (default its own)."""
    from senna.io.treebank import read_treebank
    from senna.syntax.levels import unchain
    from senna.syntax.score import bracket_scores
    from senna.syntax.tree import conll_to_tree

    gold = read_treebank(gold_path)
    if pred:
        predicted = read_treebank(pred)
        check_words(gold, predicted, pred)
        test = [conll_to_tree(s.columns["parse"]) for s in predicted]
    else:
        from senna.runtime.ensemble import load_tagger
        parser = load_tagger(model)
        model_task(task.name, parser, model)
        if beam is not None:
            parser.beam = beam
        inputs = gold if gold_inputs else runtime_inputs(parser, task, gold, model)
        if parser.first_level and parser.first_tagger is None:
            from senna.runtime.pipeline import default_model_dir
            inputs = predict_inputs([(parser.first_level,
                                      str(default_model_dir() / parser.first_level))],
                                    inputs, model)
        test = [unchain(t) for t in parser.parse([s.words for s in inputs],
                                                 [s.columns for s in inputs])]
        if out:
            written(out, lambda: write_parse_column(gold_path, gold, test, out))
    return bracket_scores([conll_to_tree(s.columns["parse"]) for s in gold], test,
                          [s.columns["pos"] for s in gold])


def evaluate_trees(a: argparse.Namespace, task: TaskSpec) -> int:
    """The parser's scores (`tree_scores`), and with a model, how it parsed (on stderr)."""
    from senna.syntax.score import format_brackets
    sys.stdout.write(format_brackets(tree_scores(task, a.gold, a.model, a.pred,
                                                 a.gold_inputs, a.out, a.psg_beam)))
    if a.model:
        from senna.io.checkpoint import read_config
        from senna.runtime.parser import own_first_level, own_flattened
        first = read_config(Path(a.model)).get("first_level")
        whose = "parser's own" if own_first_level(a.model, first) else "shipped"
        beam = a.psg_beam or BEAM
        print(f"senna: parsed from {'the file' if a.gold_inputs else 'predicted'} POS tags"
              + ("" if a.gold_inputs else " (as at run time; --gold-inputs: the file's)")
              + (f", the first level keeping the phrases of the {whose} {first.upper()} "
                 "tagger" if first else "")
              + "".join(f", {label} nodes put back by its own tagger"
                        for label, _ in own_flattened(a.model))
              + f", {beam} partial parse{'s' if beam > 1 else ''} kept per sentence "
              "(--psg-beam)", file=sys.stderr)
    return 0


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    if a.out and not a.model:
        raise UsageError("--out writes a model's predictions: give --model", "senna evaluate")
    check_out(a.out, {"--data": a.gold, "--pred": a.pred, "--extra-columns": a.extra_columns})
    if a.gold_inputs and not a.model:
        raise UsageError("--gold-inputs is for a model's input columns: give --model",
                         "senna evaluate")
    named = a.task or (folder_task(Path(a.model)) if a.model else None)
    if a.psg_beam is not None and not (a.model and named and get_known(named)
                                          and get_task(named).tree):
        raise UsageError("--psg-beam is for a parser --model", "senna evaluate")
    if a.psg_beam is not None and a.psg_beam < 1:
        raise UsageError(f"--psg-beam must be at least 1, got {a.psg_beam}", "senna evaluate")
    if named and get_known(named) and get_task(named).tree:
        return evaluate_trees(a, get_task(named))
    model, recorded = None, {}
    if a.model:
        from senna.runtime.ensemble import load_tagger
        model = load_tagger(a.model)      # one model, or an ensemble (its first member's
        recorded = model.saved.info       # record: the same data and settings)
        task = model_task(a.task, model, a.model)
    else:
        task = pred_task(a.task, a.format)
    settings = recorded.get("training", {}).get("config", {})
    fmt = a.format or settings.get("format") or \
        (LAYOUT + settings["columns"] if settings.get("columns") else task.fmt)
    if a.out and fmt not in WRITABLE and not fmt.startswith(LAYOUT):
        raise UsageError(f"--out writes {', '.join(WRITABLE)} files, not {fmt}",
                         "senna evaluate")
    from senna.datasets import read_task_file
    gold = read_task_file(a.gold, fmt, task)
    check_target(task, gold, a.gold, fmt)
    task = own_scheme(task, gold, a.gold)
    names = list(gold[0].columns)
    if a.extra_columns:
        from senna.datasets import attach_columns
        attach_columns(gold, a.extra_columns)
    if model is None:
        predicted = predicted_from_file(task, gold, a.pred, fmt)
    else:
        from senna.datasets import parse_spec
        from senna.runtime.predict import predict_gold_inputs
        inputs = gold if a.gold_inputs else \
            predict_inputs(parse_spec(settings.get("predicted_columns")), gold, a.model)
        predicted = predict_gold_inputs(model, task, inputs)
    scheme, why = gold_scheme(task, gold, recorded.get("source_scheme"))
    if why:
        print(f"{a.gold}: gold tags {why}", file=sys.stderr)
    _, report = score_predictions(task, gold, predicted, scheme)
    if a.out:
        written(a.out, lambda: write_predictions(task, gold, predicted, fmt, scheme, names,
                                                 a.gold, a.out))
    sys.stdout.write(report.rstrip("\n") + "\n")
    return 0
