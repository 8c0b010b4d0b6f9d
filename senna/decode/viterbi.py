"""Decoding in NumPy, shared by training-time evaluation and the runtime.

`viterbi` finds the best path under the sentence-level score of `senna.nn.criterion`
(start + emissions + transitions); `greedy` is the word-level decoder (argmax per word).
"""

from __future__ import annotations

import numpy as np


def greedy(emissions: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
    """emissions [B, T, K] -> best tag per word, one [T_b] array per sentence."""
    best = emissions.argmax(-1)
    return [best[b, :n] for b, n in enumerate(lengths)]


def dominance(transitions: np.ndarray) -> np.ndarray:
    """[K, K] float32: d[f, i] >= max_j transitions[i, j] - transitions[f, j], how much more
    coming from tag i can ever gain over coming from tag f (+inf if not all finite).
    Computed in float64 and rounded up, so pruning with it never drops a candidate."""
    t = np.asarray(transitions, dtype=np.float64)
    if not np.isfinite(t).all():
        return np.full(t.shape, np.inf, dtype=np.float32)
    d = np.stack([(t - row).max(1) for row in t]) if len(t) else np.zeros(t.shape)
    low = d.astype(np.float32)
    return np.where(low < d, np.nextafter(low, np.float32(np.inf)), low)


DENSE = 24  # up to this many tags every previous tag is a candidate (pruning costs more)


def _best(score: np.ndarray, transitions: np.ndarray, idx: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray]:
    """Max and first argmax over candidate previous tags idx [W, B] (any order, repeats
    allowed) of score[b, i] + transitions[i, j] -> [B, K] each.  Laid out [W, B, K], so
    both are reductions over the outer axis (long SIMD loops); the first argmax is the
    smallest tag reaching the max, found as a max of K - tag."""
    w, b = idx.shape
    k = transitions.shape[1]
    cand = transitions[idx].astype(np.result_type(score, transitions), copy=False)  # [W, B, K]
    cand += score[np.arange(b), idx][:, :, None]
    best = cand.max(0)
    small = np.min_scalar_type(k)
    weight = (k - idx).astype(small)[:, :, None]
    hit = (cand == best).view(np.uint8)
    if small == np.uint8:                                             # in place: no new array
        arg = k - np.multiply(hit, weight, out=hit).max(0)
    else:
        arg = k - (hit * weight).max(0)
    return best, np.minimum(arg, k - 1)                               # (NaN rows: no hit)


def _step(score: np.ndarray, transitions: np.ndarray, dom: np.ndarray, slack: float,
          eps: float) -> tuple[np.ndarray, np.ndarray]:
    """One max-plus step: best[b, j] = max_i score[b, i] + transitions[i, j] and its first
    argmax i, for every sentence b at once.

    Why pruned: a full step costs B*K*K (K = 179 SRL tags: 32,000 sums per word), yet a
    previous tag i can only win somewhere if score[b, i] + dom[f, i] >= score[b, f] for
    the best previous tag f; about two tags pass on average.  The test is loosened by 64
    rounding units of the largest sum involved (the batch's largest |max score| plus
    `slack`, which bounds |transitions| and dom), so every i whose rounded sum could tie
    or win is kept: the result is exactly the full step's, first-index tie-breaking
    included.  Every row gets W candidates (padded with f, which changes nothing) and rows
    keeping more get a second pass, W chosen to minimise the work of both passes.
    Rows with non-finite scores keep every tag.  With at most DENSE tags (NER: 17) the
    full step is cheaper than the pruning and is done directly.
    """
    b, k = score.shape
    if k <= DENSE:
        return _best(score, transitions, np.repeat(np.arange(k)[:, None], b, 1))
    lead = score.argmax(1)
    top = score.max(1)
    peak = float(np.abs(top).max())
    finite = np.isfinite(peak)
    if not finite:                                                    # rare: inf/NaN rows
        peak = float(np.abs(top[np.isfinite(top)]).max(initial=0.0))
    keep = score + dom[lead] >= (top - 64 * eps * (peak + slack))[:, None]
    if not finite:
        keep[~np.isfinite(top)] = True
    count = np.count_nonzero(keep, 1)
    rows, tags = np.nonzero(keep)                                     # by row
    rank = np.arange(len(rows)) - np.repeat(np.cumsum(count) - count, count)
    most = int(count.max())
    over = b - np.cumsum(np.bincount(count, minlength=most + 1))     # rows keeping > w
    width = int(np.argmin(np.arange(1, most + 1) * b + most * over[1:])) + 1
    idx = np.repeat(lead[None, :], width, 0)                          # [W, B]
    sel = rank < width
    idx[rank[sel], rows[sel]] = tags[sel]
    best, arg = _best(score, transitions, idx)
    wide = np.flatnonzero(count > width)
    if len(wide):
        slot = np.zeros(b, dtype=np.intp)
        slot[wide] = np.arange(len(wide))
        sel = count[rows] > width
        idx = np.repeat(lead[None, wide], most, 0)
        idx[rank[sel], slot[rows[sel]]] = tags[sel]
        best[wide], arg[wide] = _best(score[wide], transitions, idx)
    return best, arg


def viterbi(emissions: np.ndarray, lengths: np.ndarray, transitions: np.ndarray,
            start: np.ndarray, dom: np.ndarray | None = None) -> list[np.ndarray]:
    """emissions [B, T, K], lengths [B], transitions [K, K], start [K] -> best paths.
    `dom`: `dominance(transitions)` if already known (it costs K**3: models keep it).

    Batched over sentences: one max-plus step per position for the whole batch.  Sentences
    are taken longest first, so those still running at a position are a prefix of the
    batch and padding costs nothing; an ended sentence keeps its scores and gets identity
    back-pointers, so one vectorised traceback over the batch recovers every path.
    """
    b, t, k = emissions.shape
    lengths = np.asarray(lengths)
    if b == 0 or t == 0:
        return [np.empty(0, dtype=np.intp) for _ in range(b)]
    order = np.argsort(-lengths, kind="stable")
    running = np.searchsorted(-lengths[order], -np.arange(t), side="left")  # length > i
    emissions = emissions[order]                                      # longest first
    score = start + emissions[:, 0]                                   # [B, K]
    dom = dominance(transitions) if dom is None else dom
    finite = np.isfinite(dom).all()
    slack = 4.0 * float(np.abs(transitions).max()) + 1.0 if finite and k else 1.0
    eps = float(np.finfo(np.result_type(score, transitions)).eps)
    back = np.empty((t, b, k), dtype=np.min_scalar_type(max(k - 1, 0)))   # uint8 if K <= 256
    for i in range(1, t):
        n = running[i]
        best, back[i, :n] = _step(score[:n], transitions, dom, slack, eps)
        back[i, n:] = np.arange(k)
        score[:n] = best + emissions[:n, i]
    paths = np.empty((b, t), dtype=np.intp)
    paths[:, t - 1] = score.argmax(1)
    rows = np.arange(b)
    for i in range(t - 1, 0, -1):
        paths[:, i - 1] = back[i, rows, paths[:, i]]
    out: list[np.ndarray] = [np.empty(0, dtype=np.intp)] * b
    for j, row in zip(order.tolist(), paths, strict=True):
        out[j] = row[: lengths[j]]
    return out


def decode(emissions: np.ndarray, lengths: np.ndarray, transitions: np.ndarray | None,
           start: np.ndarray | None, dom: np.ndarray | None = None) -> list[np.ndarray]:
    """Viterbi when transition scores exist (SLL models), else greedy (WLL models)."""
    if transitions is None or start is None:
        return greedy(emissions, lengths)
    return viterbi(emissions, lengths, transitions, start, dom)
