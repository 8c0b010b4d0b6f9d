"""What the `senna` command reads besides its models: input lines, read as they come (a
pause is said, so output can be flushed) and bounded in length, and a -usrvbs file's
predicate flags."""

from __future__ import annotations

import os
import select
from collections.abc import Iterable, Iterator
from typing import BinaryIO, TextIO

from senna.cli.args import UsageError

# The longest input line read: one line is one paragraph (or -usrtokens sentence) and is
# held whole while it is tagged, so a stream without line breaks (/dev/zero, a binary
# file) is refused after this much instead of taking all the memory.  16 MiB is about
# 2.5 million words, tagged with every task in about 1 GB.
MAX_LINE = 1 << 24


def long_line(number: int) -> ValueError:
    return ValueError(f"input line {number} is longer than {MAX_LINE >> 20} MiB (expected one "
                      f"paragraph or sentence per line: is this a text file with line "
                      f"breaks?)")


def read_lines(stream: BinaryIO | Iterable[bytes]) -> Iterator[bytes | None]:
    """Lines of a byte stream; None whenever the next read would block (input paused);
    ValueError at a line longer than MAX_LINE bytes.

    Reads the file descriptor directly so `select` sees all unread data; streams without
    a selectable descriptor (files on Windows, in-memory buffers) are iterated plainly.
    """
    try:
        fd = stream.fileno()  # type: ignore[union-attr]
        select.select([fd], [], [], 0)
    except (AttributeError, OSError, ValueError):
        for number, line in enumerate(stream, 1):
            if len(line) > MAX_LINE:
                raise long_line(number) from None
            yield line
        return
    parts: list[bytes] = []
    held, number = 0, 0          # bytes of the unfinished line; lines yielded
    while True:
        if not select.select([fd], [], [], 0)[0]:
            yield None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        if b"\n" not in chunk:
            parts.append(chunk)
            held += len(chunk)
            if held > MAX_LINE:
                raise long_line(number + 1)
            continue
        lines = (b"".join(parts) + chunk).split(b"\n")
        parts = [lines.pop()]
        held = len(parts[0])
        for line in lines:
            number += 1
            if len(line) > MAX_LINE:
                raise long_line(number)
            yield line + b"\n"
        if held > MAX_LINE:
            raise long_line(number + 1)
    if b"".join(parts):
        yield b"".join(parts)


def read_usrvbs(path: str) -> Iterator[list[bool]]:
    """Sentences of predicate flags from a -usrvbs file (any line but '-' is a predicate);
    the file is opened now, so a missing file fails before any output."""
    return _usrvbs_sentences(open(path, encoding="utf-8", errors="replace"))


def open_usrvbs(path: str) -> Iterator[list[bool]]:
    """`read_usrvbs`, a file that cannot be opened being a bad argument (exit 2), as
    argparse reports a file option it cannot open; checked before the models load."""
    try:
        return read_usrvbs(path)
    except OSError as e:
        raise UsageError(f"-usrvbs: can't open {path!r}: {e.strerror or e}", "senna") from None


def _usrvbs_sentences(f: TextIO) -> Iterator[list[bool]]:
    with f:
        flags: list[bool] = []
        for line in f:
            item = line.strip()
            if item:
                flags.append(item != "-")
            elif flags:
                yield flags
                flags = []
        if flags:
            yield flags


