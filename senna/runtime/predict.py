"""Run a model over gold-annotated sentences (their words, input columns and predicates):
what evaluation and the training/runtime agreement test need."""

from __future__ import annotations

from collections.abc import Sequence

from senna.decode.documents import consistent_types
from senna.runtime.model import TaskModel
from senna.tasks import TaskSpec


def predict_gold_inputs(model: TaskModel, task: TaskSpec, sentences: Sequence,
                        batch: int = 256, documents: bool = True) -> list[list[str]]:
    """Tags in the model's scheme: per sentence, or per predicate for SRL.  `documents`:
    one type per name in each document (the sentences' `doc` fields), as the runtime
    decodes tasks whose table entry says so (NER)."""
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
    for i in range(0, len(sentences), batch):
        part = sentences[i : i + batch]
        out += model.predict([s.words for s in part], [s.columns for s in part])
    if documents and task.document_types:
        out = consistent_types([s.words for s in sentences], out, [s.doc for s in sentences])
    return out
