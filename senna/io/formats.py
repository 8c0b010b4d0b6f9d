"""The data formats by name: which reader reads each, guessing one from a file's name, and
reading or writing a dataset in a named format (or a column layout, ``columns:word,_,ner``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from senna.document import Sentence
from senna.io.conll import (
    read_conll2000,
    read_conll2002,
    read_conll2003,
    read_conllu,
    read_gold_conll,
    read_layout,
    read_predicates,
    read_pt0,
    read_srl,
    read_tagged,
)
from senna.io.conll_write import write_columns, write_layout, write_srl
from senna.io.lines import DataFormatError, PathLike
from senna.io.treebank import read_levels, read_trees
from senna.tasks import LAYOUT

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


def read_dataset(path: PathLike, fmt: str | None = None) -> list[Sentence]:
    """Read ``path`` in format ``fmt`` (one of :data:`FORMATS`, or a column layout
    ``columns:word,_,ner``: `read_layout`), guessing it when ``None``."""
    fmt = guess_format(path) if fmt is None else fmt
    if fmt.startswith(LAYOUT):
        return read_layout(path, fmt[len(LAYOUT):])
    if fmt not in _READERS:
        raise DataFormatError(f"unknown format (expected one of {', '.join(FORMATS)}, got {fmt!r})")
    return _READERS[fmt](path)


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
