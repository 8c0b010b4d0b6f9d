"""A trained language model's lookup table -> embeddings (senna directory or word2vec text)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import torch

from senna.embeddings import read_embeddings, read_metadata, save_embeddings, write_embeddings
from senna.lm.corpus import Corpus
from senna.lm.model import RankingLM

CHECKPOINT = "checkpoint.pt"
HIDDEN_FILE = "lm.npz"  # the hidden layers beside exported embeddings: a later run goes on


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
                                                  "normalisation", "heldout_every")},
            "command": "senna lm export (see MODEL_CARD.md)"}
    if fmt == "text":
        write_embeddings(to, words, vectors)
    else:
        save_embeddings(to, words, vectors, meta=meta, dtype=dtype)
        np.savez(Path(to) / HIDDEN_FILE, **{k: v.numpy() for k, v in state["model"].items()
                                            if not k.startswith("emb.")})
        coverage = {h["dictionary"]: corpus.coverage(h["dictionary"]) for h in meta["history"]}
        (Path(to) / "MODEL_CARD.md").write_text(
            card(meta, len(words), vectors.shape[1], dtype, coverage,
                 (words[-1], int(corpus.counts[len(words) - 1]))))
    return Path(to)


def restore(model: RankingLM, path: str | os.PathLike, words: list[str]) -> tuple[list[dict], bool]:
    """Start `model` (whose row i is `words[i]`) from the exported embeddings at `path`: rows
    by word (words it lacks keep their random start), and the hidden layers when `path` has
    them -> (the export's training record, whether the hidden layers were restored)."""
    their_words, vectors = read_embeddings(path)
    if vectors.shape[1] != model.dim:
        raise ValueError(f"{path}: {vectors.shape[1]}-dimensional vectors, the model has "
                         f"{model.dim}")
    row = {w: i for i, w in enumerate(their_words)}
    pairs = [(i, row[w]) for i, w in enumerate(words[: model.emb.num_embeddings]) if w in row]
    ours, theirs = (torch.tensor(c, dtype=torch.long) for c in zip(*pairs, strict=True))
    with torch.no_grad():
        model.emb.weight[ours.to(model.emb.weight.device)] = torch.from_numpy(
            vectors[theirs.numpy()]).to(model.emb.weight.device)
    hidden = Path(path) / HIDDEN_FILE
    if hidden.is_file():
        with np.load(hidden, allow_pickle=False) as f:
            layers = {k: torch.from_numpy(f[k]) for k in f.files}
        shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()
                  if not k.startswith("emb.")}
        if {k: tuple(v.shape) for k, v in layers.items()} != shapes:
            raise ValueError(f"{hidden}: hidden layers of another shape than --window "
                             f"{model.window} --dim {model.dim} --hidden {model.hidden}")
        model.load_state_dict(layers, strict=False)
    return list(read_metadata(path).get("history", [])), hidden.is_file()


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
    lines += [
        "",
        "Wikipedia text is CC BY-SA 3.0. Reuters-21578 is distributed for research purposes "
        "only, and so are embeddings trained on it.",
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
        "| margin violations |",
        "|---|---|---|---|---|---|",
    ]
    for h in meta["history"]:
        lines.append(f"| {h['stage']} | {h['dictionary']:,} "
                     f"| {100 * coverage[h['dictionary']]:.1f}% | {h['windows'] / 1e6:.0f}M "
                     f"| {100 * h['error']:.2f}% | {100 * h['margin_violations']:.2f}% |")
    lines += [
        "",
        f"The last word of the dictionary, \"{last[0]}\", occurs {last[1]:,} times in the "
        "training text.",
        "",
        "The ranking error is the share of (held-out window, random dictionary word) pairs "
        "where the corrupted window scores at least as high as the real one; each stage draws "
        "its corruptions from its own dictionary.",
        "",
        "Rebuild: `recipes/embeddings.sh` (`senna lm prepare`, `senna lm train --config "
        "recipes/lm.json`, `senna lm export`).",
        "",
    ]
    return "\n".join(lines)
