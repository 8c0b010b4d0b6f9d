"""Unlabeled text -> a memory-mapped array of word ids, prepared once, loaded in milliseconds.

Why: the language model reads hundreds of millions of windows at random positions; doing
that from compressed text would tokenise the corpus again on every run.  Text goes through
exactly the tagger's path (``senna.text.tokenize`` then ``normalize_word`` / ``caps_feature``)
so the language model and the taggers agree on what a word is.

Layout of a prepared corpus directory:

* ``train.ids`` / ``heldout.ids`` -- uint32 word ids, sentences separated by ``pad`` PADDING
  ids (and ``pad`` more at both ends), so every window of up to ``2 * pad + 1`` words centred
  on a real word is a plain slice, padded at sentence edges exactly like the tagger's windows;
* ``train.caps`` / ``heldout.caps`` -- uint8 caps-feature ids, aligned with the ids;
* ``vocab.tsv`` -- ``word<TAB>count``, line i = id i; PADDING and RARE first, then words by
  decreasing frequency, so the dictionary of the N most frequent words is ``ids < N + 2``;
* ``corpus.json`` -- sources, sizes and the settings used.

Articles (blank-line separated blocks) go to the held-out slice when their running index is a
multiple of ``heldout_every``, so the held-out text is spread over every source.
Work is split into shards (every ``shards``-th article of a file) run in parallel processes;
each shard streams its file from disk, so memory stays flat whatever the corpus size.
"""

from __future__ import annotations

import json
import os
import shutil
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from senna.io.text import open_text
from senna.text.normalize import PADDING, RARE, caps_feature, normalize_word
from senna.text.tokenize import tokenize

SPLITS = ("train", "heldout")
FORMAT = "senna-lm-corpus"


def articles(path: str | os.PathLike) -> Iterator[list[str]]:
    """Blank-line separated blocks of non-empty lines (paragraphs), streamed."""
    block: list[str] = []
    with open_text(path) as f:
        for line in f:
            line = line.strip()
            if line:
                block.append(line)
            elif block:
                yield block
                block = []
    if block:
        yield block


@dataclass(frozen=True)
class Shard:
    path: str
    index: int
    count: int
    heldout_every: int
    pad: int
    out: str
    language: str = "en"


def _prepare_shard(shard: Shard) -> str:
    """Tokenise every `count`-th article of a file; write local ids and local vocab counts."""
    local: dict[str, int] = {PADDING: 0}
    counts: list[int] = [0]
    ids = {s: array("I", [0] * shard.pad) for s in SPLITS}
    caps = {s: array("B", [0] * shard.pad) for s in SPLITS}
    pads = [0] * shard.pad
    for n, block in enumerate(articles(shard.path)):
        if n % shard.count != shard.index:
            continue
        split = "heldout" if n % shard.heldout_every == 0 else "train"
        out_ids, out_caps = ids[split], caps[split]
        for para in block:
            for sent in tokenize(para, shard.language):
                for tok in sent:
                    word = normalize_word(tok.text)
                    i = local.get(word)
                    if i is None:
                        i = local[word] = len(counts)
                        counts.append(0)
                    counts[i] += 1
                    out_ids.append(i)
                    out_caps.append(caps_feature(tok.text))
                out_ids.extend(pads)
                out_caps.extend(pads)
    base = Path(shard.out) / f"{Path(shard.path).name}.{shard.index}"
    for s in SPLITS:
        with open(f"{base}.{s}.ids", "wb") as f:
            ids[s].tofile(f)
        with open(f"{base}.{s}.caps", "wb") as f:
            caps[s].tofile(f)
    with open(f"{base}.vocab.tsv", "w", encoding="utf-8") as f:
        for word, c in zip(local, counts, strict=True):
            f.write(f"{word}\t{c}\n")
    return str(base)


def _read_counts(path: str | os.PathLike) -> tuple[list[str], np.ndarray]:
    """A `word<TAB>count` file -> (words, counts)."""
    words, counts = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            w, c = line.rstrip("\n").rsplit("\t", 1)
            words.append(w)
            counts.append(int(c))
    return words, np.array(counts, dtype=np.int64)


def prepare_corpus(sources: Sequence[str | os.PathLike], out: str | os.PathLike, *,
                   workers: int = 2, shards_per_file: int | None = None,
                   heldout_every: int = 100, pad: int = 5, progress: bool = True,
                   language: str = "en") -> Path:
    """Tokenise (`language`: senna.text.tokenize), normalise and index `sources` into `out`
    (see module doc); -> `out`."""
    from tqdm import tqdm

    out = Path(out)
    tmp = out / "shards"
    tmp.mkdir(parents=True, exist_ok=True)
    sizes = {str(p): os.path.getsize(p) for p in sources}
    total = sum(sizes.values())
    shards = []  # in corpus order: the output follows it
    for p, size in sizes.items():
        count = shards_per_file or max(1, round(16 * size / total))
        shards += [Shard(p, i, count, heldout_every, pad, str(tmp), language)
                   for i in range(count)]
    done: dict[Shard, str] = {}
    with ProcessPoolExecutor(workers) as pool:
        # longest first, so that the workers finish together
        futures = {pool.submit(_prepare_shard, s): s
                   for s in sorted(shards, key=lambda s: -sizes[s.path] / s.count)}
        for fut in tqdm(as_completed(futures), total=len(futures), desc="tokenise shards",
                        disable=not progress):
            done[futures[fut]] = fut.result()
    bases = [done[s] for s in shards]
    # one dictionary for all shards: most frequent first, ties alphabetical (reproducible)
    total_counts: Counter[str] = Counter()
    local_vocabs = []
    for b in bases:
        words, counts = _read_counts(f"{b}.vocab.tsv")
        local_vocabs.append(words)
        total_counts.update(dict(zip(words, counts.tolist(), strict=True)))
    total_counts.pop(PADDING, None)
    ranked = sorted(total_counts, key=lambda w: (-total_counts[w], w))
    vocab = [PADDING, RARE] + ranked
    index = {w: i for i, w in enumerate(vocab)}
    with open(out / "vocab.tsv", "w", encoding="utf-8") as f:
        f.write(f"{PADDING}\t0\n{RARE}\t0\n")
        for w in ranked:
            f.write(f"{w}\t{total_counts[w]}\n")
    tokens = {}
    for s in SPLITS:
        with open(out / f"{s}.ids", "wb") as fi, open(out / f"{s}.caps", "wb") as fc:
            n = 0
            for b, words in zip(bases, local_vocabs, strict=True):
                remap = np.array([index.get(w, 0) for w in words], dtype=np.uint32)
                local = np.fromfile(f"{b}.{s}.ids", dtype=np.uint32)
                remap[local].tofile(fi)
                with open(f"{b}.{s}.caps", "rb") as caps_file:
                    shutil.copyfileobj(caps_file, fc)
                n += len(local)
            tokens[s] = n
    ids = {s: np.memmap(out / f"{s}.ids", dtype=np.uint32, mode="r") for s in SPLITS}
    meta = {
        "format": FORMAT, "version": 1, "pad": pad, "heldout_every": heldout_every,
        "sources": [{"path": str(p), "bytes": sizes[str(p)]} for p in sources],
        "vocab_size": len(vocab),
        "words": {s: int((ids[s] != 0).sum()) for s in SPLITS},
        "slots": tokens,
        "tokenizer": f"senna.text.tokenize (syntok + PTB fix-ups), language {language}",
        "normalisation": "senna.text.normalize.normalize_word (lower case, digit runs -> NUMBER)",
    }
    (out / "corpus.json").write_text(json.dumps(meta, indent=2) + "\n")
    shutil.rmtree(tmp)
    return out


class Corpus:
    """A prepared corpus, memory-mapped: ids are shared between processes by the page cache."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        meta_path = self.path / "corpus.json"
        if not meta_path.is_file():
            raise ValueError(f"{self.path}: not a prepared corpus (no corpus.json); "
                             "run `senna lm prepare` first")
        self.meta = json.loads(meta_path.read_text())
        if self.meta.get("format") != FORMAT:
            raise ValueError(f"{meta_path}: not a {FORMAT} file")
        self.pad: int = self.meta["pad"]
        self.words, self.counts = _read_counts(self.path / "vocab.tsv")

    def ids(self, split: str = "train") -> np.memmap:
        return np.memmap(self.path / f"{split}.ids", dtype=np.uint32, mode="r")

    def caps(self, split: str = "train") -> np.memmap:
        return np.memmap(self.path / f"{split}.caps", dtype=np.uint8, mode="r")

    def coverage(self, size: int) -> float:
        """Share of running words inside the dictionary of `size` entries (with specials)."""
        c = self.counts
        # a slice (`recipes/lm_gpu.py pack`) lists only its dictionary and counts the rest
        rest = int(self.meta.get("outside_dictionary", 0))
        return float(c[2:size].sum() / max(c[2:].sum() + rest, 1))
