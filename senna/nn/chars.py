"""Character-level word vectors (CharWNN: dos Santos & Zadrozny, ICML 2014).

A word's characters are embedded, convolved over `window` characters with PADDING beyond
the word's edges, and max-pooled over positions: one vector per word, concatenated to the
word's other features before the tagger's first layer.  The module's input ids are
spelling ids (`senna.features.kinds.Spellings`), so it takes the place of a lookup table in
`senna.nn.networks.Embeddings`.  Parameter names (the contract with
`senna.runtime.chars` and weights.npz): `emb.tables.{j}.chars.weight` [characters, width],
`emb.tables.{j}.conv.weight` [filters, width, window] and `emb.tables.{j}.conv.bias`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from senna.features.kinds import Spellings


class CharConvolution(nn.Module):
    """A chars feature's table: spelling ids -> max-pooled character convolutions."""

    def __init__(self, n_chars: int, char_dim: int, window: int, filters: int,
                 sparse: bool = True):
        super().__init__()
        self.window = window
        self.chars = nn.Embedding(n_chars, char_dim, sparse=sparse)
        self.conv = nn.Conv1d(char_dim, filters, window)
        self.spellings: Spellings | None = None   # the featurizer's (`bind_spellings`)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Spelling ids [...] -> vectors [..., filters]; each distinct spelling once."""
        if self.spellings is None:
            raise RuntimeError("a character convolution needs its featurizer's spellings "
                               "(senna.nn.networks.bind_spellings)")
        unique, inverse = torch.unique(ids, return_inverse=True)
        chars, lengths = self.spellings.padded(unique.cpu().numpy(), self.window // 2)
        x = self.chars(torch.from_numpy(chars).to(ids.device))             # [U, L+2h, w]
        x = x.unfold(1, self.window, 1).flatten(2)                          # [U, L, w*win]
        # one matrix product instead of conv1d, with conv1d's weights: on CPU, conv1d's
        # backward over these short sequences cost more than the rest of a training step
        y = F.linear(x, self.conv.weight.flatten(1), self.conv.bias)        # [U, L, C]
        beyond = torch.arange(y.shape[1], device=ids.device)[None, :] \
            >= torch.from_numpy(lengths).to(ids.device)[:, None]
        pooled = y.masked_fill(beyond[:, :, None], float("-inf")).max(dim=1).values
        return pooled[inverse]

    def tie_to(self, other: CharConvolution) -> CharConvolution:
        """Use `other`'s parameters (multi-task training), keeping these spellings: each
        task's featurizer numbers its words itself."""
        if (self.chars.weight.shape, self.conv.weight.shape) != \
                (other.chars.weight.shape, other.conv.weight.shape):
            raise ValueError("character convolutions of different shapes cannot be shared")
        self.chars, self.conv = other.chars, other.conv
        return self
