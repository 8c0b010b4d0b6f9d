"""`senna lm train`'s settings, without PyTorch (so that `senna lm train --help` and bad
settings are answered before torch is imported); each setting is described once, here,
and `senna.cli.lm` turns them into options."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from senna.settings import option, setting, type_problems

DEFAULT_STAGES = ((5_000, 15_000_000), (10_000, 20_000_000), (30_000, 40_000_000),
                  (50_000, 50_000_000), (100_000, 150_000_000), (130_000, 170_000_000))
DEVICES = ("auto", "cpu", "cuda")


@dataclass
class LMConfig:
    corpus: str = setting("corpus directory written by `senna lm prepare`", "runs/lm/corpus")
    out: str = setting("model directory (checkpoints; a second run resumes from it)",
                       "runs/lm/model")
    dim: int = setting("word vector size", 50)
    window: int = setting("words per window, odd", 11)
    hidden: int = setting("hidden units", 100)
    negatives: int = setting("corrupted windows per true window", 4)
    batch: int = setting("windows per step and per process", 4096)
    lr: float = setting("learning rate of the hidden layers (on the batch-mean loss)", 0.4)
    lr_emb: float = setting("learning rate of the lookup table, per window", 0.2)
    margin: float = setting("ranking margin", 1.0)
    stages: list[list] = setting(
        "curriculum: dictionary size and windows per stage, optionally followed by the "
        "stage's two learning rates (hidden layers, table; default --lr and --lr-emb)",
        factory=lambda: [list(s) for s in DEFAULT_STAGES])
    seed: int = setting("random seed", 1)
    threads: int = setting("torch threads per process (0: cores / --procs)", 0)
    procs: int = setting("local processes (data parallel)", 1)
    device: str = setting("where to train (auto: cuda when available)", "auto",
                          choices=DEVICES)
    checkpoint_minutes: float = setting("minutes between checkpoints", 10.0)
    max_minutes: float = setting("stop, with a checkpoint, after this many minutes (0: no "
                                 "limit)", 0.0)
    init: str = setting("embeddings directory (`senna lm export`) a new run starts from instead "
                        "of random weights: its vectors, matched by word, and its hidden layers "
                        "(lm.npz) when it has them; the training record continues its own", "")
    warmup: int = setting("windows at the start of a run during which only the hidden layers "
                          "learn (the table is frozen): for an --init without hidden layers", 0)
    eval_windows: int = setting("held-out windows scored at each checkpoint", 20_000)
    log_every: int = setting("steps between progress-bar updates", 200)

    def __post_init__(self) -> None:
        found = type_problems(self)
        if not found and self.warmup < 0:
            found.append(f"--warmup must be at least 0, got {self.warmup}")
        positive = ("dim", "hidden", "negatives", "batch", "procs", "log_every")
        found += [f"{option(n)} must be at least 1, got {getattr(self, n)}" for n in positive
                  if not found and getattr(self, n) < 1]
        if not found:
            found += [f"stage {i + 1}: give [dictionary, windows] or [dictionary, windows, lr, "
                      f"lr_emb], got {list(st)}" for i, st in enumerate(self.stages)
                      if not isinstance(st, (list, tuple)) or len(st) not in (2, 4)
                      or not all(isinstance(x, (int, float)) and x > 0 for x in st)]
        if not found and (self.window < 1 or self.window % 2 == 0):
            found.append(f"--window must be odd and positive, got {self.window}")
        if found:
            raise ValueError("invalid LM settings: " + "; ".join(found))

    def rates(self, stage: int) -> tuple[float, float]:
        """Learning rates (hidden layers, table) of stage `stage` (0-based) of this run."""
        st = self.stages[stage]
        return (float(st[2]), float(st[3])) if len(st) == 4 else (self.lr, self.lr_emb)

    @classmethod
    def from_json(cls, text: str) -> LMConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        data = json.loads(text)
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown LM settings: {', '.join(sorted(unknown))}")
        return cls(**data)
