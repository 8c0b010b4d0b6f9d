"""A trained language model's lookup table -> embeddings (senna directory or word2vec text)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import torch

from senna.embeddings import embedding_files, save_embeddings, text_licences, write_embeddings
from senna.io.manifest import write_manifest
from senna.lm.corpus import Corpus
from senna.lm.train import CHECKPOINT, HIDDEN_FILE, unfinished_stage


def export(model_dir: str | os.PathLike, to: str | os.PathLike, fmt: str = "senna",
           dtype: str = "float32") -> Path:
    """Write the embeddings of `model_dir`'s last checkpoint with its words, config and scores."""
    model_dir = Path(model_dir)
    ckpt = model_dir / CHECKPOINT
    if not ckpt.is_file():
        raise ValueError(f"{model_dir}: no {CHECKPOINT}; train with `senna lm train` first")
    state = torch.load(ckpt, map_location="cpu", weights_only=True)
    # a language-model run's folder, not a tagger model's: its config.json holds the
    # LMConfig, which read_config (the reader of model folders) does not take
    config = json.loads((model_dir / "config.json").read_text())
    corpus = Corpus(config["corpus"])
    vectors = state["model"]["emb.weight"].numpy()
    words = corpus.words[: len(vectors)]
    partial = unfinished_stage(model_dir, state)
    history = state["history"] + ([partial] if partial else [])
    meta = {"model": "ranking language model (Collobert et al. 2011, section 4)",
            "config": config, "stages_done": state["stage"], "history": history,
            "corpus": {k: corpus.meta[k] for k in ("sources", "words", "tokenizer",
                                                  "normalisation", "heldout_every", "slice")
                       if k in corpus.meta},
            "command": "senna lm export (see MODEL_CARD.md)"}
    if fmt == "text":
        write_embeddings(to, words, vectors)
    else:
        save_embeddings(to, words, vectors, meta=meta, dtype=dtype)
        np.savez(Path(to) / HIDDEN_FILE, **{k: v.numpy() for k, v in state["model"].items()
                                            if not k.startswith("emb.")})
        write_manifest(to, embedding_files(to))   # now with the hidden layers
        coverage = {h["dictionary"]: corpus.coverage(h["dictionary"]) for h in meta["history"]}
        (Path(to) / "MODEL_CARD.md").write_text(
            card(meta, len(words), vectors.shape[1], dtype, coverage,
                 (words[-1], int(corpus.counts[len(words) - 1]))))
    return Path(to)


def card(meta: dict, count: int, dim: int, dtype: str, coverage: dict[int, float],
         last: tuple[str, int]) -> str:
    """What the embeddings are, what they were trained on and how well, in Markdown;
    `coverage`: share of running words inside each stage's dictionary; `last`: the
    dictionary's last word and its count."""
    cfg = meta["config"]
    corpus = meta["corpus"]
    lines = [
        "# Word embeddings: ranking language model",
        "",
        f"{count:,} words x {dim} dimensions ({dtype}), the lookup table of the window network "
        "of Collobert et al. (2011), section 4, trained with the pairwise ranking criterion "
        "(eq. 18) and a growing dictionary (section 4.3).",
        "",
        "## Data",
        "",
        f"{corpus['words']['train']:,} running words for training, "
        f"{corpus['words']['heldout']:,} held out (every {corpus['heldout_every']}th article), "
        "tokenised and "
        f"normalised exactly as the tagger does ({corpus['tokenizer']}; "
        f"{corpus['normalisation']}):",
        "",
    ]
    lines += [f"- `{Path(s['path']).name}`" for s in corpus["sources"]]
    if "slice" in corpus:
        part = corpus["slice"]
        lines += ["", f"The last run read a slice of that text: {part['train_words']:,} of its "
                  f"{part['corpus_train_words']:,} training words, an even spread cut at "
                  "sentence ends, and the whole held-out part (`python recipes/lm_gpu.py "
                  "pack`, so that the corpus travels to a GPU machine)."]
    lines += [
        "",
        text_licences([Path(s["path"]).name for s in corpus["sources"]]),
        "",
        "## Training",
        "",
        f"Window {cfg['window']}, {cfg['dim']}-dimensional embeddings, {cfg['hidden']} hidden "
        f"units (HardTanh), {cfg['negatives']} corruptions per window, batches of "
        f"{cfg['batch']} windows, SGD (hidden layers lr {cfg['lr']}, lookup table lr "
        f"{cfg['lr_emb']} per window).",
        "",
    ]
    starts = {}  # where each later run began: stages carry the --init they went on from
    for h in meta["history"]:
        if h.get("init"):
            starts.setdefault((h["init"], h.get("warmup", 0)), h["stage"])
    for (init, warmup), first in starts.items():
        lines += [f"Stages from {first} on went on from the embeddings in `{init}` (`--init`)"
                  + (f", the table frozen for their first {warmup / 1e6:g}M windows while the "
                     "hidden layers learned" if warmup else "") + ".", ""]
    lines += [
        "| stage | dictionary | running words covered | windows | held-out ranking error "
        "| margin violations | learning rates (hidden / table) |",
        "|---|---|---|---|---|---|---|",
    ]
    for h in meta["history"]:
        rates = (f"{h['lr']} / {h['lr_emb']}" if "lr" in h
                 else f"{cfg['lr']} / {cfg['lr_emb']} (the run's settings)")
        lines.append(f"| {h['stage']}{' (unfinished)' if h.get('unfinished') else ''} "
                     f"| {h['dictionary']:,} "
                     f"| {100 * coverage[h['dictionary']]:.1f}% | {h['windows'] / 1e6:.0f}M "
                     f"| {100 * h['error']:.2f}% | {100 * h['margin_violations']:.2f}% "
                     f"| {rates} |")
    lines += [
        "",
        f"{sum(h['windows'] for h in meta['history']):,} windows in all.",
        "",
        f"The last word of the dictionary, \"{last[0]}\", occurs {last[1]:,} times in the "
        "training text.",
        "",
        "The ranking error is the share of (held-out window, random dictionary word) pairs "
        "where the corrupted window scores at least as high as the real one; each stage draws "
        "its corruptions from its own dictionary.",
        "",
        "Rebuild: `make embeddings` from the repository root (`python -m senna lm prepare`, "
        "`python -m senna lm train --config recipes/lm.json`, `python -m senna lm export`)"
        + ("; the later stages went on with `senna lm train --config recipes/lm-continue.json "
           "--init <the embeddings named above>` and `senna lm export` (the learning rates of "
           "each stage are in the table)." if starts else "."),
        "",
    ]
    return "\n".join(lines)
