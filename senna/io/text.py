"""Opening text files that may be compressed: GloVe/word2vec files and LM corpora ship as
.gz or .xz; bad UTF-8 bytes are replaced on reading (one bad byte must not stop a corpus)."""

from __future__ import annotations

import gzip
import lzma
import os
from typing import IO


def open_text(path: str | os.PathLike, mode: str = "r") -> IO[str]:
    """Text file, gzip- or xz-compressed by its suffix; mode "r" or "w"."""
    name = str(path)
    errors = "replace" if mode == "r" else "strict"
    if name.endswith(".gz"):
        return gzip.open(path, mode + "t", encoding="utf-8", errors=errors)
    if name.endswith(".xz"):
        return lzma.open(path, mode + "t", encoding="utf-8", errors=errors)
    return open(path, mode, encoding="utf-8", errors=errors)
