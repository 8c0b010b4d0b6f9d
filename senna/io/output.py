"""Writers for tagged documents: SENNA v3.0's column layout, CoNLL, CoNLL-U and JSON lines.

`senna` (SENNA v3.0's `printf` layout, reproduced approximately): one token per line and a
blank line after each sentence; the token right-aligned to 15 characters (`%15s`), then one
tab-separated column per requested task in the order POS, CHK, NER, PT0 (tags right-aligned
to 10, `%10s`), then for SRL the predicate column (the word, or `-`, `%15s`) and one role
column per predicate.  `offsets` adds `(start end)` after the token (character offsets into
the input line).  Columns are joined by tabs, so with `tokens=False` a line starts with the
first tag (no leading tab).  Longer fields are never truncated.

A sentence longer than senna.text.pieces.MAX_WORDS words is written as the pieces the
tagger tagged it in (`output_sentences`), each a sentence of its own, in every format: a
sentence's role columns run over all its words, so one long sentence written whole would
take words x predicates fields.  Output comes in chunks of a bounded size
(`iter_formatted`), for writers that stream.

Tag schemes (CHK, NER, PT0, SRL; POS is unchanged): "iobes" (default, as SENNA),
"iob" (IOB2, SENNA's -iobtags) or "brackets" (SENNA's -brackettags: `(NP*`, `*`, `*)`).
`conll` uses the same columns tab-separated without padding; `conllu` puts POS in XPOS and
the other tags in MISC (not the parser's tree); `json` writes `Document.to_dict(tasks)`
(IOBES tags and spans of the requested tasks, the parser's tree) per line.  The parser's
column (PSG) is its tree's CoNLL parse cells in every scheme.
"""

from __future__ import annotations

import io
import json
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain, repeat
from typing import BinaryIO, TextIO

from senna.document import Document, Sentence, Token
from senna.integrations.allennlp import write_allennlp
from senna.tags import RoleTags, convert, tags_to_brackets
from senna.tasks import DEFAULT_TASKS, TASKS
from senna.text.invisible import INVISIBLE_CHARS, visible
from senna.text.pieces import MAX_WORDS, piece_bounds, token_groups

SCHEMES = ("iobes", "iob", "brackets")
def column_tasks() -> tuple[str, ...]:
    """Tasks with a tag column, the user's own among them once their models are loaded."""
    return tuple(t.name for t in TASKS.values() if not t.per_predicate)


def role_tasks() -> tuple[str, ...]:
    return tuple(t.name for t in TASKS.values() if t.per_predicate)
FORMATS = ("senna", "conll", "conllu", "json", "allennlp")
# What json.dumps(ensure_ascii=False) leaves raw but a terminal or a line splitter acts on:
# line breaks (U+0085, U+2028, U+2029) and invisible characters (C1 controls, DEL, bidi
# and zero-width characters); escaped as \uXXXX, so the parsed JSON is unchanged.
_JSON_ESCAPE = re.compile(f"[\x85\u2028\u2029{INVISIBLE_CHARS}]")
CHUNK_LINES = 8192   # token lines per chunk of column-format output (about 1 MB)


@dataclass(frozen=True)
class OutputOptions:
    """Which columns to write and how (the CLI's -pos/-chk/..., -iobtags, -brackettags,
    -notokentags, -offsettags)."""

    tasks: tuple[str, ...] = DEFAULT_TASKS
    scheme: str = "iobes"
    tokens: bool = True
    offsets: bool = False

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise ValueError(f"tag scheme must be one of {SCHEMES}, got {self.scheme!r}")


def recode(tags: Sequence[str], scheme: str) -> list[str]:
    """IOBES tags -> the output scheme."""
    if scheme == "iob":
        return convert(tags, "iob2")
    if scheme == "brackets":
        return tags_to_brackets(tags)
    return list(tags)


def _task_column(sent: Sentence, task: str, scheme: str) -> Sequence[str]:
    """One task's tags in the output scheme; `-` where the task was not run."""
    tags = sent.columns.get(task)
    if tags is None:
        return ["-"] * len(sent.words)
    spec = TASKS[task]
    return tags if spec.scheme == "tags" or spec.tree or scheme == "iobes" \
        else recode(tags, scheme)


def _offset(start: int | None, end: int | None) -> str:
    return f"({'-' if start is None else start} {'-' if end is None else end})"


def _columns(sents: Sequence[Sentence], opts: OutputOptions) -> list[Iterable[str]]:
    """Output columns of sentences laid end to end (one field per token), role columns
    aside: the token (its text is the word: `Sentence`), its offsets and one column per
    requested tag task."""
    cols: list[Iterable[str]] = []
    if opts.tokens:
        cols.append(chain.from_iterable(s.words for s in sents))
    if opts.offsets:
        cols.append([_offset(t.start, t.end) for t in chain.from_iterable(
            s.tokens for s in sents)])
    for task in column_tasks():
        if task in opts.tasks:
            cols.append(chain.from_iterable(map(_task_column, sents, repeat(task),
                                                repeat(opts.scheme))))
    return cols


def sentence_columns(sent: Sentence, opts: OutputOptions) -> list[list[str]]:
    """Output columns of one sentence, each a list of one field per token."""
    cols = [list(c) for c in _columns([sent], opts)]
    if any(t in opts.tasks for t in role_tasks()):
        preds = set(sent.predicates)
        cols.append([w if i in preds else "-" for i, w in enumerate(sent.words)])
        cols += [recode(tags, opts.scheme) for tags in sent.roles]
    return cols


class _TokenSlice(Sequence[Token]):
    """Tokens [start, end) of a sentence's tokens, read only when needed: the column
    formats read only the words, so tokens made when first read (`SpacedTokens`) are
    not all made for a long sentence written in pieces."""

    __slots__ = ("end", "start", "tokens")

    def __init__(self, tokens: Sequence[Token], start: int, end: int):
        self.tokens, self.start, self.end = tokens, start, end

    def __len__(self) -> int:
        return self.end - self.start

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self.tokens[self.start + j] for j in range(*i.indices(len(self)))]
        return self.tokens[self.start + range(len(self))[i]]


def _piece(sent: Sentence, start: int, end: int) -> Sentence:
    """Words [start, end) of a sentence as a sentence, with the predicates among them."""
    frames = [(p, r) for p, r in zip(sent.predicates, sent.roles, strict=True)
              if start <= p < end]
    tokens = _TokenSlice(sent.tokens, start, end) if sent.tokens is not None else None
    return Sentence(sent.words[start:end], {k: v[start:end] for k, v in sent.columns.items()},
                    [p - start for p, _ in frames], [list(r[start:end]) for _, r in frames],
                    sent.doc, tokens, sent.source)


def _confined(tags: Sequence[str], start: int, end: int) -> bool:
    """Whether a role column is O outside words [start, end)."""
    if isinstance(tags, RoleTags):
        return start <= tags.start and tags.start + len(tags.tags) <= end
    return (list(tags[:start]).count("O") == start
            and list(tags[end:]).count("O") == len(tags) - end)


def output_sentences(sent: Sentence) -> Iterator[Sentence]:
    """The sentences a sentence is written as: its pieces (`piece_bounds`) when it is longer
    than MAX_WORDS, else itself.  One whose role columns reach outside their predicate's
    piece (tagged with a larger `Pipeline.max_words`, or read from a file) stays whole, so
    that nothing is lost.  The pieces are made as they are read."""
    if len(sent.words) <= MAX_WORDS:
        return iter([sent])
    cuts = piece_bounds(sent.words)
    starts = [a for a, _ in cuts]
    for p, tags in zip(sent.predicates, sent.roles, strict=True):
        if not _confined(tags, *cuts[bisect_right(starts, p) - 1]):
            return iter([sent])
    return (_piece(sent, a, b) for a, b in cuts)


def _nonempty(docs: Iterable[Document]) -> Iterator[Sentence]:
    """Sentences with tokens (an empty one would print a lone blank line), long ones as
    their pieces."""
    return (p for d in docs for s in d.sentences if s.tokens for p in output_sentences(s))


def _widths(opts: OutputOptions, n_columns: int) -> list[int]:
    """SENNA's printf widths: %15s token, %10s tags, %15s predicate word, %10s roles."""
    widths = ([15] if opts.tokens else []) + ([0] if opts.offsets else [])
    widths += [10] * sum(t in opts.tasks for t in column_tasks())
    if any(t in opts.tasks for t in role_tasks()):
        widths.append(15)
    return widths + [10] * (n_columns - len(widths))


@lru_cache(maxsize=256)
def _line_format(widths: tuple[int, ...]) -> str:
    """printf-style format of one token line: `%{w}s` fields (0: `%s`) joined by tabs, and
    a last `%s` field: the blank line after a sentence ("\n" at its last token, else "")."""
    return "\t".join(f"%{w}s" if w else "%s" for w in widths) + "\n%s"


def _sentence_ends(sents: Sequence[Sentence]) -> list[str]:
    """The last field of every token line: "\n" at the last token of a sentence."""
    ends = [""] * sum(len(s.words) for s in sents)
    for end in accumulate(len(s.words) for s in sents):
        ends[end - 1] = "\n"
    return ends


def _column_chunks(docs: Sequence[Document], opts: OutputOptions, padded: bool
                   ) -> Iterator[str]:
    """The senna (`padded`: printf widths) and conll layouts, CHUNK_LINES token lines or
    one sentence at a time.  Without role columns every sentence has the same columns, so
    a chunk's token lines come from one map of the line format over the fields (the
    printf-style format does the padding and joining in C); role columns vary in number,
    so those sentences go one by one."""
    roles = any(t in opts.tasks for t in role_tasks())
    for group in token_groups(_nonempty(docs), lambda s: len(s.words),
                              1 if roles else CHUNK_LINES):
        cols = sentence_columns(group[0], opts) if roles else _columns(group, opts)
        widths = _widths(opts, len(cols)) if padded else [0] * len(cols)
        yield "".join(map(_line_format(tuple(widths)).__mod__,
                          zip(*cols, _sentence_ends(group), strict=True)))


def _write_columns(docs: Sequence[Document], opts: OutputOptions, padded: bool) -> str:
    return "".join(_column_chunks(docs, opts, padded))


def write_senna(doc: Document, opts: OutputOptions) -> str:
    return _write_columns([doc], opts, padded=True)


def write_conll(doc: Document, opts: OutputOptions) -> str:
    return _write_columns([doc], opts, padded=False)


def _misc(sent: Sentence, i: int, opts: OutputOptions, cols: dict) -> str:
    """MISC field: Chunk=, NER=, PT0=, VBS= (each span task's `misc` key), Pred=Yes,
    SRL1=..., SpaceAfter=No."""
    items = [f"{TASKS[task].misc}={tags[i]}" for task, tags in cols["tags"].items()]
    if any(t in opts.tasks for t in role_tasks()):
        items += ["Pred=Yes"] if i in cols["predicates"] else []
        items += [f"SRL{k + 1}={tags[i]}" for k, tags in enumerate(cols["roles"])]
    toks = sent.tokens
    if i + 1 < len(toks) and toks[i].end is not None and toks[i].end == toks[i + 1].start:
        items.append("SpaceAfter=No")
    return "|".join(items) or "_"


def _conllu_tags(sent: Sentence, opts: OutputOptions) -> dict:
    """Per-sentence MISC material: span-task tag columns (XPOS holds the plain tags),
    predicate positions, role columns."""
    tags = {t: _task_column(sent, t, opts.scheme) for t in column_tasks()
            if t in opts.tasks and TASKS[t].scheme != "tags" and not TASKS[t].tree}
    return {"tags": tags, "predicates": set(sent.predicates),
            "roles": [recode(r, opts.scheme) for r in sent.roles]}


def _xpos(sent: Sentence, opts: OutputOptions) -> list[str]:
    """The XPOS column: the first requested plain-tag task (POS), else `_`."""
    for t in column_tasks():
        if t in opts.tasks and TASKS[t].scheme == "tags" and t in sent.columns:
            return sent.columns[t]
    return ["_"] * len(sent.words)


def write_conllu(doc: Document, opts: OutputOptions) -> str:
    """CoNLL-U: ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC; `# text` when known."""
    out = []
    for sent in _nonempty([doc]):
        first, last = sent.tokens[0], sent.tokens[-1]
        if first.start is not None and last.end is not None:
            text = " ".join(visible(doc.text[first.start : last.end]).split())
            out.append(f"# text = {text}\n")
        cols = _conllu_tags(sent, opts)
        xpos = _xpos(sent, opts)
        for i, tok in enumerate(sent.tokens):
            out.append(f"{i + 1}\t{tok.text}\t_\t_\t{xpos[i]}\t_\t_\t_\t_\t"
                       f"{_misc(sent, i, opts, cols)}\n")
        out.append("\n")
    return "".join(out)


def write_json(doc: Document, opts: OutputOptions) -> str:
    """One line per document with the requested tasks' fields only (a task run only as
    another's input is left out); tags stay IOBES whatever the scheme option says.  U+0085,
    U+2028 and U+2029 are escaped so that no line splitter (str.splitlines) breaks a line,
    and invisible characters so that none reaches a terminal."""
    text = json.dumps(doc.to_dict(opts.tasks), ensure_ascii=False)
    if _JSON_ESCAPE.search(text):
        text = _JSON_ESCAPE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text + "\n"


WRITERS: dict[str, Callable[[Document, OutputOptions], str]] = {
    "senna": write_senna, "conll": write_conll, "conllu": write_conllu, "json": write_json,
    "allennlp": write_allennlp}


def format_document(doc: Document, fmt: str = "senna", opts: OutputOptions | None = None) -> str:
    """A document as text in `fmt` (one of FORMATS)."""
    return format_documents([doc], fmt, opts)


def format_documents(docs: Sequence[Document], fmt: str = "senna",
                     opts: OutputOptions | None = None) -> str:
    """Documents one after the other in `fmt`: what `format_document` gives for each,
    joined (`iter_formatted`'s chunks)."""
    return "".join(iter_formatted(docs, fmt, opts))


def iter_formatted(docs: Sequence[Document], fmt: str = "senna",
                   opts: OutputOptions | None = None) -> Iterator[str]:
    """`format_documents` in chunks, for writers that stream: CHUNK_LINES token lines of
    the column layouts, one sentence of conllu and allennlp, one document of json (one
    line per document)."""
    if fmt not in WRITERS:
        raise ValueError(f"output format must be one of {FORMATS}, got {fmt!r}")
    opts = opts or OutputOptions()
    if fmt in ("senna", "conll"):
        return _column_chunks(docs, opts, padded=fmt == "senna")
    return _document_chunks(docs, WRITERS[fmt], opts, per_sentence=fmt != "json")


def _document_chunks(docs: Sequence[Document], writer: Callable[[Document, OutputOptions], str],
                     opts: OutputOptions, per_sentence: bool) -> Iterator[str]:
    """A writer's text per document, long sentences as their pieces; `per_sentence`: per
    sentence (writers whose documents are their sentences' texts joined)."""
    for doc in docs:
        parts: Iterable[Sentence] = doc.sentences
        if any(len(s.words) > MAX_WORDS for s in doc.sentences):
            parts = (p for s in doc.sentences for p in output_sentences(s))
        if per_sentence:
            yield from (writer(Document(doc.text, [s]), opts) for s in parts)
        else:
            yield writer(doc if parts is doc.sentences else Document(doc.text, list(parts)),
                         opts)


def write_chunks(out: BinaryIO | TextIO, chunks: Iterable[str]) -> int:
    """Write text chunks to a stream (a binary one gets UTF-8), each one whole, then flush
    it; return the bytes (characters, for a text stream) written.  What `write` says it
    took counts (None: all of it, as for streams whose `write` returns nothing): a stream
    that takes part of a chunk is given the rest; one that takes nothing, or fails, raises
    OSError saying how much of the output it took, so that output is never cut short
    silently.  BrokenPipeError passes unchanged (the reader has gone: `| head`)."""
    text = isinstance(out, io.TextIOBase)
    total = 0
    try:
        for chunk in chunks:
            data: str | memoryview = chunk if text else memoryview(chunk.encode("utf-8"))
            done = 0
            while done < len(data):
                n = out.write(data[done:])  # type: ignore[arg-type]
                n = len(data) - done if n is None else n
                if n <= 0:
                    raise OSError(0, "the stream took nothing more (is the device full?)")
                done += n
                total += n
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise OSError(f"could not write the output after {total:,} "
                      f"{'characters' if text else 'bytes'}: {e.strerror or e}") from None
    return total
