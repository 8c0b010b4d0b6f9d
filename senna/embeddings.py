"""Word vectors in word2vec/GloVe text format: `word v1 ... vd` per line, optional
`count dim` header.  Keys are normalised like the tagger's words so both agree on what a word is.
"""

from __future__ import annotations

import os

import numpy as np

from senna.text.normalize import normalize_word
from senna.vocab import Vocab


def read_embeddings(path: str | os.PathLike, limit: int | None = None
                    ) -> tuple[list[str], np.ndarray]:
    """-> (words, vectors [N, D]); the first vector of a normalised word wins."""
    words: list[str] = []
    rows: list[np.ndarray] = []
    seen: set[str] = set()
    dim = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            parts = line.rstrip().split(" ")
            if n == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                continue
            if len(parts) < 2:
                continue
            try:
                vec = np.array(parts[1:], dtype=np.float32)
            except ValueError:
                raise ValueError(f"{path}:{n}: expected 'word v1 ... vd'") from None
            dim = dim or len(vec)
            if len(vec) != dim:
                raise ValueError(f"{path}:{n}: {len(vec)} values, expected {dim}")
            w = normalize_word(parts[0]) if parts[0] not in ("PADDING", "RARE") else parts[0]
            if w not in seen:
                seen.add(w)
                words.append(w)
                rows.append(vec)
            if limit and len(words) >= limit:
                break
    if not rows:
        raise ValueError(f"{path}: no vectors found")
    return words, np.stack(rows)


def write_embeddings(path: str | os.PathLike, words: list[str], vectors: np.ndarray) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{len(words)} {vectors.shape[1]}\n")
        for w, v in zip(words, vectors, strict=True):
            f.write(w + " " + " ".join(f"{x:.6g}" for x in v) + "\n")


def embedding_matrix(vocab: Vocab, words: list[str], vectors: np.ndarray,
                     init: np.ndarray) -> tuple[np.ndarray, int]:
    """Copy known vectors into a lookup table initialised as `init`; -> (table, hits)."""
    table = init.copy()
    index = {w: i for i, w in enumerate(words)}
    hits = 0
    for j, w in enumerate(vocab.items):
        i = index.get(w)
        if i is not None:
            table[j] = vectors[i]
            hits += 1
    return table, hits
