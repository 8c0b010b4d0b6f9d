"""Random text windows and corruptions drawn from a prepared corpus, on the training device.

Why on the device: at millions of windows per second, moving ids from NumPy to the GPU
would cost more than the network; the whole id array (4 bytes a word) lives where the
model does and a `torch.Generator` there draws positions and negatives.  Its state is part
of the checkpoint, so a resumed run draws exactly the windows it would have drawn.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from senna.vocab import Vocab

RARE_ID = Vocab.unk_id
FIRST_WORD = 2  # ids 0 and 1 are PADDING and RARE


class WindowSampler:
    """Windows centred on in-dictionary words; words outside the dictionary read as RARE."""

    def __init__(self, ids: np.ndarray, window: int, device: torch.device | str = "cpu"):
        half = window // 2
        self.half = half
        # ids < 2**31 always (a dictionary that large would not fit in memory), so the
        # uint32 file can be viewed as int32 without a copy before moving to the device.
        with warnings.catch_warnings():  # a read-only memmap: shared, never written to
            warnings.simplefilter("ignore", UserWarning)
            self.ids = torch.from_numpy(np.ascontiguousarray(ids).view(np.int32)).to(device)
        self.offsets = torch.arange(-half, half + 1, device=device)
        self.lo, self.hi = half, len(ids) - half
        if self.hi <= self.lo:
            raise ValueError("corpus shorter than one window")

    def centres(self, n: int, size: int, gen: torch.Generator) -> torch.Tensor:
        """`n` positions whose word is in the dictionary of `size` (rejection sampling)."""
        out: list[torch.Tensor] = []
        need = n
        while need > 0:
            pos = torch.randint(self.lo, self.hi, (need + need // 4 + 64,), generator=gen,
                                device=self.ids.device)
            w = self.ids[pos]
            pos = pos[(w >= FIRST_WORD) & (w < size)]
            out.append(pos[:need])
            need -= len(out[-1])
        return torch.cat(out) if len(out) > 1 else out[0]

    def windows(self, centres: torch.Tensor, size: int) -> torch.Tensor:
        """[B] centre positions -> [B, W] int64 word ids, out-of-dictionary words as RARE."""
        win = self.ids[centres.unsqueeze(1) + self.offsets].long()
        return win.masked_fill_(win >= size, RARE_ID)

    def sample(self, n: int, size: int, negatives: int, gen: torch.Generator
               ) -> tuple[torch.Tensor, torch.Tensor]:
        """`n` windows and `negatives` random dictionary words for each (uniform, eq. 18)."""
        win = self.windows(self.centres(n, size, gen), size)
        neg = torch.randint(FIRST_WORD, size, (n, negatives), generator=gen, device=win.device)
        return win, neg
