"""Training inputs: the word dictionary and initial embeddings."""

from __future__ import annotations

import os
from collections import Counter
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from senna.embeddings import embedding_matrix, read_embeddings, scaled
from senna.features.featurizer import Featurizer
from senna.features.kinds import WordFeature
from senna.nn.networks import Tagger
from senna.text.normalize import normalize_word
from senna.vocab import Vocab


def word_vocab(cfg, train_sents: list) -> Vocab:
    """Training words seen min_count times, then embedding-file words, up to max_words."""
    counts = Counter(normalize_word(w) for s in train_sents for w in s.words)
    vocab = Vocab.from_counts(counts, cfg.max_words, cfg.min_count)
    if cfg.embeddings:
        words = embeddings_file(cfg.embeddings)[0]
        words = words[: cfg.max_words] if cfg.max_words else words
        room = cfg.max_words - len(vocab)
        vocab = Vocab(vocab.items + [w for w in words if w not in vocab][: max(room, 0)])
    return vocab


def initial_embeddings(net: Tagger, featurizer: Featurizer, path: str) -> tuple[int, float]:
    """Copy vectors into the word lookup table, rescaled to unit standard deviation (the
    scale of a randomly initialised table); -> (words found, the divisor used)."""
    j = featurizer.index(WordFeature)
    table = net.emb.tables[j].weight
    words, vectors = embeddings_file(path)
    if vectors.shape[1] != table.shape[1]:
        raise ValueError(f"{path}: vectors of {vectors.shape[1]} values, the word table "
                         f"has {table.shape[1]} (set --word-dim)")
    divisor = max(float(vectors.std()), 1e-8)
    vectors = scaled(vectors, divisor)
    init = table.detach().numpy()
    new, hits = embedding_matrix(featurizer.vocabs[featurizer.specs[j].name].items, words,
                                   vectors, init)
    with torch.no_grad():
        table.copy_(torch.from_numpy(np.asarray(new, dtype=np.float32)))
    return hits, divisor


def embeddings_file(path: str) -> tuple[list[str], np.ndarray]:
    """The words and vectors of an embeddings file or directory (senna.embeddings), read
    once for the dictionary and the initial table of every task that starts from it (the
    last one read is kept; read again if its files changed).  Not to be modified."""
    folder = Path(path)
    try:
        files = sorted(folder.iterdir()) if folder.is_dir() else [folder]
        stamp = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files
                      if f.is_file())
    except OSError:   # read_embeddings says what is wrong
        return read_embeddings(path)
    return _read(os.path.abspath(path), stamp)


@lru_cache(maxsize=1)
def _read(path: str, stamp: tuple) -> tuple[list[str], np.ndarray]:
    return read_embeddings(path)
