"""Training criteria (paper section 3.4), batched over padded sentences, in PyTorch.

Word-level log-likelihood (WLL): a softmax per word.  Sentence-level log-likelihood (SLL): a
path's score is start[y_0] + sum_t emissions[t, y_t] + sum_t transitions[y_{t-1}, y_t]; the
normaliser sums over all paths with the forward algorithm in log space (equation 15).

A criterion is a module that owns its parameters (SLL: the transition and start scores, as
pytorch-crf's `CRF` does) and names what it returns: `nll`, the negative log-likelihood per
sentence, which callers minimise.  Decoding is NumPy's (`senna.decode.viterbi`), shared with
the runtime, which reads the criterion from the model's config, not from its weights.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

CRITERIA = ("wll", "sll")


def wll_nll(emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """emissions [B, T, K], tags [B, T], mask [B, T] bool -> NLL per sentence [B]."""
    logp = F.log_softmax(emissions, dim=-1).gather(-1, tags.unsqueeze(-1)).squeeze(-1)
    return -(logp * mask).sum(dim=1)


def path_score(emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor,
               transitions: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
    """Score of the given tag paths: [B]."""
    emit = emissions.gather(-1, tags.unsqueeze(-1)).squeeze(-1) * mask     # [B, T]
    trans = transitions[tags[:, :-1], tags[:, 1:]] * mask[:, 1:]           # [B, T-1]
    return start[tags[:, 0]] + emit.sum(1) + trans.sum(1)


def log_partition(emissions: torch.Tensor, mask: torch.Tensor, transitions: torch.Tensor,
                  start: torch.Tensor) -> torch.Tensor:
    """Forward algorithm: logadd over all paths, [B].  Padded steps carry delta unchanged.

    logadd_i(delta_i + A_ij) is computed as m + c_j + log(exp(delta - m) @ exp(A - c)) with
    m = max_i delta_i and c_j = max_i A_ij: one matrix product per step instead of a
    [B, K, K] log-sum-exp, exact up to rounding and safe from overflow.
    """
    emissions, transitions = emissions.double(), transitions.double()      # float64: no underflow
    col_max = transitions.max(dim=0).values                                # [K]
    exp_trans = torch.exp(transitions - col_max)                            # [K, K]
    delta = start + emissions[:, 0]                                         # [B, K]
    for t in range(1, emissions.shape[1]):
        m = delta.max(dim=1, keepdim=True).values                           # [B, 1]
        total = (torch.exp(delta - m) @ exp_trans).clamp_min(1e-300)
        step = torch.log(total) + m + col_max + emissions[:, t]
        delta = torch.where(mask[:, t, None], step, delta)
    return torch.logsumexp(delta, dim=1)


def sll_nll(emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor,
            transitions: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
    """emissions [B, T, K], tags [B, T], mask [B, T] (prefix of True) -> NLL per sentence [B]."""
    mask_f = mask.to(emissions.dtype)
    nll = (log_partition(emissions, mask, transitions, start)
           - path_score(emissions, tags, mask_f, transitions, start))
    return nll.to(emissions.dtype)


class WordLikelihood(nn.Module):
    """WLL: no parameters of its own."""

    name = "wll"

    def nll(self, emissions: torch.Tensor, tags: torch.Tensor,
            mask: torch.Tensor) -> torch.Tensor:
        """emissions [B, T, K], tags [B, T], mask [B, T] -> NLL per sentence [B]."""
        return wll_nll(emissions, tags, mask)

    def decoding_weights(self) -> dict[str, torch.Tensor]:
        """What Viterbi needs besides the emissions (WLL: nothing, argmax per word)."""
        return {}


class SentenceLikelihood(nn.Module):
    """SLL: transition scores A[i, j] (tag i followed by j) and start scores, both zero at
    first (a uniform prior over paths)."""

    name = "sll"

    def __init__(self, n_tags: int):
        super().__init__()
        self.transitions = nn.Parameter(torch.zeros(n_tags, n_tags))
        self.start = nn.Parameter(torch.zeros(n_tags))

    def nll(self, emissions: torch.Tensor, tags: torch.Tensor,
            mask: torch.Tensor) -> torch.Tensor:
        """emissions [B, T, K], tags [B, T], mask [B, T] -> NLL per sentence [B]."""
        return sll_nll(emissions, tags, mask, self.transitions, self.start)

    def decoding_weights(self) -> dict[str, torch.Tensor]:
        """Saved next to the network's weights as `transitions` and `start`."""
        return {"transitions": self.transitions, "start": self.start}


def build_criterion(name: str, n_tags: int) -> WordLikelihood | SentenceLikelihood:
    if name not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {name!r}")
    return SentenceLikelihood(n_tags) if name == "sll" else WordLikelihood()
