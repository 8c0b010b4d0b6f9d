"""What the tagger returns: documents of sentences of tokens, with spans read off the tags.

Tags are kept in the scheme the networks predict (IOBES for CHUNK, NER, PT0 and SRL; plain
tags for POS); output writers convert them.  Spans (chunks, entities, SRL arguments) are
derived with `senna.tags.tags_to_spans`, so they match what the CoNLL scorers count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from senna.tags import RoleTags, tags_to_spans

TOKEN_TASKS = ("pos", "chunk", "ner", "pt0")


@dataclass(slots=True)
class Token:
    """A word, its character offsets in the source text, and one tag per task (None when
    the task was not run); offsets are None for input given as bare words."""

    text: str
    start: int | None = None
    end: int | None = None
    pos: str | None = None
    chunk: str | None = None
    ner: str | None = None
    pt0: str | None = None


@dataclass
class Span:
    """Tokens [start, end) (end exclusive) labelled `label`; `text` is their surface."""

    label: str
    start: int
    end: int
    text: str


@dataclass
class Predicate:
    """One SRL predicate: its token index, its arguments (the V span included) and the
    per-token role tags they come from."""

    index: int
    word: str
    arguments: list[Span] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)


@dataclass
class Sentence:
    tokens: list[Token]
    chunks: list[Span] = field(default_factory=list)
    entities: list[Span] = field(default_factory=list)
    predicates: list[Predicate] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        return [t.text for t in self.tokens]

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Document:
    """The input text (offsets index it) and its tagged sentences."""

    text: str
    sentences: list[Sentence] = field(default_factory=list)

    @property
    def tokens(self) -> list[Token]:
        return [t for s in self.sentences for t in s.tokens]

    def to_dict(self) -> dict:
        """Plain JSON-ready data (one object per document)."""
        return {"text": self.text, "sentences": [s.to_dict() for s in self.sentences]}


def span_text(tokens: Sequence[Token], start: int, end: int, source: str | None = None) -> str:
    """The source slice when offsets and source are known, else the words joined by spaces."""
    first, last = tokens[start], tokens[end - 1]
    if source is not None and first.start is not None and last.end is not None:
        return source[first.start : last.end]
    return " ".join(t.text for t in tokens[start:end])


def spans(tokens: Sequence[Token], tags: Sequence[str], source: str | None = None) -> list[Span]:
    """Labelled spans of one tag column (any scheme conlleval reads)."""
    return [Span(label, s, e, span_text(tokens, s, e, source))
            for label, s, e in tags_to_spans(tags)]


def build_sentence(tokens: list[Token], columns: Mapping[str, Sequence[str]],
                   roles: Mapping[int, Sequence[str]] | None = None,
                   source: str | None = None) -> Sentence:
    """Attach task columns (`pos`, `chunk`, `ner`, `pt0`) and SRL role columns (predicate
    index -> tags) to tokens, and read the spans off them."""
    for task in TOKEN_TASKS:
        if task in columns:
            for tok, tag in zip(tokens, columns[task], strict=True):
                setattr(tok, task, tag)
    sent = Sentence(tokens)
    if "chunk" in columns:
        sent.chunks = spans(tokens, columns["chunk"], source)
    if "ner" in columns:
        sent.entities = spans(tokens, columns["ner"], source)
    for p, tags in sorted((roles or {}).items()):
        sent.predicates.append(Predicate(p, tokens[p].text, spans(tokens, tags, source),
                                         tags if isinstance(tags, RoleTags) else list(tags)))
    return sent
