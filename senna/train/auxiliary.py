"""Auxiliary tasks of joint training (ICML 2008 sections 4-5): unlabeled and lexical data
that shape the shared word table without being tagging tasks themselves.

* `LanguageModelTask`: the ranking language model (JMLR 2011 section 4, eq. 18) on windows
  of a corpus prepared by `senna lm prepare`: a window of 11 words must score higher, by a
  margin of 1, than the same window with its centre word replaced by a random word.
* `SynonymTask`: a network of the same kind scores a pair of words related in WordNet
  (synonyms, hypernyms, holonyms: senna.lm.wordnet) above the pair of the first word and a
  random word.

Both read the taggers' word table (one `nn.Embedding`, shared through `senna.train.joint`)
and keep their own hidden layers.  Each has `steps` batches per epoch, a `loss` on a
fresh random batch and `evaluate()`: the share of held-out (positive, corrupted) pairs ranked
the right way round, in %, so higher is better as for the tagging tasks.
"""

from __future__ import annotations

from itertools import repeat

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from senna.lm.corpus import Corpus
from senna.nn.init import fan_in_init
from senna.train.tagging import optimizer
from senna.vocab import Vocab

FIRST_WORD = 2   # ids 0 and 1 are PADDING and RARE


class RankingTask(nn.Module):
    """Lookup (shared) -> Linear -> HardTanh -> Linear(1): a score per input of `width`
    words; hinge loss of positives against their corruptions.  A unit of the training loop
    (senna.train.loop) whose dev score is reported, not kept."""

    scored = False
    opt: torch.optim.Optimizer

    def __init__(self, name: str, table: nn.Embedding, width: int, hidden: int, steps: int,
                 batch: int, negatives: int):
        super().__init__()
        self.name, self.steps, self.batch, self.negatives = name, steps, batch, negatives
        self.l1 = nn.Linear(width * table.embedding_dim, hidden)
        self.l2 = nn.Linear(hidden, 1)
        fan_in_init(self)
        self.table = table   # registered after the init: the shared vectors are kept

    @property
    def module(self) -> nn.Module:
        """The network (itself), as a tagging task's is its `net`."""
        return self

    def make_optimizer(self, named, lr: float) -> None:
        """SGD at the run's rate, fan-in scaled, over its own layers."""
        self.opt = optimizer(named, lr)

    def start_epoch(self, epoch: int) -> None:
        self.train()

    def batches(self, rng: np.random.Generator) -> repeat:
        """No batches to hand out: `loss` draws its own."""
        return repeat(None)

    def loss(self, batch: None, rng: np.random.Generator) -> tuple[torch.Tensor, int, int]:
        """(The hinge loss of a fresh random batch, its pairs, 1): a pair's hinge is at most
        about 1, the guard's yardstick."""
        return self.sampled_loss(rng), self.batch, 1

    def sampled_loss(self, rng: np.random.Generator) -> torch.Tensor:
        raise NotImplementedError

    def score(self, ids: torch.Tensor) -> torch.Tensor:
        """ids [..., width] -> scores [...]."""
        x = self.table(ids).flatten(-2)
        return self.l2(F.hardtanh(self.l1(x))).squeeze(-1)

    def ranking(self, pos: torch.Tensor, neg: torch.Tensor) -> torch.Tensor:
        """pos [B, W], neg [B, K, W] -> summed hinge loss (eq. 18)."""
        return F.relu(1.0 - self.score(pos).unsqueeze(1) + self.score(neg)).sum()

    @torch.no_grad()
    def ranked_right(self, pos: torch.Tensor, neg: torch.Tensor) -> float:
        """% of (positive, corruption) pairs where the positive scores higher."""
        return 100.0 * float((self.score(pos).unsqueeze(1) > self.score(neg)).float().mean())


class LanguageModelTask(RankingTask):
    """Windows from a prepared corpus, its word ids mapped to the taggers' dictionary."""

    def __init__(self, corpus_dir: str, words: Vocab, table: nn.Embedding, steps: int,
                 window: int = 11, hidden: int = 100, batch: int = 64, negatives: int = 4,
                 seed: int = 1):
        super().__init__("lm", table, window, hidden, steps, batch, negatives)
        corpus = Corpus(corpus_dir)
        self.window, self.vocab_size = window, len(words)
        # corpus id -> dictionary id (the corpus is normalised as the tagger normalises)
        self.to_dict = np.array([words.index.get(w, Vocab.unk_id) for w in corpus.words],
                                dtype=np.int64)
        self.train_ids = corpus.ids("train")          # memory-mapped, read where sampled
        self.held = self._sample(corpus.ids("heldout"), 2000, np.random.default_rng(seed))

    def _sample(self, ids: np.ndarray, n: int, rng: np.random.Generator
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """n windows centred on dictionary words [n, W], and their corruptions [n, K, W]."""
        half = self.window // 2
        if len(ids) <= 2 * half:
            raise ValueError("the language-model corpus is shorter than one window")
        centres = np.empty(0, dtype=np.int64)
        for _ in range(100):
            if len(centres) >= n:
                break
            c = rng.integers(half, len(ids) - half, 2 * n)
            centres = np.concatenate([centres, c[self.to_dict[ids[c]] >= FIRST_WORD]])
        if len(centres) < n:
            raise ValueError("the language-model corpus has too few words of the dictionary")
        win = torch.from_numpy(self.to_dict[ids[centres[:n, None] + np.arange(-half, half + 1)]])
        neg = win.unsqueeze(1).repeat(1, self.negatives, 1)
        neg[:, :, half] = torch.from_numpy(rng.integers(FIRST_WORD, self.vocab_size,
                                                        (n, self.negatives)))
        return win, neg

    def sampled_loss(self, rng: np.random.Generator) -> torch.Tensor:
        return self.ranking(*self._sample(self.train_ids, self.batch, rng))

    def evaluate(self) -> float:
        return self.ranked_right(*self.held)


class SynonymTask(RankingTask):
    """Pairs of related words (both in the dictionary) against the first word and a random
    one; every 20th pair is held out."""

    def __init__(self, pairs: list[tuple[str, str, str]], words: Vocab, table: nn.Embedding,
                 steps: int, hidden: int = 100, batch: int = 64, negatives: int = 4,
                 seed: int = 1):
        super().__init__("synonyms", table, 2, hidden, steps, batch, negatives)
        get = words.index.get
        ids = [(get(a, 1), get(b, 1)) for a, b, _ in pairs]
        ids = np.array([p for p in ids if min(p) >= FIRST_WORD], dtype=np.int64).reshape(-1, 2)
        if len(ids) < 2:
            raise ValueError(f"only {len(ids)} related pairs have both words in the "
                             "dictionary; the synonyms task needs more")
        held = np.arange(len(ids)) % 20 == 0
        self.train_pairs = torch.from_numpy(ids[~held])
        self.vocab_size = len(words)
        self.held = self._corrupt(torch.from_numpy(ids[held]), np.random.default_rng(seed))

    def _corrupt(self, pos: torch.Tensor, rng: np.random.Generator
                 ) -> tuple[torch.Tensor, torch.Tensor]:
        """Related pairs [B, 2] -> themselves and [B, K, 2] with random second words."""
        neg = pos.unsqueeze(1).repeat(1, self.negatives, 1)
        neg[:, :, 1] = torch.from_numpy(rng.integers(FIRST_WORD, self.vocab_size,
                                                     tuple(neg.shape[:2])))
        return pos, neg

    def sampled_loss(self, rng: np.random.Generator) -> torch.Tensor:
        pick = torch.from_numpy(rng.integers(0, len(self.train_pairs), self.batch))
        return self.ranking(*self._corrupt(self.train_pairs[pick], rng))

    def evaluate(self) -> float:
        return self.ranked_right(*self.held)
