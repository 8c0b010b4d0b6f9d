"""`senna export-embeddings`: convert word vectors between word2vec/GloVe text and senna's
embeddings directory, either way, to take ours to other tools or bring theirs here."""

from __future__ import annotations

import argparse
import os
import sys

from senna.cli.args import Parser
from senna.embeddings import read_embeddings, read_metadata, save_embeddings, write_embeddings

RESERVED = ("format", "version", "count", "dim", "dtype")


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna export-embeddings", description=__doc__)
    p.add_argument("--from", dest="source", required=True,
                   help="senna embeddings directory or text file (.gz/.xz too)")
    p.add_argument("--to", dest="target", required=True,
                   help="output: a directory (senna) or a file (text; .gz/.xz compresses)")
    p.add_argument("--format", choices=("text", "senna"),
                   help="output format (default: the other one than --from's)")
    p.add_argument("--limit", type=int, help="keep only the first N words (most frequent)")
    p.add_argument("--dtype", choices=("float16", "float32"),
                   help="stored precision, senna format only (default: float32)")
    return p


def main(argv: list[str]) -> int:
    p = parser()
    a = p.parse_args(argv)
    if a.limit is not None and a.limit < 1:
        p.error(f"--limit must be at least 1, got {a.limit}")
    if os.path.abspath(a.source) == os.path.abspath(a.target):
        p.error("--from and --to are the same path")
    source_is_dir = os.path.isdir(a.source)
    fmt = a.format or ("text" if source_is_dir else "senna")
    if a.dtype and fmt != "senna":
        p.error("--dtype applies to --format senna only")
    words, vectors = read_embeddings(a.source, limit=a.limit)
    if fmt == "text":
        write_embeddings(a.target, words, vectors)
    else:
        meta = {k: v for k, v in read_metadata(a.source).items() if k not in RESERVED}
        meta["converted_from"] = os.path.abspath(a.source)
        if a.limit:
            meta["limit"] = a.limit
        save_embeddings(a.target, words, vectors, meta, dtype=a.dtype or "float32")
    print(f"senna: {len(words)} vectors of {vectors.shape[1]} values written to {a.target} "
          f"({fmt})", file=sys.stderr)
    return 0
