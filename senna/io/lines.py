"""Reading a data file's lines with bounds: UTF-8 checked with the line of a bad byte,
and a line longer than MAX_LINE bytes refused, so that a file without line breaks
(/dev/zero, a binary file) costs a few MiB, not all the memory.  DataFormatError is the
error every data reader raises, naming the file and line."""

from __future__ import annotations

import codecs
import os

PathLike = str | os.PathLike[str]


class DataFormatError(ValueError):
    """A data file is malformed; the message reads ``path:line: what (expected …, got …)``."""

    def __init__(self, what: str, path: PathLike | None = None, line: int | None = None) -> None:
        self.what = what
        self.path = None if path is None else os.fspath(path)
        self.line = line
        if self.path is None:
            message = what
        elif line is None:
            message = f"{self.path}: {what}"
        else:
            message = f"{self.path}:{line}: {what}"
        super().__init__(message)


# The longest line a data file may hold, and the pieces it is read in: a file without line
# breaks (/dev/zero, a stream gone wrong) is refused after reading that much, instead of
# being held whole in memory.
MAX_LINE = 1 << 20
_PIECE = 1 << 20


def read_lines(path: PathLike) -> list[str]:
    """Read a whole file as UTF-8 lines, in pieces of `_PIECE` bytes; a line longer than
    MAX_LINE bytes is an error naming it."""
    try:
        with open(path, "rb") as f:
            return _lines_of(f, path)
    except OSError as err:
        reason = err.strerror or str(err)
        raise DataFormatError(
            f"cannot read file (expected a readable file, got {type(err).__name__}: {reason})",
            path,
        ) from None


def _lines_of(f, path: PathLike) -> list[str]:
    """The UTF-8 lines of an open binary file (`read_lines`)."""
    texts: list[str] = []
    rest, before, first = b"", 0, True        # before: line breaks in the pieces read
    while True:
        piece = f.read(_PIECE)
        if first and piece.startswith(codecs.BOM_UTF8):
            piece = piece[len(codecs.BOM_UTF8) :]
        first = False
        end = piece.rfind(b"\n") + 1
        whole, rest = (rest + piece[:end], piece[end:]) if end else (b"", rest + piece)
        if whole:
            lines = whole.split(b"\n")
            if max(map(len, lines)) > MAX_LINE:
                k = next(k for k, line in enumerate(lines) if len(line) > MAX_LINE)
                raise _too_long(path, before + k + 1)
            texts.append(_decoded(whole, path, before))
            before += len(lines) - 1
        if len(rest) > MAX_LINE:
            raise _too_long(path, before + 1)
        if not piece:
            break
    texts.append(_decoded(rest, path, before))
    return "".join(texts).split("\n")  # not splitlines(): it also breaks on \x1c, \x85 ...


def _too_long(path: PathLike, line: int) -> DataFormatError:
    return DataFormatError(f"line longer than {MAX_LINE} bytes (expected lines of at most "
                           f"{MAX_LINE // (1 << 20)} MiB: is this a text file with line "
                           "breaks?)", path, line)


def _decoded(data: bytes, path: PathLike, before: int) -> str:
    """UTF-8 bytes as text; an error names the line of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = before + data.count(b"\n", 0, err.start) + 1
        raise DataFormatError(
            f"invalid UTF-8 (expected UTF-8 text, got byte {data[err.start]:#04x})", path, line
        ) from None
