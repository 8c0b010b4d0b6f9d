"""`senna evaluate`: score a model on a data file, or a prediction file against a gold file,
printing what conlleval / srl-eval print (accuracy for POS)."""

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


def predicted_from_file(task, gold: list, path: str, fmt: str) -> list[list[str]]:
    pred = read_dataset(path, fmt)
    if len(pred) != len(gold):
        raise ValueError(f"{path}: {len(pred)} sentences, the gold file has {len(gold)}")
    if task.metric == "srl":
        from senna.tags import brackets_to_tags
        return [brackets_to_tags(c, "iobes") for s in pred for c in s.args]
    return [s.columns[task.target] for s in pred]


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    task = get_task(a.task)
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
        predicted = predict_gold_inputs(TaskModel.load(a.model), task, gold)
    _, report = score_predictions(task, gold, predicted)
    sys.stdout.write(report.rstrip("\n") + "\n")
    return 0
