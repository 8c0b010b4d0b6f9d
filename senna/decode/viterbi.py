"""Decoding in NumPy, shared by training-time evaluation and the runtime.

`viterbi` finds the best path under the sentence-level score of `senna.decode.crf`
(start + emissions + transitions); `greedy` is the word-level decoder (argmax per word).
"""

from __future__ import annotations

import numpy as np


def greedy(emissions: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
    """emissions [B, T, K] -> best tag per word, one [T_b] array per sentence."""
    best = emissions.argmax(-1)
    return [best[b, :n] for b, n in enumerate(lengths)]


def viterbi(emissions: np.ndarray, lengths: np.ndarray, transitions: np.ndarray,
            start: np.ndarray) -> list[np.ndarray]:
    """emissions [B, T, K], lengths [B], transitions [K, K], start [K] -> best paths.

    Batched over sentences: one max-plus step per position for the whole batch; a sentence
    that has ended carries its scores unchanged, and its back-pointers are never followed.
    """
    b, t, k = emissions.shape
    score = start + emissions[:, 0]                                   # [B, K]
    back = np.zeros((t, b, k), dtype=np.int64)
    for i in range(1, t):
        cand = score[:, :, None] + transitions                        # [B, K(from), K(to)]
        back[i] = cand.argmax(1)
        step = np.take_along_axis(cand, back[i][:, None, :], 1)[:, 0] + emissions[:, i]
        live = (i < lengths)[:, None]
        score = np.where(live, step, score)
    paths = []
    for j, n in enumerate(lengths):
        path = np.empty(n, dtype=np.int64)
        if n == 0:
            paths.append(path)
            continue
        path[n - 1] = score[j].argmax()
        for i in range(n - 1, 0, -1):
            path[i - 1] = back[i, j, path[i]]
        paths.append(path)
    return paths


def decode(emissions: np.ndarray, lengths: np.ndarray, transitions: np.ndarray | None,
           start: np.ndarray | None) -> list[np.ndarray]:
    """Viterbi when transition scores exist (SLL models), else greedy (WLL models)."""
    if transitions is None or start is None:
        return greedy(emissions, lengths)
    return viterbi(emissions, lengths, transitions, start)
