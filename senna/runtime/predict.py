"""A model's tags as the runtime gives them: `in_documents` (a window task in documents:
the vote for one type per name, `document_vote`, which training's dev score applies too),
shared by the pipeline and `predict_gold_inputs`, which
runs a model over gold-annotated sentences (their words, input columns, predicates and
documents), as evaluation and the training/runtime agreement test need, and `tag_column`,
which puts a model's tags in such sentences' column (an input column predicted as at
run time)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

from senna.decode.documents import consistent_types
from senna.runtime.model import TaskModel
from senna.tasks import TaskSpec, get_task

Predict = Callable[[list[list[str]], list[Mapping[str, Sequence[str]]]], list[list[str]]]


def in_documents(predict: Predict, task: TaskSpec, words: list[list[str]],
                 columns: list[Mapping[str, Sequence[str]]], docs: Sequence[Hashable] | None,
                 vote: bool = True) -> list[list[str]]:
    """A window task's tags for sentences grouped in documents (`docs`, None: each sentence
    alone): `predict`, then (`vote`, for tasks whose table entry says so) one type per name
    in each document."""
    return document_vote(task, words, predict(words, columns), docs, vote)


def document_vote(task: TaskSpec, words: Sequence[Sequence[str]],
                  tags: list[list[str]], docs: Sequence[Hashable] | None,
                  vote: bool = True) -> list[list[str]]:
    """`tags` (IOBES) with one type per name in each document (`docs`, None: each sentence
    alone), for tasks whose table entry says so and when `vote`; else `tags` as given."""
    return consistent_types(words, tags, docs) if vote and task.document_types else tags


def predict_gold_inputs(model: TaskModel, task: TaskSpec, sentences: Sequence,
                        batch: int = 256, documents: bool = True) -> list[list[str]]:
    """Tags in the model's scheme: per sentence, or per predicate for SRL, as the runtime
    gives them (`in_documents`, the documents being the sentences' `doc` fields).
    `documents` False: no vote for one type per name."""
    out: list[list[str]] = []
    if task.per_predicate:
        for i in range(0, len(sentences), batch):
            part = [s for s in sentences[i : i + batch] if s.predicates and s.words]
            found = iter(model.predict_roles_many([s.words for s in part],
                                                  [s.predicates for s in part],
                                                  [s.columns for s in part]))
            out += [tags for s in sentences[i : i + batch]
                    for tags in (next(found) if s.predicates and s.words else [])]
        return out

    def predict(words: list[list[str]], columns: list) -> list[list[str]]:
        return [t for i in range(0, len(words), batch)
                for t in model.predict(words[i : i + batch], columns[i : i + batch])]

    return in_documents(predict, task, [s.words for s in sentences],
                        [s.columns for s in sentences], [s.doc for s in sentences], documents)


def tag_column(model: TaskModel, sentences: Sequence, column: str) -> None:
    """Replace `column` of each sentence by the model's tags, in place (the model reads the
    sentences' other columns, e.g. those predicted before)."""
    if get_task(column).name != model.task:
        raise ValueError(f"the {column} column needs a {get_task(column).name} model, got a "
                         f"{model.task} model")
    for s, tags in zip(sentences, predict_gold_inputs(model, get_task(model.task), sentences),
                       strict=True):
        s.columns[column] = list(tags)
