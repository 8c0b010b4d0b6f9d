"""Which tag sequences a tagging scheme allows, as masks a decoder can enforce.

Why: an unconstrained decoder can emit `O I-NP` or `S-V E-ARGM-TMP`, sequences that mean
nothing; each output format then repairs them its own way and the formats disagree.
Decoding only valid sequences makes every format say the same thing.

IOBES: a chunk is `S-X` alone or `B-X (I-X)* E-X`; `O` is outside every chunk.  So after
`O`, `E-X` or `S-X` (a closed position) comes `O`, `B-Y` or `S-Y`; after `B-X` or `I-X`
(inside an open X chunk) comes `I-X` or `E-X`; a sentence starts and ends closed.  A tag
with another prefix (none in the shipped models) is treated as a one-token chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from senna.tags import split_tag


@dataclass(frozen=True)
class Constraints:
    """allowed[i, j]: tag j may follow tag i; first / last: tags a sentence may start /
    end with.  All bool, K = number of tags."""

    allowed: np.ndarray
    first: np.ndarray
    last: np.ndarray

    def valid(self, path: Sequence[int]) -> bool:
        """Does this sequence of tag ids satisfy the constraints?"""
        if not len(path):
            return True
        pairs = all(self.allowed[a, b] for a, b in zip(path[:-1], path[1:], strict=True))
        return bool(self.first[path[0]] and self.last[path[-1]] and pairs)


def iobes(tags: Sequence[str]) -> Constraints:
    """The IOBES rules over a tag list (order as the model's output layer)."""
    parts = [split_tag(t) for t in tags]
    opens = np.array([p in ("B", "I") for p, _ in parts], dtype=bool)  # inside an open chunk
    continues = np.array([p in ("I", "E") for p, _ in parts], dtype=bool)  # needs an open chunk
    kind = np.array([k for _, k in parts], dtype=str)
    same = kind[:, None] == kind[None, :]
    allowed = np.where(opens[:, None], continues[None, :] & same, ~continues[None, :])
    return Constraints(allowed, ~continues, ~opens)


def valid_iobes(tags: Sequence[str]) -> bool:
    """Is this sequence of tag names well formed IOBES?"""
    known = sorted(set(tags))
    rules = iobes(known)
    index = {t: i for i, t in enumerate(known)}
    return rules.valid([index[t] for t in tags])


def for_scheme(tags: Sequence[str], scheme: str | None) -> Constraints | None:
    """Constraints of a model's output scheme; None for plain tags (POS), where any
    sequence is valid."""
    return iobes(tags) if scheme == "iobes" else None
