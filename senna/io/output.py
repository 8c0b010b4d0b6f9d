"""Writers for tagged documents: SENNA v3.0's column layout, CoNLL, CoNLL-U and JSON lines.

`senna` (SENNA v3.0's `printf` layout, reproduced approximately): one token per line and a
blank line after each sentence; the token right-aligned to 15 characters (`%15s`), then one
tab-separated column per requested task in the order POS, CHK, NER, PT0 (tags right-aligned
to 10, `%10s`), then for SRL the predicate column (the word, or `-`, `%15s`) and one role
column per predicate.  `offsets` adds `(start end)` after the token (character offsets into
the input line).  Columns are joined by tabs, so with `tokens=False` a line starts with the
first tag (no leading tab).  Longer fields are never truncated.

Every sentence is written as one sentence, whatever its length: one input line of
`-usrtokens` gives one block of token lines (one JSON sentence, one CoNLL-U sentence).  A
sentence longer than senna.text.pieces.MAX_WORDS words was tagged in pieces, and each SRL
predicate has roles only within its piece (`RoleTags`, O outside); its rows are made a
bounded number of fields at a time (`role_rows`), so memory stays bounded although the
written text holds words x predicates role fields.  Output comes in chunks of a bounded
size (`iter_formatted`), for writers that stream.

Tag schemes (CHK, NER, PT0, SRL; POS is unchanged): "iobes" (default, as SENNA),
"iob" (IOB2, SENNA's -iobtags) or "brackets" (SENNA's -brackettags: `(NP*`, `*`, `*)`).
`conll` uses the same columns tab-separated without padding; `conllu` puts POS in XPOS,
the other tags in MISC and the parser's tree in a `# constituency` comment; `json` writes
`Document.to_dict(tasks)` (IOBES tags and spans of the requested tasks, the parser's tree)
per line.  The parser's
column (PSG) is its tree's CoNLL parse cells in every scheme.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain, repeat
from typing import BinaryIO, TextIO

from senna.document import Document, Sentence, frame_dict
from senna.io.allennlp import allennlp_chunks, write_allennlp
from senna.tags import RoleTags, convert, tags_to_brackets
from senna.tasks import DEFAULT_TASKS, TASKS
from senna.text.invisible import INVISIBLE_CHARS, visible
from senna.text.pieces import MAX_WORDS, token_groups

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
CHUNK_FIELDS = 1 << 17   # fields per chunk of a long sentence written row by row


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


def _nonempty(docs: Iterable[Document]) -> Iterator[Sentence]:
    """Sentences with tokens (an empty one would print a lone blank line)."""
    return (s for d in docs for s in d.sentences if s.tokens)


def _long(sent: Sentence) -> bool:
    """Whether a sentence is written row by row (its role fields are streamed)."""
    return len(sent.words) > MAX_WORDS and bool(sent.roles)


def role_windows(sent: Sentence, scheme: str) -> tuple[str, list[tuple[int, list[str]]]]:
    """The role columns of a sentence in the output scheme as (first word, tags) windows,
    and the tag written outside them: a column tagged in a piece of a long sentence
    (`RoleTags`) is recoded over its window alone, which holds all its spans, so that
    memory stays in proportion to the pieces, not to words x predicates."""
    fill = recode(["O"], scheme)[0]
    windows = []
    for tags in sent.roles:
        if isinstance(tags, RoleTags):
            windows.append((tags.start, recode(tags.tags, scheme)))
        else:
            windows.append((0, recode(tags, scheme)))
    return fill, windows


def role_rows(sent: Sentence, scheme: str, lo: int, hi: int, width: int = 0
              ) -> Iterator[list[str]]:
    """The role fields of words [lo, hi), one list per word (one field per predicate,
    each padded to `width` as `%{width}s` pads), made row by row from the windows that
    cover each word: a word costs those windows and one copy of the blank row."""
    fill, windows = role_windows(sent, scheme)
    if width:
        fill = f"%{width}s" % fill
        windows = [(start, [f"%{width}s" % t for t in tags]) for start, tags in windows]
    blank = [fill] * len(windows)
    order = sorted(range(len(windows)), key=lambda k: windows[k][0])
    nxt, active = 0, []
    for i in range(lo, hi):
        while nxt < len(order) and windows[order[nxt]][0] <= i:
            active.append(order[nxt])
            nxt += 1
        active = [k for k in active if i < windows[k][0] + len(windows[k][1])]
        row = blank[:]
        for k in active:
            row[k] = windows[k][1][i - windows[k][0]]
        yield row


def _row_chunks(sent: Sentence, opts: OutputOptions, padded: bool) -> Iterator[str]:
    """A long sentence with role columns in the column layouts, a bounded number of fields
    at a time: the token lines are the same as `sentence_columns` would give, written
    without ever holding words x predicates fields."""
    plain = [list(c) for c in _columns([sent], opts)]
    preds = set(sent.predicates)
    n, width = len(sent.words), len(plain) + 1 + len(sent.roles)
    widths = _widths(opts, width) if padded else [0] * width
    head = (_line_format(tuple(widths[: len(plain) + 1]))[:-3] + "\t").__mod__
    step = max(1, CHUNK_FIELDS // width)
    rows = map("\t".join, role_rows(sent, opts.scheme, 0, n, widths[-1]))
    for lo in range(0, n, step):
        parts: list[str] = []
        for i in range(lo, min(n, lo + step)):   # the role text is joined once, not copied
            parts += (head((*(c[i] for c in plain), sent.words[i] if i in preds else "-")),
                      next(rows), "\n\n" if i == n - 1 else "\n")
        yield "".join(parts)


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
        if roles and _long(group[0]):
            yield from _row_chunks(group[0], opts, padded)
            continue
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


def _misc(sent: Sentence, i: int, opts: OutputOptions, tags: dict,
          roles: list[str] | None) -> str:
    """MISC field: Chunk=, NER=, PT0=, VBS= (each span task's `misc` key), Pred=Yes,
    SRL1=... (`roles`: the word's role fields, None without SRL), SpaceAfter=No."""
    items = [f"{TASKS[task].misc}={col[i]}" for task, col in tags.items()]
    if roles is not None:
        items += ["Pred=Yes"] if roles and i in set(sent.predicates) else []
        items += [f"SRL{k + 1}={tag}" for k, tag in enumerate(roles)]
    toks = sent.tokens
    if i + 1 < len(toks) and toks[i].end is not None and toks[i].end == toks[i + 1].start:
        items.append("SpaceAfter=No")
    return "|".join(items) or "_"


def _span_columns(sent: Sentence, opts: OutputOptions) -> dict:
    """The span tasks' tag columns MISC holds (XPOS holds the plain tags)."""
    return {t: _task_column(sent, t, opts.scheme) for t in column_tasks()
            if t in opts.tasks and TASKS[t].scheme != "tags" and not TASKS[t].tree}


def _xpos(sent: Sentence, opts: OutputOptions) -> list[str]:
    """The XPOS column: the first requested plain-tag task (POS), else `_`."""
    for t in column_tasks():
        if t in opts.tasks and TASKS[t].scheme == "tags" and t in sent.columns:
            return sent.columns[t]
    return ["_"] * len(sent.words)


def _conllu_comments(doc: Document, sent: Sentence, opts: OutputOptions) -> str:
    """`# text` when the offsets are known; `# constituency` (the parser's tree, as Stanza
    writes it) when the parser ran."""
    out = ""
    first, last = sent.tokens[0], sent.tokens[-1]
    if first.start is not None and last.end is not None:
        out += f"# text = {' '.join(visible(doc.text[first.start : last.end]).split())}\n"
    if any(TASKS[t].tree for t in opts.tasks) and sent.tree is not None:
        out += f"# constituency = {sent.tree}\n"
    return out


def _conllu_chunks(doc: Document, opts: OutputOptions) -> Iterator[str]:
    """CoNLL-U of a document, CHUNK_LINES token lines (CHUNK_FIELDS role fields) at a
    time: a long sentence's role fields are made row by row (`role_rows`)."""
    srl = any(t in opts.tasks for t in role_tasks())
    for sent in _nonempty([doc]):
        tags, xpos, n = _span_columns(sent, opts), _xpos(sent, opts), len(sent.words)
        rows = role_rows(sent, opts.scheme, 0, n) if srl else repeat(None)
        step = max(1, min(CHUNK_LINES, CHUNK_FIELDS // (len(sent.roles) + 1)))
        head = _conllu_comments(doc, sent, opts)
        for lo in range(0, n, step):
            yield head + "".join(
                f"{i + 1}\t{sent.tokens[i].text}\t_\t_\t{xpos[i]}\t_\t_\t_\t_\t"
                f"{_misc(sent, i, opts, tags, next(rows))}\n" for i in range(lo, min(n, lo + step)))
            head = ""
        yield "\n"


def write_conllu(doc: Document, opts: OutputOptions) -> str:
    """CoNLL-U: ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC; `# text` when known,
    `# constituency` with the parser."""
    return "".join(_conllu_chunks(doc, opts))


def _escaped(text: str) -> str:
    """JSON text with U+0085, U+2028, U+2029 and invisible characters as \\uXXXX."""
    if _JSON_ESCAPE.search(text):
        text = _JSON_ESCAPE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _dumps(obj: object) -> str:
    return _escaped(json.dumps(obj, ensure_ascii=False))


def _json_chunks(doc: Document, opts: OutputOptions) -> Iterator[str]:
    """One JSON line per document (`Document.to_dict`), a long sentence's predicate frames
    one at a time, so that words x predicates tags are never held at once; the text is the
    same as one `json.dumps` of the whole document gives."""
    if not any(_long(s) for s in doc.sentences):
        yield _dumps(doc.to_dict(opts.tasks)) + "\n"
        return
    yield '{"text": ' + _dumps(doc.text) + ', "sentences": ['
    for k, sent in enumerate(doc.sentences):
        sep = ", " if k else ""
        if not (_long(sent) and sent.has_frames(opts.tasks)):
            yield sep + _dumps(sent.to_dict(opts.tasks))
            continue
        yield sep + _dumps(sent.to_dict(opts.tasks, frames=False))[:-1] + ', "predicates": ['
        for j, frame in enumerate(sent.frames):
            yield (", " if j else "") + _dumps(frame_dict(frame))
        yield "]}"
    yield "]}\n"


def write_json(doc: Document, opts: OutputOptions) -> str:
    """One line per document with the requested tasks' fields only (a task run only as
    another's input is left out); tags stay IOBES whatever the scheme option says.  U+0085,
    U+2028 and U+2029 are escaped so that no line splitter (str.splitlines) breaks a line,
    and invisible characters so that none reaches a terminal."""
    return "".join(_json_chunks(doc, opts))


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
    """`format_documents` in chunks of a bounded size, for writers that stream: CHUNK_LINES
    token lines of the column layouts and of conllu, one sentence of allennlp, one
    document of json (one line per document); a sentence with more than MAX_WORDS words
    and role columns is written whole, its role fields made a bounded number at a time."""
    if fmt not in WRITERS:
        raise ValueError(f"output format must be one of {FORMATS}, got {fmt!r}")
    opts = opts or OutputOptions()
    if fmt in ("senna", "conll"):
        return _column_chunks(docs, opts, padded=fmt == "senna")
    chunks = {"conllu": _conllu_chunks, "json": _json_chunks, "allennlp": allennlp_chunks}
    return chain.from_iterable(chunks[fmt](doc, opts) for doc in docs)


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
