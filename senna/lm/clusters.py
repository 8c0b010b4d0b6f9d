"""Word clusters from unlabeled text: a cased word -> cluster ids at a few granularities, the
lexicon behind the `cluster` feature (`senna.features.kinds.ClusterFeature`).

Why, beside the language model's embeddings: those are lower-cased and one vector per word,
while cluster ids of the word *as written* ("May" / "may", "Bush" / "bush") are a second,
coarse view that taggers of the same era combined with embeddings (Turian et al. 2010, Brown
clusters with C&W embeddings; Ratinov & Roth 2009 for NER).  Clusters here are k-means over
word2vec vectors (gensim) of the cased text, at several granularities, as Brown-cluster
prefixes of several lengths are used: the coarse ids generalise, the fine ones discriminate.

Steps (`senna lm clusters`): tokenise the text exactly as the tagger does
(``senna.text.tokenize``), keep case, write every digit as 0 (`cluster_key`); train word2vec;
cluster the vectors of the most frequent words; write ``clusters.lst``
(`senna.features.lexicons.Lexicon`).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from senna.features.lexicons import Lexicon, cluster_key
from senna.features.specs import CLUSTER_SIZES
from senna.lm.corpus import articles
from senna.text.tokenize import tokenize


def _tokenise_shard(path: str, index: int, count: int, out: str) -> str:
    """Every `count`-th article of `path` -> one sentence a line of keys, space separated."""
    with open(out, "w", encoding="utf-8") as f:
        for n, block in enumerate(articles(path)):
            if n % count != index:
                continue
            for para in block:
                for sent in tokenize(para):
                    keys = [cluster_key(t.text) for t in sent if not any(map(str.isspace,
                                                                              t.text))]
                    if keys:
                        f.write(" ".join(keys) + "\n")
    return out


def tokenise(sources: Sequence[str | os.PathLike], out: str | os.PathLike, *, workers: int = 2,
             shards: int = 8, progress: bool = True) -> Path:
    """Raw text files (.txt, .xz, .gz) -> `out`/text.txt, one tokenised sentence a line."""
    from tqdm import tqdm

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(str(p), i, shards, str(out / f"shard.{k}.{i}.txt"))
            for k, p in enumerate(sources) for i in range(shards)]
    with ProcessPoolExecutor(workers) as pool:
        futures = [pool.submit(_tokenise_shard, *j) for j in jobs]
        for fut in tqdm(as_completed(futures), total=len(futures), desc="tokenise shards",
                        disable=not progress):
            fut.result()
    text = out / "text.txt"
    with open(text, "wb") as f:
        for *_, shard in jobs:
            with open(shard, "rb") as s:
                shutil.copyfileobj(s, f)
            os.remove(shard)
    return text


def kmeans(x: np.ndarray, k: int, *, iterations: int = 25, seed: int = 1) -> np.ndarray:
    """Spherical k-means (cosine) of the rows of `x` -> [len(x)] cluster ids.  Why not a
    library's: scikit-learn would be a dependency for these twenty lines of NumPy."""
    rng = np.random.default_rng(seed)
    x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-8)
    centres = x[rng.choice(len(x), k, replace=False)]
    assign = np.zeros(len(x), dtype=np.int64)
    for _ in range(iterations):
        for lo in range(0, len(x), 65536):   # bounded memory: [65536, k] similarities
            assign[lo:lo + 65536] = (x[lo:lo + 65536] @ centres.T).argmax(1)
        sums = np.zeros_like(centres)
        np.add.at(sums, assign, x)
        empty = np.bincount(assign, minlength=k) == 0
        sums[empty] = x[rng.choice(len(x), int(empty.sum()), replace=False)]
        centres = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-8)
    return assign


def build(text: str | os.PathLike, out: str | os.PathLike, *,
          sizes: Sequence[int] = CLUSTER_SIZES, words: int = 150_000, dim: int = 100,
          window: int = 5, epochs: int = 5, min_count: int = 5, workers: int = 2,
          seed: int = 1) -> Path:
    """word2vec (CBOW) on `text` -> k-means of the `words` most frequent keys' vectors at each
    granularity -> `out`/clusters.lst and clusters.json (the settings)."""
    from gensim.models import Word2Vec
    from gensim.models.word2vec import LineSentence

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model = Word2Vec(LineSentence(str(text)), vector_size=dim, window=window,
                     min_count=min_count, workers=workers, epochs=epochs, seed=seed, sg=0)
    keys = model.wv.index_to_key[:words]          # most frequent first
    vectors = model.wv.vectors[:len(keys)]
    ids = [kmeans(vectors, k, seed=seed) for k in sizes]
    entries = {key: tuple(int(a[i]) for a in ids) for i, key in enumerate(keys)}
    Lexicon(sizes, entries).save(out / "clusters.lst")
    settings = {"text": str(text), "sizes": list(sizes), "words": len(keys), "dim": dim,
                "window": window, "epochs": epochs, "min_count": min_count, "seed": seed,
                "algorithm": "gensim Word2Vec CBOW, then spherical k-means per size",
                "corpus_keys": len(model.wv.index_to_key)}
    (out / "clusters.json").write_text(json.dumps(settings, indent=1) + "\n")
    return out
