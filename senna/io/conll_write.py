"""Writers of the data files `senna.io.conll` reads: each refuses a value that would not
read back as it was written (a separator or line break inside a value, an SRL sentence whose
predicates and argument columns disagree)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TextIO

from senna.document import Sentence
from senna.io.conll import DOCSTART, bracket_problem, layout_key, split_row
from senna.io.lines import PathLike
from senna.tasks import layout_columns


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
        if "\n" in line or split_row(line.strip(), read_sep) != list(fields):
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
        problem = bracket_problem(column)
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
            cols = [s.words if n == "word" else s.columns[layout_key(n, j)]
                    for j, n in enumerate(names)]
            out.write(_format_rows(cols, "\t", f"sentence {k}"))
