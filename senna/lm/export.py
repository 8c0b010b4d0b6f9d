"""A trained language model's lookup table -> embeddings (senna directory or word2vec text)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from senna.embeddings import save_embeddings, write_embeddings
from senna.lm.corpus import Corpus
from senna.lm.train import CHECKPOINT


def export(model_dir: str | os.PathLike, to: str | os.PathLike, fmt: str = "senna",
           dtype: str = "float32") -> Path:
    """Write the embeddings of `model_dir`'s last checkpoint with its words, config and scores."""
    model_dir = Path(model_dir)
    ckpt = model_dir / CHECKPOINT
    if not ckpt.is_file():
        raise ValueError(f"{model_dir}: no {CHECKPOINT}; train with `senna lm train` first")
    state = torch.load(ckpt, map_location="cpu", weights_only=True)
    config = json.loads((model_dir / "config.json").read_text())
    corpus = Corpus(config["corpus"])
    vectors = state["model"]["emb.weight"].numpy()
    words = corpus.words[: len(vectors)]
    meta = {"model": "ranking language model (Collobert et al. 2011, section 4)",
            "config": config, "stages_done": state["stage"], "history": state["history"],
            "corpus": {k: corpus.meta[k] for k in ("sources", "words", "tokenizer",
                                                  "normalisation")},
            "counts": corpus.counts[: len(vectors)].tolist()[:10]}
    if fmt == "text":
        write_embeddings(to, words, vectors)
    else:
        save_embeddings(to, words, vectors, meta=meta, dtype=dtype)
    return Path(to)
