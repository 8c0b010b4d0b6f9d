"""The networks' forward pass as stateless NumPy functions of (ids, weights), float32.

Mirrors senna.nn.networks exactly (same parameter names); no torch import anywhere here.
Sentences are processed as one flat row of tokens separated by PADDING, so one matrix
product serves a whole batch of sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from senna.nn.config import NetConfig

Weights = dict[str, np.ndarray]


def hardtanh(x: np.ndarray) -> np.ndarray:
    return np.clip(x, -1.0, 1.0, out=x)


def embed(ids: np.ndarray, w: Weights, n_features: int) -> np.ndarray:
    """ids [N, F] -> concatenated lookup-table rows [N, D] (a character feature's table is
    `senna.runtime.chars.CharVectors`, which computes the rows it lacks)."""
    return np.concatenate([w[f"emb.tables.{j}.weight"][ids[:, j]] for j in range(n_features)], 1)


def window_inputs(ids: np.ndarray, lengths: Sequence[int], w: Weights,
                  cfg: NetConfig) -> np.ndarray:
    """ids [sum T, F] of sentences laid end to end -> network inputs [sum T, window * D]:
    row t holds the embeddings of words t - half .. t + half of its sentence, PADDING
    beyond the sentence's edges.

    The sentences are placed in one row with `half` PADDING rows around each, embedded
    once, and each window is gathered straight into its input row (one copy per word).
    """
    half = cfg.window // 2
    lengths = np.asarray(lengths, dtype=np.intp)
    sentence = np.repeat(np.arange(len(lengths)), lengths)
    pos = np.arange(len(ids)) + half * (sentence + 1)          # row of each word
    flat = np.zeros((len(ids) + half * (len(lengths) + 1), ids.shape[1]), dtype=ids.dtype)
    flat[pos] = ids
    emb = embed(flat, w, len(cfg.dims))
    return emb[pos[:, None] + np.arange(-half, half + 1)].reshape(len(ids), -1)


def char_vectors(chars: np.ndarray, lengths: np.ndarray, w: Weights, name: str) -> np.ndarray:
    """Character convolution (senna.nn.chars): character ids [U, L + 2h] (PADDING around
    each word) and lengths [U] -> max over the L positions of the convolution: [U, C]."""
    conv = w[f"{name}.conv.weight"]                                  # [C, width, window]
    e = w[f"{name}.chars.weight"][chars]                             # [U, L+2h, width]
    x = sliding_window_view(e, conv.shape[2], axis=1)                # [U, L, width, window]
    y = x.reshape(-1, conv[0].size) @ conv.reshape(len(conv), -1).T
    y = y.reshape(len(chars), -1, len(conv))                         # [U, L, C]
    y += w[f"{name}.conv.bias"]
    y[np.arange(y.shape[1]) >= lengths[:, None]] = -np.inf
    return y.max(axis=1)


def windows(x: np.ndarray, window: int) -> np.ndarray:
    """[N, D] -> [N - window + 1, window * D]: row t is x[t], ..., x[t + window - 1]."""
    v = sliding_window_view(x, window, axis=0)            # [N-w+1, D, w]
    return v.transpose(0, 2, 1).reshape(len(v), -1)


def window_scores(ids: np.ndarray, lengths: Sequence[int], w: Weights,
                  cfg: NetConfig) -> np.ndarray:
    """Window approach: ids [sum T, F] of sentences laid end to end -> emissions [sum T, K].
    One matrix product per layer for the whole batch; bias and HardTanh in place."""
    if not len(ids):
        return np.zeros((0, len(w["l2.bias"])), dtype=np.float32)
    h = window_inputs(ids, lengths, w, cfg) @ w["l1.weight"].T
    h += w["l1.bias"]
    scores = hardtanh(h) @ w["l2.weight"].T
    scores += w["l2.bias"]
    return scores


def distance_table(w: Weights, name: str, weight: np.ndarray, cfg: NetConfig) -> np.ndarray:
    """Convolution of the distance embeddings alone for d = -(M+h) .. M+h: [2(M+h)+1, C].

    Beyond |d| = M + h every window sees clipped distances only, so clipping d to that range
    gives the exact value for any sentence length.
    """
    half, m = cfg.window // 2, cfg.max_dist
    d = np.arange(-(m + half) - half, m + half + half + 1)
    e = w[f"{name}.weight"][np.clip(d, -m, m) + m]                        # [n+2h, dd]
    return windows(e, cfg.window) @ weight.transpose(0, 2, 1).reshape(len(weight), -1).T


def sentence_tables(w: Weights, cfg: NetConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split the convolution weight into its word part [C, win*D] and the distance tables."""
    d = cfg.input_dim
    conv = w["conv.weight"]                                               # [C, D+2dd, win]
    w_x = conv[:, :d].transpose(0, 2, 1).reshape(len(conv), -1)
    g_w = distance_table(w, "dist_word", conv[:, d : d + cfg.dist_dim], cfg)
    g_p = distance_table(w, "dist_pred", conv[:, d + cfg.dist_dim :], cfg)
    return w_x, g_w, g_p


def sentence_scores(ids: Sequence[np.ndarray], predicates: Sequence[Sequence[int]],
                    w: Weights, cfg: NetConfig, tables: tuple | None = None,
                    rows: int = 4096) -> np.ndarray:
    """Sentence approach for sentences ids [T_s, F] and their predicates -> scores
    [sum P_s, T, K], one row per predicate (sentence after sentence), T the longest
    sentence; rows past a sentence's end hold no meaning.

    h[i] = max_t (a[t] + g_p[t - p] + g_w[t - i]).  Beyond |t - i| > reach the word-distance
    row is constant (clipped), so the max over those t is a running max of b = a + g_p plus
    a constant: prefix/suffix maxima cover them and only the nearest positions are
    scanned, one offset t - i at a time over whole [P, T, C] blocks (contiguous, and no
    offsets beyond the sentence's length).  Shorter sentences are padded with b = -inf,
    which no max picks, so several sentences share every operation (call with sentences of
    similar length).  Predicates go in groups of about `rows` / T: time and memory grow
    linearly with T (no 1024-token limit, unlike SENNA).
    """
    reach = cfg.max_dist + cfg.window // 2
    w_x, g_w, g_p = tables or sentence_tables(w, cfg)
    lengths = np.array([len(x) for x in ids])
    t = int(lengths.max(initial=0))
    a = window_inputs(np.concatenate(ids), lengths, w, cfg) @ w_x.T + w["conv.bias"]
    start = np.cumsum(lengths) - lengths
    owner = np.repeat(np.arange(len(ids)), [len(p) for p in predicates])   # sentence of row
    pred = np.array([p for ps in predicates for p in ps], dtype=np.intp)
    out = np.empty((len(pred), t, len(w["l2.bias"])), dtype=np.float32)
    pos = np.arange(t)
    group = max(1, rows // max(t, 1))
    for k in range(0, len(pred), group):
        s, p = owner[k : k + group], pred[k : k + group]
        real = pos < lengths[s][:, None]                                  # [P, T]
        rows_of = np.where(real, start[s][:, None] + pos, 0)
        b = a[rows_of] + g_p[np.clip(pos - p[:, None], -reach, reach) + reach]   # [P, T, C]
        b[~real] = -np.inf
        h = b + g_w[reach]                                                # t = i
        tmp = np.empty_like(b)
        for o in range(1, min(reach, t - 1) + 1):                         # t = i +- o
            np.add(b[:, o:], g_w[reach + o], out=tmp[:, : t - o])
            np.maximum(h[:, : t - o], tmp[:, : t - o], out=h[:, : t - o])
            np.add(b[:, : t - o], g_w[reach - o], out=tmp[:, o:])
            np.maximum(h[:, o:], tmp[:, o:], out=h[:, o:])
        if t > reach + 1:                                                 # |t - i| > reach
            left = np.maximum.accumulate(b, axis=1)[:, : t - reach - 1] + g_w[0]
            right = np.maximum.accumulate(b[:, ::-1], axis=1)[:, ::-1][:, reach + 1 :] + g_w[-1]
            np.maximum(h[:, reach + 1 :], left, out=h[:, reach + 1 :])
            np.maximum(h[:, : t - reach - 1], right, out=h[:, : t - reach - 1])
        h[~real] = 0.0                                                    # padding: finite
        hid = h.reshape(-1, h.shape[2]) @ w["l1.weight"].T
        hid += w["l1.bias"]
        scores = hardtanh(hid) @ w["l2.weight"].T
        scores += w["l2.bias"]
        out[k : k + len(p)] = scores.reshape(len(p), t, -1)
    return out


def sentence_emissions(ids: np.ndarray, predicates: Sequence[int], w: Weights, cfg: NetConfig,
                       tables: tuple | None = None) -> np.ndarray:
    """Sentence approach for one sentence ids [T, F] and its predicates [P] -> [P, T, K]."""
    return sentence_scores([ids], [predicates], w, cfg, tables)
