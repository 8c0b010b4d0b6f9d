"""Training criteria (paper section 3.4), batched over padded sentences, in PyTorch.

Word-level log-likelihood: a softmax per word.  Sentence-level log-likelihood: a path's score
is start[y_0] + sum_t emissions[t, y_t] + sum_t transitions[y_{t-1}, y_t]; the normaliser
sums over all paths with the forward algorithm in log space (equation 15).  Both return the
negative log-likelihood per sentence, so callers minimise what they get.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


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
