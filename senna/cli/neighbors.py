"""`senna neighbors WORD ...`: the nearest words in an embedding space, as in Table 7 of
Collobert et al. (2011), and optionally a 2-D map of them, to see what the embeddings learnt
(ours, or word2vec/GloVe vectors for comparison)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from senna.cli.args import Parser
from senna.embeddings import (
    DEFAULT_EMBEDDINGS,
    frequency_rank,
    nearest_neighbors,
    normalize_key,
    plot_map,
    read_embeddings,
)


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna neighbors", description=__doc__)
    p.add_argument("words", nargs="+", metavar="WORD", help="query words (normalised like "
                   "the tagger's: lower-cased, digit runs -> NUMBER)")
    p.add_argument("--embeddings", default=None,
                   help="senna embeddings directory or word2vec/GloVe text file (.gz/.xz "
                   f"too); default: {DEFAULT_EMBEDDINGS}")
    p.add_argument("-k", type=int, default=10, help="neighbours per word (default: 10)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--scores", action="store_true", help="show cosine similarities in the table")
    p.add_argument("--plot", metavar="OUT.png", help="draw the words on a 2-D map")
    p.add_argument("--method", choices=("pca", "tsne"), default="pca",
                   help="projection for --plot (tsne needs scikit-learn)")
    p.add_argument("--with-neighbors", action="store_true",
                   help="--plot draws each word's neighbours too, in its colour")
    return p


def format_table(columns: list[tuple[str, list[str]]]) -> str:
    """Columns of (header, cells) side by side, left-aligned, the paper's Table 7 layout."""
    widths = [max([len(h), *map(len, cells)]) for h, cells in columns]
    depth = max(len(cells) for _, cells in columns)
    lines = ["  ".join(h.ljust(w) for (h, _), w in zip(columns, widths, strict=True)),
             "  ".join("-" * w for w in widths)]
    for i in range(depth):
        lines.append("  ".join((cells[i] if i < len(cells) else "").ljust(w)
                               for (_, cells), w in zip(columns, widths, strict=True)))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def main(argv: list[str]) -> int:
    p = parser()
    a = p.parse_args(argv)
    if a.k < 1:
        p.error(f"-k must be at least 1, got {a.k}")
    path = a.embeddings
    if path is None:
        path = DEFAULT_EMBEDDINGS
        if not os.path.exists(path):
            raise ValueError(f"no embeddings at {path}; pass --embeddings PATH (a senna "
                             "embeddings directory or a word2vec/GloVe text file)")
    words, vectors = read_embeddings(path)
    found = nearest_neighbors(words, vectors, a.words, k=a.k)
    index = {w: i for i, w in enumerate(words)}
    known = []
    for q in found:
        if normalize_key(q) in index:
            known.append(q)
        else:
            print(f"senna: {q!r} is not in the dictionary", file=sys.stderr)
    if not known:
        return 1
    ranks = {q: frequency_rank(words, index[normalize_key(q)]) for q in known}
    if a.format == "json":
        data = {q: {"word": normalize_key(q), "rank": ranks[q],
                    "neighbors": [{"word": w, "score": round(s, 6)} for w, s in found[q]]}
                for q in known}
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        cell = (lambda w, s: f"{w} {s:.3f}") if a.scores else (lambda w, s: w)
        sys.stdout.write(format_table([(f"{q} {ranks[q]}", [cell(w, s) for w, s in found[q]])
                                       for q in known]))
    sys.stdout.flush()
    if a.plot:
        n = plot_map(a.plot, words, vectors, known, found if a.with_neighbors else None,
                     method=a.method)
        print(f"senna: map of {n} words written to {a.plot}", file=sys.stderr)
    return 0
