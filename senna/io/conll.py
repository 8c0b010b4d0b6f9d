"""Readers of the CoNLL-style column files SENNA trains and is scored on.

Every reader returns plain Python lists so the rest of the package never touches file syntax.
Malformed input always raises :class:`DataFormatError` with ``path:line:`` in the message, so a
bad data file is reported where it is broken instead of failing later inside training.

Formats (first column is always the word; a whitespace-only line ends a sentence):

* CoNLL-2000 ``WORD POS CHUNK``; CoNLL-2003 ``WORD POS CHUNK NER`` with ``-DOCSTART-`` lines;
  CoNLL-2002 ``WORD NER`` (esp) or ``WORD POS NER`` (ned) -- whitespace separated.
* EWT ``WORD<TAB>TAG`` (``.pos``), ``WORD<TAB>POS<TAB>PT0`` (``.pt0``), CoNLL-2005 SRL
  ``WORD POS PARSE PRED ARGS1..ARGSn`` (``.conll``) and CoNLL-U (``.conllu``) -- tab separated.
* A column layout named by the user (`read_layout`).

Trees are read in `senna.io.treebank`, files written in `senna.io.conll_write`, and a format
named or guessed in `senna.io.formats`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from senna.document import Sentence
from senna.io.lines import DataFormatError, PathLike, read_lines
from senna.syntax.tree import conll_to_tree
from senna.tasks import SKIP, layout_columns

DOCSTART = "-DOCSTART-"
CONLLU_COLUMNS = ("lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")

_ARG_CELL = re.compile(r"(?:\([^()*\s]+)*\*\)*")  # '(ARG0*', '*)', '(V*)'

Row = list[str]
Block = tuple[int, list[int], list[Row]]  # (doc index, line numbers, split rows)


def split_row(line: str, sep: str | None) -> Row:
    return line.split(sep) if sep else line.split()


def iter_blocks(
    path: PathLike,
    lines: Sequence[str],
    sep: str | None,
    docstart: bool = False,
    comments: bool = False,
) -> Iterator[Block]:
    """Group lines into sentences, tracking ``-DOCSTART-`` document boundaries.

    The documents are the ``-DOCSTART-`` blocks; in a file without any (or read without
    ``docstart``) each sentence is a document of its own, as for text tagged without
    documents: so a vote over each document (senna.decode.documents) never spans a file."""
    docstart = docstart and has_docstart(lines)
    doc, doc_used = 0, False
    nums: list[int] = []
    rows: list[Row] = []
    for num, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or (comments and line[0] == "#"):
            if rows and not line:
                yield doc, nums, rows
                nums, rows, doc_used = [], [], True
                doc += not docstart
            continue
        fields = split_row(line, sep)
        if docstart and fields[0] == DOCSTART:
            if rows:
                yield doc, nums, rows
                nums, rows, doc_used = [], [], True
            if doc_used:
                doc, doc_used = doc + 1, False
            continue
        if sep and "" in fields:
            raise DataFormatError(
                f"empty field (expected non-empty values separated by {sep!r}, got {line!r})",
                path,
                num,
            )
        nums.append(num)
        rows.append(fields)
    if rows:
        yield doc, nums, rows


def has_docstart(lines: Iterable[str]) -> bool:
    """Does a file have ``-DOCSTART-`` lines (documents)?"""
    return any(line.split(None, 1)[:1] == [DOCSTART] for line in lines)


def no_sentences(path: PathLike, lines: Sequence[str]) -> DataFormatError:
    got = "an empty file" if not "".join(lines).strip() else "only blank, comment or DOCSTART lines"
    return DataFormatError(f"no sentences (expected at least one token line, got {got})", path, 1)


def show_row(row: Row, sep: str | None) -> str:
    text = (sep or " ").join(row)
    return repr(text if len(text) <= 60 else text[:57] + "...")


# --------------------------------------------------------------------------- column readers


def _parse_columns(
    path: PathLike,
    lines: Sequence[str],
    names: Sequence[str],
    sep: str | None,
    docstart: bool,
) -> list[Sentence]:
    """Turn blocks into sentences, insisting on ``1 + len(names)`` fields per line."""
    width = 1 + len(names)
    layout = " ".join(["WORD", *(name.upper() for name in names)])
    out: list[Sentence] = []
    for doc, nums, rows in iter_blocks(path, lines, sep, docstart):
        for num, row in zip(nums, rows, strict=True):
            if len(row) != width:
                raise DataFormatError(
                    f"wrong number of columns (expected {width}: {layout}, "
                    f"got {len(row)}: {show_row(row, sep)})",
                    path,
                    num,
                )
        cols = list(zip(*rows, strict=True))
        columns = {name: list(cols[k + 1]) for k, name in enumerate(names)}
        out.append(Sentence(list(cols[0]), columns, doc=doc))
    if not out:
        raise no_sentences(path, lines)
    return out


def read_columns(
    path: PathLike, names: Sequence[str], sep: str | None = None, docstart: bool = False
) -> list[Sentence]:
    """Read ``WORD col1 … colN`` lines; ``sep=None`` splits on any whitespace."""
    return _parse_columns(path, read_lines(path), tuple(names), sep, docstart)


def read_conll2000(path: PathLike) -> list[Sentence]:
    """CoNLL-2000 chunking: ``WORD POS CHUNK``."""
    return read_columns(path, ("pos", "chunk"))


def read_conll2003(path: PathLike) -> list[Sentence]:
    """CoNLL-2003 NER: ``WORD POS CHUNK NER``; ``doc`` counts ``-DOCSTART-`` documents."""
    return read_columns(path, ("pos", "chunk", "ner"), docstart=True)


def read_conll2002(path: PathLike) -> list[Sentence]:
    """CoNLL-2002 NER: Spanish ``WORD NER`` or Dutch ``WORD POS NER`` (told apart by width)."""
    lines = read_lines(path)
    for num, raw in enumerate(lines, 1):
        fields = raw.split()
        if not fields or fields[0] == DOCSTART:
            continue
        layouts = {2: ("ner",), 3: ("pos", "ner")}
        if len(fields) not in layouts:
            raise DataFormatError(
                "cannot tell the CoNLL-2002 layout (expected 2 columns WORD NER or "
                f"3 columns WORD POS NER, got {len(fields)}: {show_row(fields, None)})",
                path,
                num,
            )
        return _parse_columns(path, lines, layouts[len(fields)], None, True)
    raise no_sentences(path, lines)


def read_tagged(path: PathLike, name: str = "pos") -> list[Sentence]:
    """Tab-separated ``WORD<TAB>TAG`` (EWT ``.pos``); the tag lands in ``columns[name]``."""
    return read_columns(path, (name,), sep="\t")


def read_pt0(path: PathLike) -> list[Sentence]:
    """Tab-separated ``WORD<TAB>POS<TAB>PT0`` (EWT ``.pt0``)."""
    return read_columns(path, ("pos", "pt0"), sep="\t")


# --------------------------------------------------------------------------- CoNLL-U


def _conllu_sentence(path: PathLike, nums: list[int], rows: list[Row]) -> Sentence | None:
    """Keep word lines only: multiword ranges ``1-2`` and empty nodes ``1.1`` are dropped."""
    kept: list[Row] = []
    for num, row in zip(nums, rows, strict=True):
        if len(row) != 10:
            raise DataFormatError(
                "wrong number of columns (expected 10: ID FORM LEMMA UPOS XPOS FEATS HEAD "
                f"DEPREL DEPS MISC, got {len(row)}: {show_row(row, chr(9))})",
                path,
                num,
            )
        token_id = row[0]
        if "-" in token_id or "." in token_id:
            continue
        if not token_id.isdigit() or int(token_id) != len(kept) + 1:
            raise DataFormatError(
                f"bad token ID (expected {len(kept) + 1}, got {token_id!r})", path, num
            )
        kept.append(row)
    if not kept:
        return None
    cols = list(zip(*kept, strict=True))
    columns = {name: list(cols[k + 2]) for k, name in enumerate(CONLLU_COLUMNS)}
    return Sentence(list(cols[1]), columns)


def read_conllu(path: PathLike) -> list[Sentence]:
    """CoNLL-U: FORM becomes the word; LEMMA … MISC become columns; ``#`` comments skipped."""
    lines = read_lines(path)
    out: list[Sentence] = []
    for doc, nums, rows in iter_blocks(path, lines, "\t", comments=True):
        sentence = _conllu_sentence(path, nums, rows)
        if sentence is not None:
            sentence.doc = doc
            out.append(sentence)
    if not out:
        raise no_sentences(path, lines)
    return out


# --------------------------------------------------------------------------- SRL


def bracket_problem(column: Sequence[str]) -> tuple[int, str] | None:
    """Return ``(token index, what)`` for the first bracket error in an argument column."""
    depth, opened_at = 0, 0
    for i, cell in [(i, cell) for i, cell in enumerate(column) if cell != "*"]:
        if _ARG_CELL.fullmatch(cell) is None:
            return i, f"bad argument cell (expected like '(ARG0*', '*', '*)', '(V*)', got {cell!r})"
        opens = cell.count("(")
        if opens and depth == 0:
            opened_at = i
        depth += opens - cell.count(")")
        if depth < 0:
            return i, f"unbalanced brackets (expected an open span to close, got {cell!r})"
    if depth:
        return opened_at, f"unbalanced brackets (expected {depth} more ')' before sentence end)"
    return None


def _srl_shape(path: PathLike, nums: list[int], rows: list[Row]) -> int:
    """Check every line has the same width (at least 4); return that width."""
    width = len(rows[0])
    if width < 4:
        raise DataFormatError(
            "wrong number of columns (expected at least 4: WORD POS PARSE PRED [ARGS…], "
            f"got {width}: {show_row(rows[0], chr(9))})",
            path,
            nums[0],
        )
    for num, row in zip(nums, rows, strict=True):
        if len(row) != width:
            raise DataFormatError(
                f"wrong number of columns (expected {width} as on line {nums[0]}, "
                f"got {len(row)}: {show_row(row, chr(9))})",
                path,
                num,
            )
    return width


def _srl_sentence(path: PathLike, nums: list[int], rows: list[Row]) -> Sentence:
    """Validate one SRL block: width, predicate count vs. argument columns, brackets."""
    n_args = _srl_shape(path, nums, rows) - 4
    cols = list(zip(*rows, strict=True))
    lemmas = list(cols[3])
    predicates = [i for i, lemma in enumerate(lemmas) if lemma != "-"]
    if len(predicates) != n_args:
        where = nums[predicates[n_args]] if len(predicates) > n_args else nums[0]
        raise DataFormatError(
            "predicate count disagrees with argument columns (expected one argument column "
            f"per non-'-' PRED entry: {len(predicates)} predicates in lines {nums[0]}-{nums[-1]}, "
            f"got {n_args} argument columns)",
            path,
            where,
        )
    args = [list(col) for col in cols[4:]]
    for k, column in enumerate(args):
        problem = bracket_problem(column)
        if problem is not None:
            index, what = problem
            raise DataFormatError(f"argument column {k + 1}: {what}", path, nums[index])
    columns = {"pos": list(cols[1]), "parse": list(cols[2]), "lemma": lemmas}
    return Sentence(list(cols[0]), columns, predicates, args)


def read_srl(path: PathLike) -> list[Sentence]:
    """CoNLL-2005 SRL ``WORD POS PARSE PRED ARGS1..ARGSn``, tab separated."""
    lines = read_lines(path)
    out = [_srl_sentence(path, nums, rows) for _doc, nums, rows in iter_blocks(path, lines, "\t")]
    for doc, sentence in enumerate(out):
        sentence.doc = doc
    if not out:
        raise no_sentences(path, lines)
    return out


def _gold_conll_sentence(path: PathLike, nums: list[int], rows: list[Row]) -> Sentence:
    """WORD, POS and PARSE of one OntoNotes block; the parse must make one tree."""
    for num, row in zip(nums, rows, strict=True):
        if len(row) < 6:
            raise DataFormatError(
                "wrong number of columns (expected at least 6: DOC SENT TOK WORD POS PARSE "
                f"[...], got {len(row)}: {show_row(row, chr(9))})", path, num)
    cols = list(zip(*(row[:6] for row in rows), strict=True))
    try:
        conll_to_tree(cols[5])
    except ValueError as err:
        raise DataFormatError(f"parse column: {err}", path, nums[0]) from None
    return Sentence(list(cols[3]), {"pos": list(cols[4]), "parse": list(cols[5])})


def read_gold_conll(path: PathLike) -> list[Sentence]:
    """OntoNotes ``.gold_conll`` (``DOC SENT TOK WORD POS PARSE …``, tab separated): the
    words with columns ``pos`` and ``parse`` (the gold tree, CoNLL parse cells)."""
    lines = read_lines(path)
    out = [_gold_conll_sentence(path, nums, rows)
           for _doc, nums, rows in iter_blocks(path, lines, "\t")]
    if not out:
        raise no_sentences(path, lines)
    return out


def read_predicates(path: PathLike) -> list[Sentence]:
    """A CoNLL-2005 SRL file as predicate identification data: column ``vbs`` is ``B-V`` on
    each predicate and ``O`` elsewhere (IOB2), for SENNA's verb detector."""
    out = read_srl(path)
    for s in out:
        chosen = set(s.predicates)
        s.columns["vbs"] = ["B-V" if i in chosen else "O" for i in range(len(s.words))]
    return out


def read_layout(path: PathLike, spec: str) -> list[Sentence]:
    """Whitespace-separated columns named by `spec` ("word,_,ner": `layout_columns`), one
    token per line, blank lines between sentences, ``-DOCSTART-`` lines between documents;
    a line with fewer or more columns than the layout is an error naming it."""
    names = layout_columns(spec)
    lines = read_lines(path)
    out: list[Sentence] = []
    for doc, nums, rows in iter_blocks(path, lines, None, docstart=True):
        for num, row in zip(nums, rows, strict=True):
            if len(row) != len(names):
                raise DataFormatError(
                    f"wrong number of columns (expected {len(names)}: {','.join(names)}, "
                    f"got {len(row)}: {show_row(row, None)})", path, num)
        cols = list(zip(*rows, strict=True))
        words = list(cols[names.index("word")])
        out.append(Sentence(words, {layout_key(n, k): list(c)
                                    for k, (n, c) in enumerate(zip(names, cols, strict=True))
                                    if n != "word"}, doc=doc))
    if not out:
        raise no_sentences(path, lines)
    return out


def layout_key(name: str, k: int) -> str:
    """A layout column's key in `Sentence.columns`: its name; the k-th column not read is
    kept as `_k`, so that a file written back (`write_layout`) keeps it."""
    return f"{SKIP}{k}" if name == SKIP else name
