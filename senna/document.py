"""The one data model: a sentence of words with named tag columns and predicate frames.

Readers, features, training, the runtime and the writers all pass the same `Sentence`:

* `words` and, when they come from raw text, `tokens` (the same words with character
  offsets into `source`);
* `columns`: named per-word columns -- gold or predicted task tags (`pos`, `chunk`, `ner`,
  `pt0`) and any other column a file carries (`parse`, `lemma`, CoNLL-U fields, ...);
* the parser's column (`psg`) holds its tree as CoNLL parse cells (`(TOP(S(NP*`, `*)`),
  read as one bracket string by `tree`;
* `predicates` (token indices) and `roles`, one tag column per predicate (bracket cells as
  read from CoNLL-2005 files, IOBES as the tagger predicts: `tags_to_spans` reads both).

Spans are read off the tags on demand (`spans`, `frames`) with `senna.tags.tags_to_spans`, so
they match what the CoNLL scorers count.  Which task fills which column, and under which
name its spans appear in JSON, is the task table's business (`senna.tasks`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from senna.syntax.tree import column_to_brackets
from senna.tags import RoleTags, tags_to_spans
from senna.tasks import TASKS, TaskSpec, get_task
from senna.text.tokenize import Token

__all__ = ["Document", "Frame", "Sentence", "Span", "Token", "frame_dict"]


@dataclass(frozen=True)
class Span:
    """Tokens [start, end) (end exclusive) labelled `label`; `text` is their surface."""

    label: str
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Frame:
    """One predicate: its token index and word, its arguments (the V span included) and the
    per-token role tags they come from."""

    index: int
    word: str
    arguments: list[Span]
    tags: Sequence[str]   # a list, or a RoleTags column for a window of a long sentence


@dataclass
class Sentence:
    words: list[str]
    columns: dict[str, list[str]] = field(default_factory=dict)
    predicates: list[int] = field(default_factory=list)
    roles: list[list[str]] = field(default_factory=list)
    doc: int = 0                      # document index (CoNLL-2003 -DOCSTART- blocks)
    tokens: Sequence[Token] | None = None  # the words with offsets into `source`, if known
    source: str | None = None

    def __post_init__(self) -> None:
        if self.tokens is None:
            self.tokens = list(map(Token, self.words))

    @classmethod
    def from_tokens(cls, tokens: Sequence[Token], source: str | None = None) -> Sentence:
        return cls([t.text for t in tokens], tokens=list(tokens), source=source)

    def span_text(self, start: int, end: int) -> str:
        """The source slice when offsets and source are known, else the words joined."""
        first, last = self.tokens[start], self.tokens[end - 1]
        if self.source is not None and first.start is not None and last.end is not None:
            return self.source[first.start : last.end]
        return " ".join(self.words[start:end])

    def tag_spans(self, tags: Sequence[str]) -> list[Span]:
        """Labelled spans of one tag column (any scheme conlleval reads)."""
        return [Span(label, s, e, self.span_text(s, e)) for label, s, e in tags_to_spans(tags)]

    def spans(self, column: str) -> list[Span]:
        """Spans of a tag column (`chunk`, `ner`, `pt0`); [] when the column is absent."""
        return self.tag_spans(self.columns[column]) if column in self.columns else []

    @property
    def tree(self) -> str | None:
        """The parser's tree (task psg) as a one-line bracket string, each word under its
        POS tag (`XX` without a POS column); None when the parser was not run.  Words are
        escaped as the Penn Treebank does (`(` is `-LRB-`; a backslash or a space inside a
        word `\\uXXXX`: senna.syntax.tree.escape_word), so each word is one leaf, and
        `brackets_to_tree` reads back exactly the sentence's words."""
        task = next((t for t in TASKS.values() if t.tree and t.name in self.columns), None)
        if task is None:
            return None
        tags = self.columns.get("pos") or ["XX"] * len(self.words)
        return column_to_brackets(self.columns[task.name], self.words, tags)

    def nltk_tree(self):
        """The parser's tree as an `nltk.Tree` (NLTK reads the bracket string of `tree`):
        one leaf per word, escaped as the Penn Treebank does (`(` and `)` are the leaves
        `-LRB-` and `-RRB-`; senna.syntax.tree.unescape_word(leaf) is the word); None when
        the parser was not run."""
        text = self.tree
        if text is None:
            return None
        try:
            from nltk import Tree
        except ImportError:
            raise ImportError("Sentence.nltk_tree needs NLTK: pip install nltk") from None
        return Tree.fromstring(text)

    @property
    def frames(self) -> list[Frame]:
        return [Frame(p, self.words[p], self.tag_spans(tags),
                      tags if isinstance(tags, RoleTags) else list(tags))
                for p, tags in zip(self.predicates, self.roles, strict=True)]

    def to_dict(self, tasks: Collection[str] | None = None, frames: bool = True) -> dict:
        """JSON-ready: tokens with one field per tag task, the span fields the task table
        names, and the predicate frames (last: `frame_dict` each; `frames=False` leaves
        them out, for writers that stream them).  `tasks` (names, aliases allowed): only
        those tasks' fields, as `--format json` prints them; None: every tag column the
        sentence has, and the frames.  A task asked for but not run gets None fields."""
        wanted = _wanted_tasks(self.columns, tasks)
        token_tasks = [t for t in wanted if not t.per_predicate]
        tokens = []
        for i, tok in enumerate(self.tokens):
            d = tok._asdict()
            for t in token_tasks:
                d[t.name] = self.columns[t.name][i] if t.name in self.columns else None
            tokens.append(d)
        out: dict = {"tokens": tokens}
        for t in token_tasks:
            if t.span_field:
                out[t.span_field] = [vars(s) for s in self.spans(t.name)]
            if t.tree:
                out["tree"] = self.tree
        if frames and any(t.per_predicate for t in wanted):
            out["predicates"] = [frame_dict(f) for f in self.frames]
        return out

    def has_frames(self, tasks: Collection[str] | None = None) -> bool:
        """Whether `to_dict(tasks)` has a "predicates" field."""
        return any(t.per_predicate for t in _wanted_tasks(self.columns, tasks))


def frame_dict(frame: Frame) -> dict:
    """One predicate frame, JSON-ready: its index, word, arguments and role tags."""
    return {"index": frame.index, "word": frame.word,
            "arguments": [vars(a) for a in frame.arguments], "tags": list(frame.tags)}


def _wanted_tasks(columns: Mapping[str, list[str]],
                  tasks: Collection[str] | None) -> list[TaskSpec]:
    """The tasks `to_dict` writes, in the task table's order: those named, else those
    whose column is present plus the per-predicate ones."""
    if tasks is None:
        return [t for t in TASKS.values() if t.name in columns or t.per_predicate]
    names = {get_task(n).name for n in tasks}
    return [t for t in TASKS.values() if t.name in names]


@dataclass
class Document:
    """The input text (offsets index it) and its tagged sentences."""

    text: str
    sentences: list[Sentence] = field(default_factory=list)

    @property
    def tokens(self) -> list[Token]:
        return [t for s in self.sentences for t in s.tokens]

    def to_dict(self, tasks: Collection[str] | None = None) -> dict:
        """Plain JSON-ready data (one object per document); `tasks` as `Sentence.to_dict`."""
        return {"text": self.text, "sentences": [s.to_dict(tasks) for s in self.sentences]}
