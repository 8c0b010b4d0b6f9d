"""The one place integrations read a tagged sentence: words, offsets, tag columns, spans and
SRL frames as plain lists.

Why an adapter: the spaCy component, the AllenNLP writer, corpus shards and the server all
read annotations through these few functions over `senna.document.Sentence`, so a change of
the data model is met here once.  Tags are returned in the scheme the tagger predicts (IOBES
for span tasks and SRL); which tasks are per token and which have spans is the task table's.
"""

from __future__ import annotations

from senna.document import Sentence
from senna.tags import tags_to_spans
from senna.tasks import TASKS


def token_tasks() -> tuple[str, ...]:
    """Tasks with token tags, the user's own among them once their models are loaded."""
    return tuple(t.name for t in TASKS.values() if not t.per_predicate)


def span_tasks() -> tuple[str, ...]:
    return tuple(t.name for t in TASKS.values()
                 if t.scheme == "iobes" and not t.per_predicate and not t.tree)

Span = tuple[str, int, int]


def words(sent: Sentence) -> list[str]:
    """The sentence's tokens as strings."""
    return [t.text for t in sent.tokens]


def offsets(sent: Sentence) -> list[tuple[int | None, int | None]]:
    """(start, end) character offsets of each token in the document text (None if unknown)."""
    return [(t.start, t.end) for t in sent.tokens]


def tags(sent: Sentence, task: str) -> list[str] | None:
    """One tag per token for a token task (pos, chunk, ner, pt0); None if it was not run."""
    spec = TASKS.get(task)
    if spec is None or spec.per_predicate:   # what `token_tasks` lists, without building it
        raise ValueError(f"no token tags for task {task!r}; expected one of {token_tasks()}")
    column = sent.columns.get(task)
    return list(column) if column else None


def spans(sent: Sentence, task: str) -> list[Span]:
    """Labelled spans (label, start, end exclusive) of chunk, ner or pt0; [] if not run."""
    spec = TASKS.get(task)
    if spec is None or spec.scheme != "iobes" or spec.per_predicate or spec.tree:
        raise ValueError(f"no spans for task {task!r}; expected one of {span_tasks()}")
    column = tags(sent, task)
    return tags_to_spans(column) if column else []


def tree(sent: Sentence) -> str | None:
    """The parser's tree (task psg) as a one-line bracket string; None if it was not run."""
    return sent.tree


def frames(sent: Sentence) -> list[tuple[int, list[str]]]:
    """SRL frames: (predicate token index, one role tag per token), in predicate order."""
    return [(p, list(tags)) for p, tags in zip(sent.predicates, sent.roles, strict=True)]


def arguments(role_tags: list[str]) -> list[Span]:
    """A frame's labelled spans (the predicate's own `V` span included)."""
    return tags_to_spans(role_tags)
