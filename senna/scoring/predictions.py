"""Score a task's predictions against gold sentences the way the CoNLL scripts do, and
produce their report text.  Used by training (dev score per epoch) and `senna evaluate`."""

from __future__ import annotations

from collections.abc import Sequence

from senna.schemes import SchemeError, scheme_evidence
from senna.scoring.conlleval import chunk_scores, format_conlleval
from senna.scoring.metrics import accuracy
from senna.scoring.srl_eval import format_srl_eval, srl_scores
from senna.tags import convert, tags_to_brackets
from senna.tasks import TaskSpec


def gold_tags(task: TaskSpec, sentences: Sequence) -> list[list[str]]:
    return [s.columns[task.target] for s in sentences]


def gold_scheme(task: TaskSpec, sentences: Sequence,
                default: str | None = None) -> tuple[str, str]:
    """The tag scheme of a span task's gold sentences as read off their tags (IOB2 data for
    a task whose files are usually IOB1 is IOB2; a few stray tags do not change it), else
    `default` (a model's record), else the task's; and what showed it, for a user to
    check (empty for tasks of labels)."""
    fallback = default or task.source_scheme
    if task.metric != "chunk":
        return fallback, ""
    try:
        evidence = scheme_evidence(gold_tags(task, sentences))
    except SchemeError as e:
        return fallback, f"fit no scheme ({e}): read as {fallback.upper()}"
    if evidence.scheme == "tags":
        return fallback, f"show no span: read as {fallback.upper()}"
    n = evidence.n_offending
    stray = f"; {n} tag{'s' if n > 1 else ''} not fitting it" if n else ""
    return evidence.scheme, f"read as {evidence.describe()}{stray}"


def file_scheme(task: TaskSpec, sentences: Sequence, default: str | None = None) -> str:
    """The scheme of `gold_scheme`, alone."""
    return gold_scheme(task, sentences, default)[0]


def group_roles(sentences: Sequence, predicted: Sequence[Sequence[str]]) -> list[list[list[str]]]:
    """Flat per-predicate tag lists -> bracket columns grouped by sentence."""
    out, k = [], 0
    for s in sentences:
        n = len(s.predicates)
        out.append([tags_to_brackets(p) for p in predicted[k : k + n]])
        k += n
    return out


def score_predictions(task: TaskSpec, sentences: Sequence, predicted: Sequence[Sequence[str]],
                      scheme: str | None = None) -> tuple[dict, str]:
    """predicted: per sentence (per predicate for SRL) tags in any scheme (the network's).
    Token accuracy compares tags in the gold file's scheme (`scheme`; default: read off the
    gold tags, `file_scheme`).  -> ({"score": main metric in %, ...}, report text)."""
    if task.metric == "accuracy":
        acc = 100 * accuracy(gold_tags(task, sentences), predicted)
        n = sum(len(s.words) for s in sentences)
        return {"score": acc}, f"processed {n} tokens; accuracy: {acc:6.2f}%"
    if task.metric == "chunk":
        scheme = scheme or file_scheme(task, sentences)    # once: it reads every gold tag
        pred = [convert(p, scheme) for p in predicted]
        r = chunk_scores(gold_tags(task, sentences), pred)
        return ({"score": r.f1, "precision": r.precision, "recall": r.recall},
                format_conlleval(r))
    r = srl_scores([s.roles for s in sentences], group_roles(sentences, predicted))
    return {"score": r.f1, "precision": r.precision, "recall": r.recall}, format_srl_eval(r)
