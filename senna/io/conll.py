"""Readers and writers for the CoNLL-style column files SENNA trains and is scored on.

Every reader returns plain Python lists so the rest of the package never touches file syntax.
Malformed input always raises :class:`DataFormatError` with ``path:line:`` in the message, so a
bad data file is reported where it is broken instead of failing later inside training.

Formats (first column is always the word; a whitespace-only line ends a sentence):

* CoNLL-2000 ``WORD POS CHUNK``; CoNLL-2003 ``WORD POS CHUNK NER`` with ``-DOCSTART-`` lines;
  CoNLL-2002 ``WORD NER`` (esp) or ``WORD POS NER`` (ned) -- whitespace separated.
* EWT ``WORD<TAB>TAG`` (``.pos``), ``WORD<TAB>POS<TAB>PT0`` (``.pt0``), CoNLL-2005 SRL
  ``WORD POS PARSE PRED ARGS1..ARGSn`` (``.conll``) and CoNLL-U (``.conllu``) -- tab separated.
"""

from __future__ import annotations

import codecs
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from senna.document import Sentence
from senna.io.lines import DataFormatError, PathLike, read_lines
from senna.syntax.levels import BELOW, level_features, normalise, tree_to_levels
from senna.syntax.tree import (
    NESTING,
    ROOT,
    Tree,
    bracket_tokens,
    brackets_to_tree,
    conll_to_tree,
    node,
    plain_label,
    tree_to_conll,
)
from senna.tasks import LAYOUT, SKIP, layout_columns

DOCSTART = "-DOCSTART-"
CONLLU_COLUMNS = ("lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")

_ARG_CELL = re.compile(r"(?:\([^()*\s]+)*\*\)*")  # '(ARG0*', '*)', '(V*)'

Row = list[str]
Block = tuple[int, list[int], list[Row]]  # (doc index, line numbers, split rows)


def _split(line: str, sep: str | None) -> Row:
    return line.split(sep) if sep else line.split()


def _iter_blocks(
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
        fields = _split(line, sep)
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


def _no_sentences(path: PathLike, lines: Sequence[str]) -> DataFormatError:
    got = "an empty file" if not "".join(lines).strip() else "only blank, comment or DOCSTART lines"
    return DataFormatError(f"no sentences (expected at least one token line, got {got})", path, 1)


def _show(row: Row, sep: str | None) -> str:
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
    for doc, nums, rows in _iter_blocks(path, lines, sep, docstart):
        for num, row in zip(nums, rows, strict=True):
            if len(row) != width:
                raise DataFormatError(
                    f"wrong number of columns (expected {width}: {layout}, "
                    f"got {len(row)}: {_show(row, sep)})",
                    path,
                    num,
                )
        cols = list(zip(*rows, strict=True))
        columns = {name: list(cols[k + 1]) for k, name in enumerate(names)}
        out.append(Sentence(list(cols[0]), columns, doc=doc))
    if not out:
        raise _no_sentences(path, lines)
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
                f"3 columns WORD POS NER, got {len(fields)}: {_show(fields, None)})",
                path,
                num,
            )
        return _parse_columns(path, lines, layouts[len(fields)], None, True)
    raise _no_sentences(path, lines)


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
                f"DEPREL DEPS MISC, got {len(row)}: {_show(row, chr(9))})",
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
    for doc, nums, rows in _iter_blocks(path, lines, "\t", comments=True):
        sentence = _conllu_sentence(path, nums, rows)
        if sentence is not None:
            sentence.doc = doc
            out.append(sentence)
    if not out:
        raise _no_sentences(path, lines)
    return out


# --------------------------------------------------------------------------- SRL


def _bracket_problem(column: Sequence[str]) -> tuple[int, str] | None:
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
            f"got {width}: {_show(rows[0], chr(9))})",
            path,
            nums[0],
        )
    for num, row in zip(nums, rows, strict=True):
        if len(row) != width:
            raise DataFormatError(
                f"wrong number of columns (expected {width} as on line {nums[0]}, "
                f"got {len(row)}: {_show(row, chr(9))})",
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
        problem = _bracket_problem(column)
        if problem is not None:
            index, what = problem
            raise DataFormatError(f"argument column {k + 1}: {what}", path, nums[index])
    columns = {"pos": list(cols[1]), "parse": list(cols[2]), "lemma": lemmas}
    return Sentence(list(cols[0]), columns, predicates, args)


def read_srl(path: PathLike) -> list[Sentence]:
    """CoNLL-2005 SRL ``WORD POS PARSE PRED ARGS1..ARGSn``, tab separated."""
    lines = read_lines(path)
    out = [_srl_sentence(path, nums, rows) for _doc, nums, rows in _iter_blocks(path, lines, "\t")]
    for doc, sentence in enumerate(out):
        sentence.doc = doc
    if not out:
        raise _no_sentences(path, lines)
    return out


def _gold_conll_sentence(path: PathLike, nums: list[int], rows: list[Row]) -> Sentence:
    """WORD, POS and PARSE of one OntoNotes block; the parse must make one tree."""
    for num, row in zip(nums, rows, strict=True):
        if len(row) < 6:
            raise DataFormatError(
                "wrong number of columns (expected at least 6: DOC SENT TOK WORD POS PARSE "
                f"[...], got {len(row)}: {_show(row, chr(9))})", path, num)
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
           for _doc, nums, rows in _iter_blocks(path, lines, "\t")]
    if not out:
        raise _no_sentences(path, lines)
    return out


# the labels a treebank's root may carry (PTB's empty one, Stanford's ROOT, OntoNotes' TOP)
_ROOT_LABELS = frozenset({"", ROOT, "ROOT", "VROOT"})


def _plain_labels(tree: Tree) -> Tree:
    """The tree with function tags and indices cut from its phrase labels (`NP-SBJ-1` ->
    `NP`, `NP=2` -> `NP`), as OntoNotes' files hold them and evalb counts them."""
    return node(plain_label(tree.label),
                [_plain_labels(c) if isinstance(c, Tree) else c for c in tree.children])


def read_trees(path: PathLike) -> list[Sentence]:
    """A file of Penn Treebank bracketed trees (`.mrg`, `.tree`: each tree one or more lines,
    `( (S (NP-SBJ (DT The) ...)) )`), as `read_gold_conll` gives a ``.gold_conll`` file: the
    words with columns ``pos`` (the pre-terminals) and ``parse`` (the tree, CoNLL parse
    cells, under a `TOP` root).  Empty elements (`-NONE-`) are dropped with the phrases they
    leave empty, and function tags cut from the labels; a root labelled `ROOT`, `TOP` or
    nothing becomes `TOP`, any other is put under one.  Lines starting `*x*` between trees
    (the copyright banner of the Penn Treebank's `.mrg` files) are skipped."""
    lines = read_lines(path)
    out: list[Sentence] = []
    depth, first, parts = 0, 0, []
    for num, line in enumerate(lines, 1):
        if depth == 0 and line.lstrip().startswith("*x*"):
            continue
        for token in bracket_tokens(line):
            if depth == 0 and token != "(":
                raise DataFormatError(f"{token!r} outside a tree (expected '(' to open one)",
                                      path, num)
            if depth == 0:
                first, parts = num, []
            depth += NESTING.get(token, 0)
            parts.append(token)
            if depth == 0:
                out.append(_tree_sentence(path, first, " ".join(parts)))
    if depth:
        raise DataFormatError(f"the tree opened here is never closed ({depth} more ')' "
                              "expected)", path, first)
    if not out:
        raise DataFormatError("no trees (expected bracketed trees like '(S (NN word))', "
                              "got an empty file)", path, 1)
    return out


def _tree_sentence(path: PathLike, num: int, text: str) -> Sentence:
    """One bracketed tree of `read_trees` (starting at line `num`) as a sentence."""
    try:
        tree, words, tags = brackets_to_tree(text)
        tree = _plain_labels(tree)
        if tree.label in _ROOT_LABELS:
            tree = node(ROOT, tree.children)
        else:
            tree = node(ROOT, [tree])
    except ValueError as err:
        raise DataFormatError(str(err), path, num) from None
    return Sentence(words, {"pos": tags, "parse": tree_to_conll(tree)})


def bracketed(path: PathLike) -> bool:
    """Does the file hold bracketed trees: is its first non-blank character '('?"""
    try:
        with open(path, "rb") as f:
            start = f.read(4096).lstrip(codecs.BOM_UTF8).lstrip()
    except OSError:
        return False   # the reader says why the file cannot be read
    return start.startswith(b"(")


def read_treebank(path: PathLike) -> list[Sentence]:
    """Gold trees from either kind of file: bracketed trees (`read_trees`, when `bracketed`)
    or OntoNotes ``.gold_conll`` (`read_gold_conll`)."""
    return read_trees(path) if bracketed(path) else read_gold_conll(path)


def read_levels(path: PathLike) -> list[Sentence]:
    """A file of trees (`read_treebank`: ``.gold_conll`` or bracketed) as the parser's
    training data: one sentence per (tree, level) with columns ``pos`` (the gold POS),
    ``below`` (`senna.syntax.levels.level_features` of the levels under it) and ``psg``
    (the level's IOBES tags), trees `normalise`d."""
    out = []
    for s in read_treebank(path):
        n = len(s.words)
        levels = tree_to_levels(normalise(conll_to_tree(s.columns["parse"])))
        out += [Sentence(s.words, {"pos": s.columns["pos"], BELOW: level_features(levels[:k], n),
                                   "psg": tags})
                for k, tags in enumerate(levels)]
    return out


def read_predicates(path: PathLike) -> list[Sentence]:
    """A CoNLL-2005 SRL file as predicate identification data: column ``vbs`` is ``B-V`` on
    each predicate and ``O`` elsewhere (IOB2), for SENNA's verb detector."""
    out = read_srl(path)
    for s in out:
        chosen = set(s.predicates)
        s.columns["vbs"] = ["B-V" if i in chosen else "O" for i in range(len(s.words))]
    return out


# --------------------------------------------------------------------------- dispatch

_READERS: dict[str, Callable[[PathLike], list]] = {
    "conll2000": read_conll2000,
    "conll2003": read_conll2003,
    "conll2002": read_conll2002,
    "tagged": read_tagged,
    "pt0": read_pt0,
    "srl": read_srl,
    "predicates": read_predicates,
    "conllu": read_conllu,
    "gold_conll": read_gold_conll,
    "trees": read_trees,
    "levels": read_levels,
}
FORMATS = tuple(_READERS)
TREE_FORMATS = ("trees", "levels")   # the readers of bracketed trees (`bracketed` files)


def guess_format(path: PathLike) -> str:
    """Guess a format name from the file name (extension first, then benchmark names)."""
    p = Path(path)
    name = p.name.lower()
    by_suffix = {".gold_conll": "gold_conll", ".conllu": "conllu", ".conll": "srl",
                 ".pos": "tagged", ".pt0": "pt0", ".mrg": "trees", ".tree": "trees",
                 ".trees": "trees"}
    if p.suffix.lower() in by_suffix:
        return by_suffix[p.suffix.lower()]
    if name.startswith(("eng.", "deu.")):
        return "conll2003"
    if name.startswith(("esp.", "ned.")):
        return "conll2002"
    for part in reversed(p.parts[:-1]):
        for fmt in ("conll2000", "conll2002", "conll2003"):
            if fmt in part.lower():
                return fmt
    raise DataFormatError(
        "cannot guess the format from the file name (expected *.conllu, *.conll, *.gold_conll, "
        f"*.mrg, *.pos, *.pt0, eng.*, esp.*, ned.* or a conll200x directory, got {p.name!r})",
        path,
    )


def read_layout(path: PathLike, spec: str) -> list[Sentence]:
    """Whitespace-separated columns named by `spec` ("word,_,ner": `layout_columns`), one
    token per line, blank lines between sentences, ``-DOCSTART-`` lines between documents;
    a line with fewer or more columns than the layout is an error naming it."""
    names = layout_columns(spec)
    lines = read_lines(path)
    out: list[Sentence] = []
    for doc, nums, rows in _iter_blocks(path, lines, None, docstart=True):
        for num, row in zip(nums, rows, strict=True):
            if len(row) != len(names):
                raise DataFormatError(
                    f"wrong number of columns (expected {len(names)}: {','.join(names)}, "
                    f"got {len(row)}: {_show(row, None)})", path, num)
        cols = list(zip(*rows, strict=True))
        words = list(cols[names.index("word")])
        out.append(Sentence(words, {_column_name(n, k): list(c)
                                    for k, (n, c) in enumerate(zip(names, cols, strict=True))
                                    if n != "word"}, doc=doc))
    if not out:
        raise _no_sentences(path, lines)
    return out


def _column_name(name: str, k: int) -> str:
    """A layout column's key in `Sentence.columns`: its name; the k-th column not read is
    kept as `_k`, so that a file written back (`write_layout`) keeps it."""
    return f"{SKIP}{k}" if name == SKIP else name


def write_layout(sentences: Iterable[Sentence], path_or_file: PathLike | TextIO, spec: str,
                 docstart: bool = False) -> None:
    """Sentences read by `read_layout(spec)`, written back in their columns' order,
    tab-separated (`docstart`: a -DOCSTART- line before each document)."""
    names = layout_columns(spec)
    with _open_out(path_or_file) as out:
        previous: int | None = None
        for k, s in enumerate(sentences):
            if docstart and s.doc != previous:
                out.write(DOCSTART + "\n\n")
                previous = s.doc
            cols = [s.words if n == "word" else s.columns[_column_name(n, j)]
                    for j, n in enumerate(names)]
            out.write(_format_rows(cols, "\t", f"sentence {k}"))


def read_dataset(path: PathLike, fmt: str | None = None) -> list[Sentence]:
    """Read ``path`` in format ``fmt`` (one of :data:`FORMATS`, or a column layout
    ``columns:word,_,ner``: `read_layout`), guessing it when ``None``."""
    fmt = guess_format(path) if fmt is None else fmt
    if fmt.startswith(LAYOUT):
        return read_layout(path, fmt[len(LAYOUT):])
    if fmt not in _READERS:
        raise DataFormatError(f"unknown format (expected one of {', '.join(FORMATS)}, got {fmt!r})")
    return _READERS[fmt](path)


# --------------------------------------------------------------------------- writers


@contextmanager
def _open_out(path_or_file: PathLike | TextIO) -> Iterator[TextIO]:
    """Yield a text stream; files we open are UTF-8 with ``\\n`` endings and closed after."""
    if hasattr(path_or_file, "write"):
        yield path_or_file  # type: ignore[misc]
        return
    with open(path_or_file, "w", encoding="utf-8", newline="\n") as out:  # type: ignore[arg-type]
        yield out


def _format_rows(cols: Sequence[Sequence[str]], sep: str, where: str) -> str:
    """Join columns into lines, refusing values that would not read back identically."""
    n = len(cols[0])
    if any(len(col) != n for col in cols):
        raise ValueError(f"{where}: columns differ in length ({[len(c) for c in cols]})")
    read_sep = None if sep == " " else sep
    lines = []
    for i, fields in enumerate(zip(*cols, strict=True)):
        line = sep.join(fields)
        if "\n" in line or _split(line.strip(), read_sep) != list(fields):
            raise ValueError(
                f"{where}, token {i}: values would not read back (expected non-empty values "
                f"without {sep!r}, line breaks or edge whitespace, got {fields!r})"
            )
        lines.append(line + "\n")
    return "".join(lines) + "\n"


def write_columns(
    sentences: Iterable[Sentence],
    path_or_file: PathLike | TextIO,
    names: Sequence[str],
    sep: str = " ",
    docstart: bool = False,
) -> None:
    """Write ``WORD col…`` lines with a blank line after each sentence.

    With ``docstart=True`` a ``-DOCSTART-`` line opens each new ``doc`` (CoNLL-2003 style).
    """
    if not sep:
        raise ValueError("empty separator")
    with _open_out(path_or_file) as out:
        previous: int | None = None
        for k, sentence in enumerate(sentences):
            if docstart and sentence.doc != previous:
                filler = ["-X-", *["O"] * (len(names) - 1)][: len(names)]
                out.write(sep.join([DOCSTART, *filler]) + "\n\n")
                previous = sentence.doc
            missing = [name for name in names if name not in sentence.columns]
            if missing:
                raise ValueError(
                    f"sentence {k}: no column {missing[0]!r} in {list(sentence.columns)}"
                )
            cols = [sentence.words, *(sentence.columns[name] for name in names)]
            out.write(_format_rows(cols, sep, f"sentence {k}"))


def _check_srl(sentence: Sentence, where: str) -> None:
    """Refuse SRL sentences whose predicates, lemmas and bracket columns disagree."""
    expected = [i for i, lemma in enumerate(sentence.columns["lemma"]) if lemma != "-"]
    if sentence.predicates != expected:
        raise ValueError(
            f"{where}: predicates {sentence.predicates} disagree with the PRED column "
            f"(expected {expected})"
        )
    if len(sentence.roles) != len(sentence.predicates):
        raise ValueError(
            f"{where}: {len(sentence.roles)} argument columns for "
            f"{len(sentence.predicates)} predicates"
        )
    for k, column in enumerate(sentence.roles):
        problem = _bracket_problem(column)
        if problem is not None:
            raise ValueError(f"{where}, argument column {k + 1}, token {problem[0]}: {problem[1]}")


def write_srl(sentences: Iterable[Sentence], path_or_file: PathLike | TextIO) -> None:
    """Write tab-separated CoNLL-2005 SRL columns that :func:`read_srl` reads back."""
    with _open_out(path_or_file) as out:
        for k, s in enumerate(sentences):
            where = f"sentence {k}"
            _check_srl(s, where)
            missing = [c for c in ("pos", "parse", "lemma") if c not in s.columns]
            if missing:
                raise ValueError(f"{where}: no column {missing[0]!r} in {list(s.columns)}")
            cols = [s.words, *(s.columns[c] for c in ("pos", "parse", "lemma")), *s.roles]
            out.write(_format_rows(cols, "\t", where))


# --------------------------------------------------------------------------- splitting


def split_train_dev(sentences: Iterable, dev_fraction: float = 0.1,
                    starts: Callable[[Any], bool] | None = None) -> tuple[list, list]:
    """Deterministic split: the last ``dev_fraction`` of sentences (rounded down) become dev.

    At least one dev sentence is kept when ``dev_fraction > 0`` and there are two or more.
    ``starts``: which items may open the dev part (a tree's level 0, so that no tree has
    levels on both sides); the cut moves back to the nearest such item.
    """
    if not 0.0 <= dev_fraction < 1.0:
        raise ValueError(f"dev_fraction must be in [0, 1), got {dev_fraction}")
    items = list(sentences)
    n_dev = math.floor(round(len(items) * dev_fraction, 9))
    if dev_fraction > 0 and n_dev == 0 and len(items) >= 2:
        n_dev = 1
    cut = len(items) - n_dev
    if starts is not None and n_dev:
        cut = next((i for i in range(cut, 0, -1) if starts(items[i])), cut)
    return items[:cut], items[cut:]


# The formats `write_dataset` writes (each one read back as it was written), and those of
# them separated by tabs.  The files of trees are not among them: the parser writes its
# trees itself (`senna evaluate --out`).
WRITABLE = tuple(f for f in FORMATS
                 if f not in ("conllu", "predicates", "gold_conll") + TREE_FORMATS)
_TAB_FORMATS = ("tagged", "pt0")


def write_dataset(sentences: Sequence[Sentence], path_or_file: PathLike | TextIO, fmt: str,
                  names: Sequence[str], docstart: bool = False) -> None:
    """Write sentences in format ``fmt`` so that ``read_dataset(path, fmt)`` reads them back:
    ``names`` are the columns after the word, as the format's reader names them;
    ``docstart``: a ``-DOCSTART-`` line opens each document (CoNLL-2002/2003 files)."""
    if fmt == "srl":
        write_srl(sentences, path_or_file)
        return
    if fmt.startswith(LAYOUT):
        write_layout(sentences, path_or_file, fmt[len(LAYOUT):], docstart)
        return
    if fmt not in WRITABLE:
        raise DataFormatError(f"cannot write format {fmt!r} (expected one of "
                              f"{', '.join(WRITABLE)})")
    write_columns(sentences, path_or_file, names, "\t" if fmt in _TAB_FORMATS else " ",
                  docstart and fmt in ("conll2002", "conll2003"))
