"""Writers for tagged documents: SENNA v3.0's column layout, CoNLL, CoNLL-U and JSON lines.

`senna` (SENNA v3.0's `printf` layout, reproduced approximately): one token per line and a
blank line after each sentence; the token right-aligned to 15 characters (`%15s`), then one
tab-separated column per requested task in the order POS, CHK, NER, PT0 (tags right-aligned
to 10, `%10s`), then for SRL the predicate column (the word, or `-`, `%15s`) and one role
column per predicate.  `offsets` adds `(start end)` after the token (character offsets into
the input line).  Columns are joined by tabs, so with `tokens=False` a line starts with the
first tag (no leading tab).  Longer fields are never truncated.

Tag schemes (CHK, NER, PT0, SRL; POS is unchanged): "iobes" (default, as SENNA),
"iob" (IOB2, SENNA's -iobtags) or "brackets" (SENNA's -brackettags: `(NP*`, `*`, `*)`).
`conll` uses the same columns tab-separated without padding; `conllu` puts POS in XPOS and
the other tags in MISC; `json` writes `Document.to_dict(tasks)` (IOBES tags and spans of
the requested tasks) per line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain, repeat

from senna.document import Document, Sentence
from senna.integrations.allennlp import write_allennlp
from senna.tags import convert, tags_to_brackets
from senna.tasks import DEFAULT_TASKS, TASKS
from senna.text.invisible import INVISIBLE_CHARS, visible

SCHEMES = ("iobes", "iob", "brackets")
COLUMN_TASKS = tuple(t.name for t in TASKS.values() if not t.per_predicate)
ROLE_TASKS = tuple(t.name for t in TASKS.values() if t.per_predicate)
FORMATS = ("senna", "conll", "conllu", "json", "allennlp")
# What json.dumps(ensure_ascii=False) leaves raw but a terminal or a line splitter acts on:
# line breaks (U+0085, U+2028, U+2029) and invisible characters (C1 controls, DEL, bidi
# and zero-width characters); escaped as \uXXXX, so the parsed JSON is unchanged.
_JSON_ESCAPE = re.compile(f"[\x85\u2028\u2029{INVISIBLE_CHARS}]")


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
    return tags if TASKS[task].scheme == "tags" or scheme == "iobes" else recode(tags, scheme)


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
    for task in COLUMN_TASKS:
        if task in opts.tasks:
            cols.append(chain.from_iterable(map(_task_column, sents, repeat(task),
                                                repeat(opts.scheme))))
    return cols


def sentence_columns(sent: Sentence, opts: OutputOptions) -> list[list[str]]:
    """Output columns of one sentence, each a list of one field per token."""
    cols = [list(c) for c in _columns([sent], opts)]
    if any(t in opts.tasks for t in ROLE_TASKS):
        preds = set(sent.predicates)
        cols.append([w if i in preds else "-" for i, w in enumerate(sent.words)])
        cols += [recode(tags, opts.scheme) for tags in sent.roles]
    return cols


def _nonempty(docs: Iterable[Document]) -> list[Sentence]:
    """Sentences with tokens: an empty one would print a lone blank line."""
    return [s for d in docs for s in d.sentences if s.tokens]


def _widths(opts: OutputOptions, n_columns: int) -> list[int]:
    """SENNA's printf widths: %15s token, %10s tags, %15s predicate word, %10s roles."""
    widths = ([15] if opts.tokens else []) + ([0] if opts.offsets else [])
    widths += [10] * sum(t in opts.tasks for t in COLUMN_TASKS)
    if any(t in opts.tasks for t in ROLE_TASKS):
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


def _write_columns(docs: Sequence[Document], opts: OutputOptions, padded: bool) -> str:
    """The senna (`padded`: printf widths) and conll layouts.  Without role columns every
    sentence has the same columns, so all the documents' token lines come from one map of
    the line format over the fields (the printf-style format does the padding and joining
    in C); role columns vary in number, so those sentences go one by one."""
    sents = _nonempty(docs)
    if not sents:
        return ""
    roles = any(t in opts.tasks for t in ROLE_TASKS)
    out: list[str] = []
    for group in ([s] for s in sents) if roles else [sents]:
        cols = sentence_columns(group[0], opts) if roles else _columns(group, opts)
        widths = _widths(opts, len(cols)) if padded else [0] * len(cols)
        out += map(_line_format(tuple(widths)).__mod__, zip(*cols, _sentence_ends(group),
                                                            strict=True))
    return "".join(out)


def write_senna(doc: Document, opts: OutputOptions) -> str:
    return _write_columns([doc], opts, padded=True)


def write_conll(doc: Document, opts: OutputOptions) -> str:
    return _write_columns([doc], opts, padded=False)


def _misc(sent: Sentence, i: int, opts: OutputOptions, cols: dict) -> str:
    """MISC field: Chunk=, NER=, PT0=, VBS= (each span task's `misc` key), Pred=Yes,
    SRL1=..., SpaceAfter=No."""
    items = [f"{TASKS[task].misc}={tags[i]}" for task, tags in cols["tags"].items()]
    if any(t in opts.tasks for t in ROLE_TASKS):
        items += ["Pred=Yes"] if i in cols["predicates"] else []
        items += [f"SRL{k + 1}={tags[i]}" for k, tags in enumerate(cols["roles"])]
    toks = sent.tokens
    if i + 1 < len(toks) and toks[i].end is not None and toks[i].end == toks[i + 1].start:
        items.append("SpaceAfter=No")
    return "|".join(items) or "_"


def _conllu_tags(sent: Sentence, opts: OutputOptions) -> dict:
    """Per-sentence MISC material: span-task tag columns (XPOS holds the plain tags),
    predicate positions, role columns."""
    tags = {t: _task_column(sent, t, opts.scheme) for t in COLUMN_TASKS
            if t in opts.tasks and TASKS[t].scheme != "tags"}
    return {"tags": tags, "predicates": set(sent.predicates),
            "roles": [recode(r, opts.scheme) for r in sent.roles]}


def _xpos(sent: Sentence, opts: OutputOptions) -> list[str]:
    """The XPOS column: the first requested plain-tag task (POS), else `_`."""
    for t in COLUMN_TASKS:
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
    joined; the column layouts format the batch at once (`_write_columns`)."""
    if fmt not in WRITERS:
        raise ValueError(f"output format must be one of {FORMATS}, got {fmt!r}")
    opts = opts or OutputOptions()
    if fmt in ("senna", "conll"):
        return _write_columns(docs, opts, padded=fmt == "senna")
    return "".join(WRITERS[fmt](doc, opts) for doc in docs)
