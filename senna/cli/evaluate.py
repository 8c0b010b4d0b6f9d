"""`senna evaluate`: score a model on a data file, or a prediction file against a gold file,
printing what conlleval / srl-eval print (accuracy for POS; for the parser, psg, evalb's
labelled bracket scores on a .gold_conll file)."""

from __future__ import annotations

import argparse
import sys

from senna.cli.args import Parser
from senna.io.conll import read_dataset
from senna.scoring import score_predictions
from senna.tasks import TASKS, get_task


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna evaluate", description=__doc__)
    p.add_argument("--task", required=True, choices=sorted(TASKS))
    p.add_argument("--data", "--gold", dest="gold", required=True,
                   help="gold file in the task's format")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="model directory to run on the gold file's words")
    src.add_argument("--pred", help="predicted file, same format and sentences as the gold")
    p.add_argument("--format", help="reader format (default: the task's)")
    p.add_argument("--extra-columns", help="file whose tag column the model reads (PT0 for SRL)")
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


def predicted_from_file(task, gold: list, path: str, fmt: str) -> list[list[str]]:
    pred = read_dataset(path, fmt)
    check_words(gold, pred, path)
    if task.per_predicate:
        from senna.tags import brackets_to_tags
        return [brackets_to_tags(c, "iobes") for s in pred for c in s.roles]
    return [s.columns[task.target] for s in pred]


def tree_report(task, a: argparse.Namespace) -> str:
    """The parser's labelled bracket scores (senna.syntax.score, evalb's COLLINS.prm) on an
    OntoNotes .gold_conll file: the model's trees from the file's words and gold POS, or
    the parse column of a predicted file of the same sentences."""
    from senna.io.conll import read_gold_conll
    from senna.syntax.levels import unchain
    from senna.syntax.score import bracket_scores, format_brackets
    from senna.syntax.tree import conll_to_tree

    gold = read_gold_conll(a.gold)
    if a.pred:
        pred = read_gold_conll(a.pred)
        check_words(gold, pred, a.pred)
        test = [conll_to_tree(s.columns["parse"]) for s in pred]
    else:
        from senna.runtime.ensemble import load_tagger
        model = load_tagger(a.model)
        if model.task != task.name:
            raise ValueError(f"{a.model} holds a {model.task} model, not a {task.name} "
                             f"model: pass --task {model.task}, or a {task.name} model")
        test = [unchain(t) for t in model.parse([s.words for s in gold],
                                                [s.columns for s in gold])]
    score = bracket_scores([conll_to_tree(s.columns["parse"]) for s in gold], test,
                           [s.columns["pos"] for s in gold])
    return format_brackets(score)


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    task = get_task(a.task)
    if task.tree:
        sys.stdout.write(tree_report(task, a))
        return 0
    fmt = a.format or task.fmt
    gold = read_dataset(a.gold, fmt)
    if a.extra_columns:
        from senna.datasets import attach_columns
        attach_columns(gold, a.extra_columns)
    if a.pred:
        predicted = predicted_from_file(task, gold, a.pred, fmt)
    else:
        from senna.runtime.model import TaskModel
        from senna.runtime.predict import predict_gold_inputs
        model = TaskModel.load(a.model)
        if model.task != task.name:
            raise ValueError(f"{a.model} holds a {model.task} model, not a {task.name} model: "
                             f"pass --task {model.task}, or a {task.name} model")
        predicted = predict_gold_inputs(model, task, gold)
    _, report = score_predictions(task, gold, predicted)
    sys.stdout.write(report.rstrip("\n") + "\n")
    return 0
