"""A model, or a file of predictions, scored on a gold data file: what `senna evaluate`
prints (conlleval's report, srl-eval's, or accuracy), with the model's input columns
predicted as its training predicted them, and its predictions written out on request."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from senna.datasets import attach_columns, read_task_file
from senna.io.conll import has_docstart
from senna.io.formats import write_dataset
from senna.io.lines import DataFormatError
from senna.runtime.model import TaskModel
from senna.runtime.predict import predict_gold_inputs
from senna.schemes import SchemeError, scheme_evidence
from senna.scoring.inputs import predict_inputs, recorded_inputs
from senna.scoring.predictions import gold_scheme, group_roles, score_predictions
from senna.tags import brackets_to_tags, convert
from senna.tasks import LAYOUT, PRESETS, TASKS, TaskSpec, get_task, with_scheme


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


def written(out: str, write) -> None:
    """Call `write()`, an OSError naming `out` (a full disk says which file it was)."""
    try:
        write()
    except OSError as e:
        raise OSError(f"{out}: cannot write the predictions: {e.strerror or e}") from None


def model_task(given: str | None, model: TaskModel, path: str) -> TaskSpec:
    """The model's task; a task given that names another is an error (its model would be
    scored against the wrong column)."""
    task = get_task(given or model.task)
    if model.task != task.name:
        raise ValueError(f"{path} holds a {model.task} model, not a {task.name} model: "
                         f"pass --task {model.task}, or a {task.name} model")
    return task


def data_format(model: TaskModel | None, task: TaskSpec, given: str | None) -> str:
    """The gold file's format: the one given, else that of the model's training files
    (its format, or its named column layout), else the task's."""
    settings = model.saved.info.get("training", {}).get("config", {}) if model else {}
    return given or settings.get("format") or \
        (LAYOUT + settings["columns"] if settings.get("columns") else task.fmt)


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


def predicted_from_file(task: TaskSpec, gold: list, path: str, fmt: str) -> list[list[str]]:
    """The tags of a file of predictions of the gold file's sentences: per sentence, or per
    predicate (IOBES) for SRL."""
    pred = read_task_file(path, fmt, task)
    check_words(gold, pred, path)
    check_target(task, pred, path, fmt)
    if task.per_predicate:
        return [brackets_to_tags(c, "iobes") for s in pred for c in s.roles]
    return [s.columns[task.target] for s in pred]


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


@dataclass(frozen=True)
class FileScore:
    """A scored file: the scores (`score`: the task's main one, in percent), the report the
    CoNLL script prints, and how the gold tags' scheme was read ("" when not read)."""

    scores: dict
    report: str
    scheme_note: str


def score_file(task: TaskSpec, gold_path: str, fmt: str, model: TaskModel | None = None,
               model_path: str = "", pred_path: str | None = None,
               extra_columns: str | None = None, gold_inputs: bool = False,
               out: str | None = None) -> FileScore:
    """`model` (loaded from `model_path`), or the predictions in `pred_path`, scored on the
    gold file as training scored its dev set: the model's input columns predicted by the
    models its training used (the file's own with `gold_inputs`), the vote for one type
    per name in each document, tags compared in the gold file's scheme.  `extra_columns`:
    a file whose tag column the model reads (PT0 for SRL); `out`: the model's predictions
    written there, laid out as the gold file."""
    gold = read_task_file(gold_path, fmt, task)
    check_target(task, gold, gold_path, fmt)
    task = own_scheme(task, gold, gold_path)
    names = list(gold[0].columns) if gold else []
    if extra_columns:
        attach_columns(gold, extra_columns)
    if model is None:
        predicted = predicted_from_file(task, gold, pred_path or "", fmt)
    else:
        inputs = gold if gold_inputs else predict_inputs(recorded_inputs(model), gold,
                                                         model_path)
        predicted = predict_gold_inputs(model, task, inputs)
    scheme, why = gold_scheme(task, gold, model.saved.info.get("source_scheme")
                              if model else None)
    scores, report = score_predictions(task, gold, predicted, scheme)
    if out:
        written(out, lambda: write_predictions(task, gold, predicted, fmt, scheme, names,
                                               gold_path, out))
    return FileScore(scores, report, f"{gold_path}: gold tags {why}" if why else "")
