"""Run a model over gold-annotated sentences (their words, input columns and predicates):
what evaluation and the training/runtime agreement test need."""

from __future__ import annotations

from collections.abc import Sequence

from senna.runtime.model import TaskModel
from senna.tasks import TaskSpec


def predict_gold_inputs(model: TaskModel, task: TaskSpec, sentences: Sequence,
                        batch: int = 256) -> list[list[str]]:
    """Tags in the model's scheme: per sentence, or per predicate for SRL."""
    if task.per_predicate:
        return [tags for s in sentences
                for tags in model.predict_roles(s.words, s.predicates, s.columns)]
    out: list[list[str]] = []
    for i in range(0, len(sentences), batch):
        part = sentences[i : i + batch]
        out += model.predict([s.words for s in part], [s.columns for s in part])
    return out
