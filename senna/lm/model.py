"""The ranking language model of section 4: a window network that scores a text window.

Eq. 18 of the paper: a window of real text should score at least 1 above the same window
with its centre word replaced by another dictionary word.  Only the centre changes between a
window and its corruptions, so the first layer's output for a corruption is the true
window's plus the centre's difference: ``h' = h + W_c (e' - e)``.  Each window thus costs one
full first layer plus one small [D x H] product per negative, instead of K + 1 full ones.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from senna.nn.init import fan_in_init


class RankingLM(nn.Module):
    """Lookup table -> Linear -> HardTanh -> Linear(1), scoring windows of word ids.

    The lookup is separate from `forward` (which takes the looked-up vectors): a training
    step looks each window up once for the cheap scoring pass and reuses the vectors for the
    gradient pass, then updates the table rows by hand (see `senna.lm.train.train_step`),
    which is several times faster than autograd's sparse gradients on a large table.
    """

    def __init__(self, vocab_size: int, dim: int = 50, window: int = 11, hidden: int = 100):
        super().__init__()
        if window % 2 != 1:
            raise ValueError(f"window must be odd, got {window}")
        self.dim, self.window, self.hidden = dim, window, hidden
        self.emb = nn.Embedding(vocab_size, dim)
        self.emb.weight.requires_grad_(False)
        self.l1 = nn.Linear(window * dim, hidden)
        self.l2 = nn.Linear(hidden, 1)
        fan_in_init(self)

    def lookup(self, windows: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
        """windows [B, W], negatives [B, K] ids -> their vectors [B, W + K, D]."""
        return F.embedding(torch.cat([windows, negatives], 1), self.emb.weight)

    def forward(self, xs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Vectors from `lookup` -> scores of the windows [B] and of their corruptions [B, K]."""
        b = xs.shape[0]
        c = self.window // 2
        x = xs[:, :self.window]
        h = self.l1(x.reshape(b, -1))                           # [B, H]
        w_c = self.l1.weight[:, c * self.dim:(c + 1) * self.dim]  # [H, D]
        delta = xs[:, self.window:] - x[:, c:c + 1]             # [B, K, D]
        h_neg = h.unsqueeze(1) + delta @ w_c.t()                # [B, K, H]
        s_pos = self.l2(F.hardtanh(h)).squeeze(-1)
        s_neg = self.l2(F.hardtanh(h_neg)).squeeze(-1)
        return s_pos, s_neg

    def score(self, windows: torch.Tensor, negatives: torch.Tensor
              ) -> tuple[torch.Tensor, torch.Tensor]:
        """Ids -> scores (lookup + forward)."""
        return self(self.lookup(windows, negatives))

    @torch.no_grad()
    def gaps(self, xs: torch.Tensor) -> torch.Tensor:
        """score(window) - score(corruption) [B, K] from `lookup` vectors, without autograd:
        the cheap pass that picks which windows need a gradient."""
        b, k = xs.shape[0], xs.shape[1] - self.window
        c, d = self.window // 2, self.dim
        h = torch.addmm(self.l1.bias, xs[:, :self.window].reshape(b, -1), self.l1.weight.t())
        delta = (xs[:, self.window:] - xs[:, c:c + 1]).reshape(b * k, d)
        h_neg = (delta @ self.l1.weight[:, c * d:(c + 1) * d].t()).view(b, k, -1)
        h_neg += h.unsqueeze(1)
        w2 = self.l2.weight[0]
        return (h.clamp_(-1, 1) @ w2).unsqueeze(1) - h_neg.clamp_(-1, 1) @ w2


def ranking_loss(s_pos: torch.Tensor, s_neg: torch.Tensor, margin: float = 1.0,
                 batch: int | None = None) -> torch.Tensor:
    """Eq. 18 summed over a window's negatives, averaged over `batch` windows (default: all
    given; pass the full batch size when only the windows with a non-zero loss are given)."""
    hinge = F.relu(margin - s_pos.unsqueeze(1) + s_neg).sum()
    return hinge / max(batch or len(s_pos), 1)


def grow_vocab(model: RankingLM, size: int, noise: float = 0.1) -> RankingLM:
    """Copy of `model` with a dictionary of `size` words (curriculum, section 4.3).

    New words start from the RARE vector (id 1), which was trained on exactly the words that
    are now being added, plus a little noise so that they can move apart.
    """
    old = model.emb.weight.detach()
    if size < old.shape[0]:
        raise ValueError(f"cannot shrink the dictionary from {old.shape[0]} to {size}")
    new = RankingLM(size, model.dim, model.window, model.hidden).to(old.device)
    new.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith("emb")},
                        strict=False)
    with torch.no_grad():
        new.emb.weight[: old.shape[0]] = old
        extra = size - old.shape[0]
        if extra:
            scale = noise * float(old.std())
            new.emb.weight[old.shape[0]:] = old[1] + scale * torch.randn(
                extra, model.dim, device=old.device)
    return new
