"""The ranking language model on one GPU, from a corpus small enough to travel to it.

    python recipes/lm_gpu.py pack [--corpus runs/lm/corpus] [--tokens 40M] [--part 0]  # here
    python recipes/lm_gpu.py unpack [--src .gpu/corpus] [--dst runs/lm-gpu/corpus]   # there
    bash recipes/lm-gpu.sh                                                   # there: all of it
    bash recipes/lm-gpu-langs.sh      # there: Spanish and Dutch from random weights (see it)

Why a slice: the `device` tool's GPU machine is reached only through a copy of the working tree
(64 MiB with the repository), so the prepared corpus (`senna lm prepare`, 133M words, 540 MB
of ids) cannot go whole.  `pack` keeps the dictionary of the shipped embeddings (130,000
words: every rarer word is RARE to the model anyway, which also compresses better), takes an
even spread of the training text (the same share of every source, cut at sentence ends) and
the whole held-out slice, and writes them xz-compressed to `.gpu/corpus` (ignored by git;
name it in the tool's `carry`).  `unpack` writes an ordinary prepared corpus from it.
"""

from __future__ import annotations

import argparse
import json
import lzma
import shutil
import sys
from pathlib import Path

import numpy as np

from senna.cli.lm import _number  # '40M' -> 40_000_000, as `senna lm train --stages` reads it
from senna.lm.corpus import Corpus

PACKED = Path(".gpu/corpus")
UNPACKED = Path("runs/lm-gpu/corpus")
FILES = ("train.ids", "heldout.ids")   # what `unpack` restores


def spread(ids: np.ndarray, tokens: int, blocks: int, pad: int, part: int = 0) -> np.ndarray:
    """About `tokens` ids: the `part`-th stretch of that length in each of `blocks` equal
    blocks of `ids` (parts 0, 1, ... follow each other, so successive GPU calls can read the
    whole corpus a slice at a time), each cut at sentence ends (PADDING ids) and joined by
    `pad` PADDING ids, so every window stays a slice padded as in the full corpus."""
    step = len(ids) // blocks
    take = min(step, tokens // blocks)
    if (part + 1) * take > step:
        raise ValueError(f"part {part}: the blocks hold only {step // take} parts of "
                         f"{take:,} ids")
    parts = []
    for b in range(blocks):
        start = b * step + part * take
        head = ids[start: start + take]
        ends = np.flatnonzero(head == 0)  # a block starts and ends between sentences
        if len(ends) > 1:
            parts += [head[ends[0]: ends[-1] + 1], np.zeros(pad, np.uint32)]
    return np.concatenate([np.zeros(pad, np.uint32), *parts])


def pack(corpus: Path, size: int, tokens: int, blocks: int = 200, out: Path = PACKED,
         part: int = 0) -> None:
    """Write the slice of `corpus` (see module doc) to `out`."""
    full = Corpus(corpus)
    meta = dict(full.meta)
    out.mkdir(parents=True, exist_ok=True)
    (out / "vocab.tsv").write_text("".join(
        f"{w}\t{c}\n" for w, c in zip(full.words[:size], full.counts[:size].tolist(),
                                       strict=True)), encoding="utf-8")
    for split in ("train", "heldout"):
        ids = full.ids(split)   # memory-mapped: only the slice is read
        if split == "train":
            ids = spread(ids, tokens, blocks, full.pad, part)
        ids = np.where(ids < size, ids, np.uint32(1))  # RARE: what the model sees anyway
        with lzma.open(out / f"{split}.ids.xz", "wb", preset=9) as f:
            f.write(ids.tobytes())
        meta["slots"] = {**meta["slots"], split: len(ids)}
        meta["words"] = {**meta["words"], split: int((ids != 0).sum())}
    meta["vocab_size"] = size
    meta["outside_dictionary"] = int(full.counts[size:].sum())  # keeps `Corpus.coverage` right
    meta["slice"] = {"of": str(corpus), "train_words": meta["words"]["train"],
                     "corpus_train_words": full.meta["words"]["train"], "dictionary": size,
                     "blocks": blocks, "part": part}
    (out / "corpus.json").write_text(json.dumps(meta, indent=2) + "\n")
    total = sum(p.stat().st_size for p in out.iterdir())
    print(f"{out}: {meta['words']['train']:,} training words, {total / 2**20:.1f} MiB")


def unpack(src: Path = PACKED, dst: Path = UNPACKED) -> None:
    """`pack`'s slice -> a prepared corpus (ids only: the language model reads no caps)."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("vocab.tsv", "corpus.json"):
        shutil.copy(src / name, dst / name)
    for name in FILES:
        with lzma.open(src / f"{name}.xz") as f, open(dst / name, "wb") as g:
            shutil.copyfileobj(f, g, 1 << 24)
    print(f"{dst}: unpacked")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    pk = sub.add_parser("pack")
    pk.add_argument("--corpus", default="runs/lm/corpus", type=Path)
    pk.add_argument("--size", type=int, default=130_000, help="dictionary (with PADDING, RARE)")
    pk.add_argument("--tokens", type=_number, default=40_000_000)
    pk.add_argument("--part", type=int, default=0,
                    help="which slice of that size (0, 1, ...: each call can read another)")
    pk.add_argument("--out", type=Path, default=PACKED, help="packed folder (carry it)")
    up = sub.add_parser("unpack")
    up.add_argument("--src", type=Path, default=PACKED, help="packed folder")
    up.add_argument("--dst", type=Path, default=UNPACKED, help="prepared corpus to write")
    a = p.parse_args()
    if a.command == "pack":
        pack(a.corpus, a.size, a.tokens, out=a.out, part=a.part)
    else:
        unpack(a.src, a.dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
