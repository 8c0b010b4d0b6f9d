"""The networks' forward pass as stateless NumPy functions of (ids, weights), float32.

Mirrors senna.nn.networks exactly (same parameter names); no torch import anywhere here.
Sentences are processed as one flat row of tokens separated by PADDING, so one matrix
product serves a whole batch of sentences.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from senna.nn.config import NetConfig

Weights = dict[str, np.ndarray]


def hardtanh(x: np.ndarray) -> np.ndarray:
    return np.clip(x, -1.0, 1.0, out=x)


def embed(ids: np.ndarray, w: Weights, n_features: int) -> np.ndarray:
    """ids [N, F] -> concatenated lookup-table rows [N, D]."""
    return np.concatenate([w[f"emb.tables.{j}.weight"][ids[:, j]] for j in range(n_features)], 1)


def flatten(ids: list[np.ndarray], half: int) -> tuple[np.ndarray, np.ndarray]:
    """Sentences [T_b, F] -> one padded row [N, F] with `half` PADDING rows around each
    sentence, and the row index of every real token [sum T_b]."""
    f = ids[0].shape[1]
    lengths = np.array([len(x) for x in ids])
    starts = np.concatenate([[0], np.cumsum(lengths + half)])[:-1] + half
    flat = np.zeros((int(lengths.sum() + half * (len(ids) + 1)), f), dtype=np.int64)
    pos = np.concatenate([s + np.arange(n) for s, n in zip(starts, lengths, strict=True)])
    flat[pos] = np.concatenate(ids)
    return flat, pos


def windows(x: np.ndarray, window: int) -> np.ndarray:
    """[N, D] -> [N - window + 1, window * D]: row t is x[t], ..., x[t + window - 1]."""
    v = sliding_window_view(x, window, axis=0)            # [N-w+1, D, w]
    return v.transpose(0, 2, 1).reshape(len(v), -1)


def window_emissions(ids: list[np.ndarray], w: Weights, cfg: NetConfig) -> list[np.ndarray]:
    """Window approach: sentences of ids [T_b, F] -> emissions [T_b, K] each."""
    if not ids:
        return []
    half = cfg.window // 2
    flat, pos = flatten(ids, half)
    x = windows(embed(flat, w, len(cfg.dims)), cfg.window)[pos - half]   # [sum T, win*D]
    h = hardtanh(x @ w["l1.weight"].T + w["l1.bias"])
    scores = h @ w["l2.weight"].T + w["l2.bias"]
    return np.split(scores, np.cumsum([len(x) for x in ids])[:-1])


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


def sentence_emissions(ids: np.ndarray, predicates: np.ndarray, w: Weights, cfg: NetConfig,
                       tables: tuple | None = None, block: int = 256) -> np.ndarray:
    """Sentence approach for one sentence ids [T, F] and its predicates [P] -> [P, T, K].

    h[i] = max_t (a[t] + g_p[t - p] + g_w[t - i]).  Beyond |t - i| > reach the word-distance
    row is constant (clipped), so the max over those t is a running max of b = a + g_p plus
    a constant: prefix/suffix maxima cover them and only the 2*reach+1 nearest positions are
    scanned.  Time and memory grow linearly with T (no 1024-token limit, unlike SENNA).
    """
    half, reach = cfg.window // 2, cfg.max_dist + cfg.window // 2
    w_x, g_w, g_p = tables or sentence_tables(w, cfg)
    t = len(ids)
    flat, pos = flatten([ids], half)
    a = windows(embed(flat, w, len(cfg.dims)), cfg.window)[pos - half] @ w_x.T + w["conv.bias"]
    pos = np.arange(t)
    out = np.empty((len(predicates), t, len(w["l2.bias"])), dtype=np.float32)
    padded = np.full((t + 2 * reach, a.shape[1]), -np.inf, dtype=a.dtype)
    near = sliding_window_view(padded, 2 * reach + 1, axis=0)            # [T, C, 2r+1]
    for k, p in enumerate(predicates):
        b = a + g_p[np.clip(pos - p, -reach, reach) + reach]              # [T, C]
        padded[reach : reach + t] = b
        h = np.empty_like(b)
        for i0 in range(0, t, block):                                     # bounded memory
            h[i0 : i0 + block] = (near[i0 : i0 + block] + g_w.T).max(axis=2)
        if t > reach + 1:
            left = np.maximum.accumulate(b, axis=0)[: t - reach - 1] + g_w[0]
            right = np.maximum.accumulate(b[::-1], axis=0)[::-1][reach + 1 :] + g_w[-1]
            np.maximum(h[reach + 1 :], left, out=h[reach + 1 :])
            np.maximum(h[: t - reach - 1], right, out=h[: t - reach - 1])
        hid = hardtanh(h @ w["l1.weight"].T + w["l1.bias"])
        out[k] = hid @ w["l2.weight"].T + w["l2.bias"]
    return out
