"""Adversarial training on the looked-up features (Goodfellow et al. 2015, "Explaining and
Harnessing Adversarial Examples"; Miyato et al. 2017 for text; Yasunaga et al. 2018 for POS
tagging): each batch's loss is taken a second time with every sentence's input vectors moved
a small step in the direction that raises that loss most, and the two losses are summed.

Why: a regulariser that costs nothing at run time (the network and its weights' meaning are
unchanged; only training takes a second forward and backward pass). It asks the tagger to
give the same tags to inputs a little off the vectors it saw, which is what a rare or unseen
word's poorly trained vector (or a character vector of a new spelling) is.

The step is the loss's gradient with respect to the lookup output (all feature vectors of
the sentence, PADDING rows included), scaled per sentence to an L2 norm of
eps * sqrt(sentence length): on average `eps` per word, more where the loss is most
sensitive.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn


def perturbation(grad: torch.Tensor, lengths: np.ndarray, eps: float) -> torch.Tensor:
    """grad [B, ...] of the loss w.r.t. the looked-up features -> the step [B, ...]: each
    sentence's gradient rescaled to norm eps * sqrt(its length)."""
    norm = grad.flatten(1).norm(dim=1).clamp_min(1e-12)
    size = torch.from_numpy(np.asarray(lengths)).to(grad.device, grad.dtype).sqrt()
    scale = (eps * size / norm).reshape(-1, *[1] * (grad.dim() - 1))
    return (scale * grad).detach()


def with_adversary(net: nn.Module, loss_of: Callable[[], torch.Tensor], lengths: np.ndarray,
                   eps: float) -> torch.Tensor:
    """`loss_of()` (one forward pass of `net` on a batch of sentences `lengths` long) plus
    the same loss with `net.emb`'s output moved by `perturbation`: the sum, to backpropagate.
    """
    looked_up: list[torch.Tensor] = []
    hook = net.emb.register_forward_hook(lambda _m, _i, out: looked_up.append(out))
    try:
        loss = loss_of()
    finally:
        hook.remove()
    if len(looked_up) != 1:
        raise ValueError("adversarial training needs a network that looks its features up "
                         f"once per pass (the window approach); this one did {len(looked_up)}")
    (grad,) = torch.autograd.grad(loss, looked_up[0], retain_graph=True)
    step = perturbation(grad, lengths, eps)
    hook = net.emb.register_forward_hook(lambda _m, _i, out: out + step)
    try:
        return loss + loss_of()
    finally:
        hook.remove()
