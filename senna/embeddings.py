"""Word vectors: reading, writing, nearest neighbours and 2-D maps.

Two formats, so our embeddings can go to other tools and theirs can come here for comparison:

- text, as word2vec and GloVe write it: `word v1 ... vd` per line, optional `count dim` header,
  optionally gzip (`.gz`) or xz (`.xz`) compressed;
- the project's own: a directory with `words.lst` (one word per line, line i = row i),
  `vectors.npz` (one array `vectors` [N, D], float16 or float32, no pickles) and
  `embeddings.json` (format, version, count, dim, dtype and free-form metadata such as the
  corpus and the training settings).  Loading it is one `np.load`, much faster than parsing text.

Keys are normalised like the tagger's words so both agree on what a word is.
"""

from __future__ import annotations

import gzip
import json
import lzma
import os
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from senna.io.manifest import (
    drop_manifest,
    inside,
    quiet,
    read_json,
    verify,
    write_manifest,
)
from senna.io.npz import load_npz
from senna.io.text import open_text
from senna.text.normalize import NUMBER, PADDING, RARE, normalize_word
from senna.vocab import read_vocabulary

FORMAT = "senna-embeddings"
VERSION = 1
WORDS_FILE = "words.lst"
VECTORS_FILE = "vectors.npz"
META_FILE = "embeddings.json"
DTYPES = ("float16", "float32")
REQUIRED = (WORDS_FILE, VECTORS_FILE, META_FILE)
LM_FILE = "lm.npz"   # the language model's hidden layers (`senna lm export` writes them)
SPECIAL = (PADDING, RARE)

#: Where the language model's embeddings are shipped (written by the LM training).
DEFAULT_EMBEDDINGS = Path(__file__).resolve().parent / "models" / "embeddings"


def normalize_key(word: str) -> str:
    """`normalize_word`, but leaving an existing NUMBER alone, so normalised words map to
    themselves (our own exported "NUMBER,NUMBER" would otherwise read back as "number,number");
    PADDING and RARE stay as they are."""
    if word in SPECIAL:
        return word
    if NUMBER not in word:
        return normalize_word(word)
    return NUMBER.join(normalize_word(p) for p in word.split(NUMBER))


def read_embeddings(path: str | os.PathLike, limit: int | None = None
                    ) -> tuple[list[str], np.ndarray]:
    """-> (words, float32 vectors [N, D]) from an embeddings directory or a text file.

    At most `limit` words (the first ones: files are sorted by frequency).  In a text file the
    first vector of a normalised word wins.
    """
    if os.path.isdir(path):
        return _read_dir(path, limit)
    try:
        return _read_text(path, limit)
    except (EOFError, lzma.LZMAError, gzip.BadGzipFile, zlib.error) as e:
        raise ValueError(f"{path}: not a readable compressed file ({e})") from None


def _read_text(path: str | os.PathLike, limit: int | None) -> tuple[list[str], np.ndarray]:
    words: list[str] = []
    rows: list[np.ndarray] = []
    seen: set[str] = set()
    dim = None
    with open_text(path, "r") as f:
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
            w = normalize_key(parts[0])
            if w not in seen:
                seen.add(w)
                words.append(w)
                rows.append(vec)
            if limit and len(words) >= limit:
                break
    if not rows:
        raise ValueError(f"{path}: no vectors found")
    return words, np.stack(rows)


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """`embeddings.json` of an embeddings directory, checked; {} for a text file."""
    if not os.path.isdir(path):
        return {}
    file = Path(path) / META_FILE
    try:
        meta = read_json(file)
    except FileNotFoundError:
        raise ValueError(f"{path}: not an embeddings directory (no {META_FILE})") from None
    except (OSError, ValueError) as e:
        raise ValueError(f"{file}: unreadable ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{file}: not a {FORMAT} file")
    if not isinstance(meta.get("version"), int) or meta["version"] > VERSION:
        raise ValueError(f"{file}: version {meta.get('version')!r}, this senna reads "
                         f"up to {VERSION}")
    for key in ("count", "dim"):
        if not isinstance(meta.get(key), int) or meta[key] < 0:
            raise ValueError(f"{file}: '{key}' must be a non-negative integer")
    return meta


def embedding_files(path: str | os.PathLike) -> list[str]:
    """The files of an embeddings directory that its manifest records."""
    return [*REQUIRED, *(n for n in (LM_FILE,) if (Path(path) / n).exists())]


def seal_embeddings(path: str | os.PathLike) -> None:
    """Read an embeddings directory with every check, then write its manifest."""
    with quiet():
        _read_dir(path, None)
    write_manifest(path, embedding_files(path))


def read_stored(path: str | os.PathLike) -> tuple[bytes, np.ndarray]:
    """An embeddings directory as stored, checked: (words.lst's bytes, one word a line;
    vectors [N, D] in their stored dtype).  What a tagger needs at run time, where decoding
    130k words would cost more than the rows it reads (`senna.vocab.FileIndex`).  Its files
    must be its own (no links out of it) and, where it has a manifest, as saved."""
    root = Path(path)
    inside(root, embedding_files(root))
    verify(root, embedding_files(root))   # before any file is parsed
    meta = read_metadata(path)
    try:   # a FIFO: refused, not waited on; no more lines than embeddings.json says
        words = read_vocabulary(root / WORDS_FILE, entries=meta["count"],
                                expected=f"but {META_FILE} says {meta['count']:,} words")
        words.decode("utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: incomplete embeddings directory (no {WORDS_FILE})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{root / WORDS_FILE}: unreadable ({e})") from None
    if not (root / VECTORS_FILE).is_file():
        raise ValueError(f"{path}: incomplete embeddings directory (no {VECTORS_FILE})")
    count = words.count(b"\n") + (not words.endswith(b"\n") and bool(words))

    def expect(name: str, shape: tuple[int, ...], dtype: np.dtype) -> None:
        if name != "vectors" or shape != (count, meta["dim"]) or dtype.name not in DTYPES:
            raise ValueError(f"{root / VECTORS_FILE}: array '{name}' ({dtype}, shape "
                             f"{shape}), expected 'vectors' of float16 or float32, shape "
                             f"{(count, meta['dim'])} ({count} words, dim {meta['dim']} "
                             f"in {META_FILE})")

    try:
        vectors = load_npz(root / VECTORS_FILE, expect)["vectors"]
    except Exception as e:  # numpy, zipfile and zlib raise many types on a damaged file
        text = str(e)
        raise ValueError(text if text.startswith(str(root / VECTORS_FILE)) else
                         f"{root / VECTORS_FILE}: unreadable ({type(e).__name__}: {text})"
                         ) from None
    if vectors.ndim != 2 or vectors.dtype.kind != "f":
        raise ValueError(f"{root / VECTORS_FILE}: expected a 2-D float array 'vectors', got "
                         f"{vectors.dtype} of shape {vectors.shape}")
    if count != vectors.shape[0]:
        raise ValueError(f"{path}: {count} words but {vectors.shape[0]} vectors")
    if meta["count"] != count:
        raise ValueError(f"{path}: {META_FILE} says {meta['count']} words, found {count}")
    if meta["dim"] != vectors.shape[1]:
        raise ValueError(f"{path}: {META_FILE} says dim {meta['dim']}, vectors have "
                         f"{vectors.shape[1]}")
    return words, vectors


def _read_dir(path: str | os.PathLike, limit: int | None) -> tuple[list[str], np.ndarray]:
    data, vectors = read_stored(path)
    words = data.decode("utf-8").split("\n")
    if words and words[-1] == "":
        words.pop()
    if len(set(words)) != len(words):
        raise ValueError(f"{path}: {WORDS_FILE} lists a word twice")
    if limit:
        words, vectors = words[:limit], vectors[:limit]
    return words, np.asarray(vectors, dtype=np.float32)


def _check_words(words: Sequence[str], vectors: np.ndarray, text: bool) -> np.ndarray:
    """Reject what the formats cannot hold back, rather than writing a file that reads wrong."""
    vectors = np.asarray(vectors)
    if vectors.ndim != 2:
        raise ValueError(f"vectors must be 2-D, got shape {vectors.shape}")
    if len(words) != vectors.shape[0]:
        raise ValueError(f"{len(words)} words but {vectors.shape[0]} vectors")
    bad = " \n\r" if text else "\n"
    for w in words:
        if not w or any(c in w for c in bad):
            raise ValueError(f"cannot store the word {w!r} in this format")
    if len(set(words)) != len(words):
        raise ValueError("a word appears twice")
    return vectors


def write_embeddings(path: str | os.PathLike, words: Sequence[str], vectors: np.ndarray
                     ) -> None:
    """word2vec text format with a `count dim` header (GloVe tools skip or accept it); gzip or
    xz compressed when `path` ends in .gz / .xz.  Values are the shortest decimal strings that
    read back to the same float32, so text <-> directory round trips are exact."""
    vectors = _check_words(words, vectors, text=True).astype(np.float32, copy=False)
    with open_text(path, "w") as f:
        f.write(f"{len(words)} {vectors.shape[1]}\n")
        for w, v in zip(words, vectors, strict=True):
            f.write(w + " " + " ".join(map(str, v)) + "\n")


def save_embeddings(path: str | os.PathLike, words: Sequence[str], vectors: np.ndarray,
                    meta: dict[str, Any] | None = None, dtype: str = "float32") -> None:
    """Write an embeddings directory (created if needed); `meta` is stored in embeddings.json
    next to the format fields (which win on a name clash)."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    vectors = _check_words(words, vectors, text=False)
    with np.errstate(over="ignore"):
        stored = vectors.astype(dtype)
    if not np.isfinite(stored).all() and np.isfinite(vectors).all():
        raise ValueError(f"values too large for {dtype}; use float32")
    info: dict[str, Any] = {"format": FORMAT, "version": VERSION, "count": len(words),
                            "dim": int(vectors.shape[1]), "dtype": dtype}
    info.update((k, v) for k, v in (meta or {}).items() if k not in info)
    try:
        text = json.dumps(info, indent=2, ensure_ascii=False) + "\n"
    except (TypeError, ValueError) as e:
        raise ValueError(f"metadata is not JSON-serialisable: {e}") from None
    root = Path(path)
    root.mkdir(parents=True, exist_ok=True)
    drop_manifest(root)
    with open(root / WORDS_FILE, "w", encoding="utf-8", newline="") as f:
        f.write("".join(w + "\n" for w in words))
    np.savez(root / VECTORS_FILE, vectors=stored)
    with open(root / META_FILE, "w", encoding="utf-8") as f:
        f.write(text)
    write_manifest(root, embedding_files(root))


def scaled(vectors: np.ndarray, divisor: float) -> np.ndarray:
    """Vectors as a tagger's word table starts from them: float32, divided by `divisor` (the
    vectors' standard deviation, so the table has a random table's scale).  One function for
    training and for models that read rows from the embeddings later: same operation, same
    bits."""
    return vectors.astype(np.float32) / divisor


def embedding_matrix(items: Sequence[str], words: list[str], vectors: np.ndarray,
                     init: np.ndarray) -> tuple[np.ndarray, int]:
    """Copy the vectors of `words` into a lookup table initialised as `init` whose row j is
    `items[j]` (a vocabulary's items); -> (table, hits)."""
    table = init.copy()
    index = {w: i for i, w in enumerate(words)}
    hits = 0
    for j, w in enumerate(items):
        i = index.get(w)
        if i is not None:
            table[j] = vectors[i]
            hits += 1
    return table, hits


def find_word(words: Sequence[str], query: str) -> int | None:
    """Row of `query` once normalised like the tagger's words, or None."""
    key = normalize_key(query)
    return next((i for i, w in enumerate(words) if w == key), None)


def frequency_rank(words: Sequence[str], row: int) -> int:
    """1-based rank of a row among the real words (PADDING and RARE not counted), which is
    its frequency rank when the dictionary is sorted by frequency, like the paper's Table 7."""
    return row + 1 - sum(1 for w in words[:row] if w in SPECIAL)


def nearest_neighbors(words: Sequence[str], vectors: np.ndarray, queries: Iterable[str],
                      k: int = 10) -> dict[str, list[tuple[str, float]]]:
    """The k words of highest cosine similarity to each query, best first.

    The query itself, PADDING and RARE are never neighbours.  A query not in `words` maps to
    [] (the caller reports it).  One matrix product of the queries against unit-length rows,
    so 130k x 50 takes milliseconds.
    """
    queries = list(dict.fromkeys(queries))
    index = {w: i for i, w in enumerate(words)}
    rows = {q: index.get(normalize_key(q)) for q in queries}
    known = [q for q in queries if rows[q] is not None]
    result: dict[str, list[tuple[str, float]]] = {q: [] for q in queries}
    if not known or k < 1:
        return result
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.maximum(norms, 1e-12)
    q_rows = np.array([rows[q] for q in known])
    sims = unit[q_rows] @ unit.T
    sims[np.arange(len(known)), q_rows] = -np.inf
    for s in SPECIAL:
        if s in index:
            sims[:, index[s]] = -np.inf
    excluded = 1 + sum(s in index for s in SPECIAL)
    k = min(k, len(words) - excluded)
    if k < 1:
        return result
    top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    for q, cand, row in zip(known, top, sims, strict=True):
        order = cand[np.argsort(-row[cand], kind="stable")]
        result[q] = [(words[i], float(row[i])) for i in order]
    return result


def project_2d(vectors: np.ndarray, method: str = "pca", seed: int = 0) -> np.ndarray:
    """[n, D] -> [n, 2] points for a map of a few chosen words: PCA (NumPy SVD of the centred
    vectors) or t-SNE (scikit-learn, which keeps close words close rather than far ones far)."""
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"vectors must be 2-D, got shape {x.shape}")
    n = x.shape[0]
    if method == "pca":
        out = np.zeros((n, 2))
        if n < 2:
            return out
        x = x - x.mean(axis=0)
        u, s, _ = np.linalg.svd(x, full_matrices=False)
        m = min(2, s.shape[0])
        out[:, :m] = u[:, :m] * s[:m]
        return out
    if method == "tsne":
        try:
            from sklearn.manifold import TSNE
        except ImportError:
            raise ValueError("t-SNE needs scikit-learn: pip install scikit-learn, "
                             "or use method 'pca'") from None
        if n < 3:
            return project_2d(vectors, "pca")
        perplexity = float(min(30.0, max(1.0, (n - 1) / 3)))
        tsne = TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed)
        return tsne.fit_transform(x)
    raise ValueError(f"unknown projection {method!r}; use 'pca' or 'tsne'")


def plot_map(out: str | os.PathLike, words: Sequence[str], vectors: np.ndarray,
             queries: Sequence[str], neighbors: dict[str, list[tuple[str, float]]] | None = None,
             method: str = "pca") -> int:
    """Draw the known `queries` (and their `neighbors`, in the query's colour) on a 2-D map in
    a PNG; -> number of words drawn.  Only the drawn words are projected, so they spread over
    the whole map."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ValueError("--plot needs matplotlib: pip install matplotlib") from None
    index = {w: i for i, w in enumerate(words)}
    known: dict[int, str] = {}
    for q in queries:
        row = index.get(normalize_key(q))
        if row is not None:
            known.setdefault(row, q)
    # queries first, so a query that is also another's neighbour keeps its own colour
    labels = list(known.values())
    rows = list(known)
    groups = list(range(len(known)))
    placed = set(rows)
    for g, q in enumerate(labels):
        for w, _ in (neighbors or {}).get(q, []):
            if index[w] not in placed:
                placed.add(index[w])
                labels.append(w)
                rows.append(index[w])
                groups.append(g)
    if not rows:
        raise ValueError("none of the words to plot is in the dictionary")
    points = project_2d(np.asarray(vectors)[rows], method)
    fig = Figure(figsize=(8, 8), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colors = [f"C{g % 10}" for g in groups]
    is_query = [i < len(known) for i in range(len(rows))]
    ax.scatter(points[:, 0], points[:, 1], c=colors, s=[40 if q else 15 for q in is_query])
    for (x, y), label, color, q in zip(points, labels, colors, is_query, strict=True):
        ax.annotate(label, (x, y), xytext=(3, 3), textcoords="offset points", color=color,
                    fontsize=11 if q else 8, fontweight="bold" if q else "normal")
    ax.margins(0.12)
    ax.set_title(f"word embeddings, {method.upper()} projection")
    ax.set_xticks([])
    ax.set_yticks([])
    fig.tight_layout()
    fig.savefig(out, format="png")
    return len(rows)


# The licences of the unlabeled text files the project's data folder holds (its README),
# by the start of their names; any other text's terms are its user's to state.
TEXT_LICENCES = (
    ("enwiki_", "Wikipedia text is CC BY-SA 3.0."),
    ("reuters21578", "Reuters-21578 is distributed for research purposes only, and so are "
                     "embeddings trained on it."),
    ("es_parlamint", "ParlaMint-ES is CC BY 4.0."),
    ("es_conha19", "The conha19 novels are in the public domain (Public Domain Mark)."),
    ("nl_wetten", "Dutch statutes and regulations carry no copyright (Auteurswet, art. 11)."),
)


def text_licences(files: list[str]) -> str:
    """What the card says of the licences of the text the embeddings were trained on."""
    known = list(dict.fromkeys(text for prefix, text in TEXT_LICENCES
                               if any(f.startswith(prefix) for f in files)))
    unknown = [f for f in files if not any(f.startswith(p) for p, _ in TEXT_LICENCES)]
    if unknown:
        known.append(f"The licence of {', '.join(f'`{f}`' for f in unknown)} is not stated "
                     "here: the embeddings carry the terms of that text.")
    return " ".join(known)
