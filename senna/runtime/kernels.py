"""The networks' forward pass as stateless NumPy functions of (ids, weights), float32.

Mirrors senna.nn.networks exactly (same parameter names); no torch import anywhere here.
Sentences are processed as one flat row of tokens separated by PADDING, so one matrix
product serves a whole batch of sentences.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

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


def char_vectors(chars: np.ndarray, lengths: np.ndarray, w: Weights, name: str) -> np.ndarray:
    """Character convolution (senna.nn.chars): character ids [U, L + 2h] (PADDING around
    each word) and lengths [U] -> max over the L positions of the convolution: [U, C].

    The convolution is linear in each window position's character vector, and the
    character vocabulary is small (about 100), so each position's weights are first applied
    to the whole character table ([V, C] per position) and a word's outputs are sums of
    gathered rows: half the time of a product over every character window.  The bias is
    added after the max (the same value)."""
    conv = w[f"{name}.conv.weight"]                                  # [C, width, window]
    table, win = w[f"{name}.chars.weight"], conv.shape[2]
    n = chars.shape[1] - win + 1                                     # output positions L
    y = (table @ conv[:, :, 0].T)[chars[:, :n]]                      # [U, L, C]
    for k in range(1, win):
        y += (table @ conv[:, :, k].T)[chars[:, k : k + n]]
    y[np.arange(n) >= lengths[:, None]] = -np.inf
    out = y.max(axis=1)
    out += w[f"{name}.conv.bias"]
    return out


def windows(x: np.ndarray, window: int) -> np.ndarray:
    """[N, D] -> [N - window + 1, window * D]: row t is x[t], ..., x[t + window - 1]."""
    v = sliding_window_view(x, window, axis=0)            # [N-w+1, D, w]
    return v.transpose(0, 2, 1).reshape(len(v), -1)


def _flat(ids: np.ndarray, lengths: Sequence[int], half: int) -> tuple[np.ndarray, np.ndarray]:
    """Sentences laid end to end with `half` PADDING rows (ids 0) around each: ids [L, F]
    and the row of each word [sum T]."""
    lengths = np.asarray(lengths, dtype=np.intp)
    sentence = np.repeat(np.arange(len(lengths)), lengths)
    pos = np.arange(len(ids)) + half * (sentence + 1)
    flat = np.zeros((len(ids) + half * (len(lengths) + 1), ids.shape[1]), dtype=ids.dtype)
    flat[pos] = ids
    return flat, pos


def distinct_rows(ids: np.ndarray, sizes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """ids [L, F] (column j below sizes[j]) -> (distinct rows [U, F], index of each row's
    distinct row [L]): rows are packed into one integer key and sorted, much faster than
    np.unique over rows.  Where the sizes' product would overflow the 64-bit key (many
    features: words, gazetteers, spellings and clusters together), the key packed so far is
    first renumbered by its distinct values (at most L), so that packing stays exact."""
    key = np.zeros(len(ids), dtype=np.int64)
    span = 1   # a Python int: the product of the sizes packed into the key so far
    for j, size in enumerate(sizes):
        if span * size >= 2**63:
            _, key = np.unique(key, return_inverse=True)
            key = key.reshape(-1).astype(np.int64)
            span = int(key.max(initial=0)) + 1
        key *= size
        key += ids[:, j]
        span *= size
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return ids[first], inverse.reshape(-1)


BLOCK = 256    # words per block of a window layer's output (stays in cache)
CHUNK = 4096   # words sharing one projection of their distinct feature tuples


def window_layer(ids: np.ndarray, lengths: Sequence[int], w: Weights, cfg: NetConfig,
                 weight: np.ndarray, bias: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """A linear layer over each word's window of embeddings (weight [H, window * D]: the
    window's word vectors side by side), for sentences ids [sum T, F] laid end to end ->
    blocks (first word, pre-activations [n, H]) in order.

    The layer is linear in the window's word vectors, so it is the sum over window
    positions k of W_k x(word at k).  Words repeat (a batch of 15,000 words has about
    3,500 distinct feature tuples), so each distinct tuple is projected once per window
    position and each word's vector is the sum of `window` gathered rows: a quarter of
    the multiply-adds of one product per word, and no [words, window * D] input.  Same
    value up to float rounding (within 1e-5 of training).  Chunks of CHUNK words (any
    sentence length) bound the memory.
    """
    half, win, n_out = cfg.window // 2, cfg.window, len(bias)
    flat, pos = _flat(ids, lengths, half)
    parts_w = [np.ascontiguousarray(part.T) for part in weight.reshape(n_out, win, -1)
               .transpose(1, 0, 2)]                                       # win x [D, H]
    parts: list[np.ndarray] = []
    for c0 in range(0, len(ids), CHUNK):
        c1 = min(c0 + CHUNK, len(ids))
        parts.clear()                             # the last chunk's, before the new ones
        first = pos[c0] - half                    # flat rows of the chunk and its context
        rows = flat[first : pos[c1 - 1] + half + 1]
        # sizes from the ids themselves: a character feature's ids are spellings, not rows
        # of a vocabulary of cfg.vocab_sizes entries
        uniq, inverse = distinct_rows(rows, (rows.max(axis=0) + 1).tolist())
        x = embed(uniq, w, len(cfg.dims))                                 # [U, D]
        parts += [x @ part for part in parts_w]                           # win x [U, H]
        for lo in range(c0, c1, BLOCK):
            at = pos[lo : min(lo + BLOCK, c1)] - first
            h = np.take(parts[0], inverse[at - half], axis=0)
            for k in range(1, win):   # a fancy-index gather: faster than take(out=) + add
                h += parts[k][inverse[at + k - half]]
            h += bias
            yield lo, h


def window_scores(ids: np.ndarray, lengths: Sequence[int], w: Weights,
                  cfg: NetConfig) -> np.ndarray:
    """Window approach: ids [sum T, F] of sentences laid end to end -> emissions [sum T, K]:
    `window_layer`, HardTanh and the output layer, block by block."""
    out = np.empty((len(ids), len(w["l2.bias"])), dtype=np.float32)
    l2 = w["l2.weight"].T
    layer = window_layer(ids, lengths, w, cfg, w["l1.weight"], w["l1.bias"])
    for name, width in cfg.stacked:
        layer = stacked_layer(layer, len(ids), lengths, w, cfg, name, width)
    for lo, h in layer:
        np.matmul(hardtanh(h), l2, out=out[lo : lo + len(h)])
    out += w["l2.bias"]
    return out


def stacked_layer(first: Iterator[tuple[int, np.ndarray]], n: int, lengths: Sequence[int],
                  w: Weights, cfg: NetConfig, name: str, width: int
                  ) -> Iterator[tuple[int, np.ndarray]]:
    """A stacked hidden layer (`cfg.stack`; weights `name`, one of `cfg.stacked`): the
    pre-activation blocks of the layer below, `width` units, in order -> blocks of this one's
    pre-activations, which read the outputs below (zeros beyond each sentence) at
    `cfg.stack` neighbouring words, the layout of `windows`.
    Streamed: only the words of a block and their context are held, never the whole input's
    outputs (a 300-unit layer over 76k words would be 91 MB).  Each block's outputs are
    multiplied by every neighbour's weight in one product, and the (narrower) products are
    gathered by index, a word past its sentence reading a zero row."""
    lengths = np.asarray(lengths, dtype=np.intp)
    size = np.repeat(lengths, lengths)                          # each word's sentence length
    place = np.arange(n) - np.repeat(np.cumsum(lengths) - lengths, lengths)   # its position
    half, k_n, top = cfg.stack // 2, cfg.stack, cfg.top_hidden
    # [width, stack * top]: column block k weighs the neighbour at offset k - half
    both = np.ascontiguousarray(w[f"{name}.weight"].reshape(top, k_n, width)
                                .transpose(2, 1, 0).reshape(width, k_n * top))
    bias = w[f"{name}.bias"]

    def block(held: np.ndarray, a: int, lo: int, hi: int) -> np.ndarray:
        """Words lo..hi, from the outputs `held` of words a..a+len(held) (their context)."""
        z = np.empty((len(held) + 1, k_n, top), dtype=np.float32)
        np.matmul(held, both, out=z[:-1].reshape(len(held), k_n * top))
        z[-1] = 0.0
        at = np.arange(lo, hi)
        h = np.tile(bias, (hi - lo, 1))
        for k in range(k_n):
            shift = place[at] + k - half
            h += z[np.where((shift >= 0) & (shift < size[at]), at + k - half - a, len(held)), k]
        return h

    held, a, done = np.empty((0, width), dtype=np.float32), 0, 0   # held: words a..
    for lo, h in first:
        held = np.concatenate([held, hardtanh(h)])
        ready = lo + len(h) - half                 # words whose right context has arrived
        if ready - done >= 4 * BLOCK or lo + len(h) == n:
            # the last words flush here, not after the loop: measured, that peaked 2-3 MB
            # higher (senna on the speed bench's text), at the 150 MB limit
            hi = n if lo + len(h) == n else ready
            yield done, block(held, a, done, hi)
            done = hi
            keep = max(done - half, 0)             # the next words' left context
            held, a = held[keep - a :], keep


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


MAX_CELLS = 1 << 18  # floats per temporary of the max over time (1 MB: stays in cache)


def _distance_block(g_w: np.ndarray, reach: int, i0: int, n_i: int, t0: int, n_t: int,
                    cache: dict) -> np.ndarray:
    """g_w at clipped distance t - i for i in i0 .. i0+n_i-1, t in t0 .. t0+n_t-1:
    [n_i, n_t, C] (cached: it depends only on i0 - t0 and the sizes)."""
    key = (i0 - t0, n_i, n_t)
    if key not in cache:
        d = (t0 + np.arange(n_t))[None, :] - (i0 + np.arange(n_i))[:, None]
        cache[key] = g_w[np.clip(d, -reach, reach) + reach]
    return cache[key]


def max_over_time(b: np.ndarray, g_w: np.ndarray, reach: int) -> np.ndarray:
    """h[r, i] = max_t (b[r, t] + g_w[clip(t - i)]) for b [R, N, C] -> [R, N, C].

    Near positions (|t - i| <= reach) are summed into a [rows, i, t, C] block and reduced
    over t in one call per block (blocks of about MAX_CELLS floats, so they stay in cache;
    a reduction over an axis is about twice as fast as a loop of shifted maxima).  Beyond
    `reach` the distance row is constant (clipped), so the max over those t is a running
    max of b plus a constant: prefix/suffix maxima cover them, and the cost per position
    stays bounded by the reach, not the row length.
    """
    r, n, c = b.shape
    h = np.empty_like(b)
    cache: dict = {}
    span = min(n, 2 * reach + 1)                          # i-chunk size: t range <= 3 * span
    for i0 in range(0, n, span):
        n_i = min(span, n - i0)
        t0, t1 = max(0, i0 - reach), min(n, i0 + n_i + reach)
        g = _distance_block(g_w, reach, i0, n_i, t0, t1 - t0, cache)
        rows = max(1, MAX_CELLS // g.size)
        x = np.empty((min(rows, r), *g.shape), dtype=b.dtype)
        for k in range(0, r, rows):
            m = min(rows, r - k)
            np.add(b[k : k + m, None, t0:t1], g, out=x[:m])
            np.max(x[:m], axis=2, out=h[k : k + m, i0 : i0 + n_i])
    if n > reach + 1:                                     # |t - i| > reach
        far = n - reach - 1
        left = np.maximum.accumulate(b[:, :far], axis=1)
        left += g_w[0]
        np.maximum(h[:, reach + 1 :], left, out=h[:, reach + 1 :])
        right = np.maximum.accumulate(b[:, : reach : -1], axis=1)[:, ::-1]
        right += g_w[-1]
        np.maximum(h[:, :far], right, out=h[:, :far])
    return h


def predicate_terms(flat: np.ndarray, start: np.ndarray, length: np.ndarray, pred: np.ndarray,
                    w: Weights, cfg: NetConfig) -> np.ndarray | None:
    """The predicate window's part of the layer after the max over time (SentenceNet's
    `pred`): for predicates at word pred[r] of the sentence at flat[start[r]:][:length[r]],
    pred.weight times the features of the words centred on it (PADDING past the sentence)
    -> [P, H]; None for a network without one."""
    if not cfg.predicate_window:
        return None
    q = cfg.predicate_window // 2
    at = pred[:, None] + np.arange(-q, q + 1)                             # [P, window]
    inside = (at >= 0) & (at < length[:, None])
    rows = np.where(inside, start[:, None] + at, 0)
    picked = np.where(inside[..., None], flat[rows], 0).reshape(-1, flat.shape[1])
    x = embed(picked, w, len(cfg.dims)).reshape(len(pred), -1)            # [P, window * D]
    return x @ w["pred.weight"].T


def role_scores(ids: Sequence[np.ndarray], predicates: Sequence[Sequence[int]], w: Weights,
                cfg: NetConfig, tables: tuple | None = None,
                windows: Sequence[Sequence[tuple[int, int]]] | None = None,
                rows: int = 1024) -> np.ndarray:
    """Sentence approach for sentences ids [T_s, F], their predicates and each predicate's
    window [lo, hi) of positions (default: the whole sentence) -> scores [sum P_s, N, K],
    one row per predicate (sentence after sentence), N the longest window; row j of a
    predicate is word lo + j, and the max over time only ranges over its window.

    h[i] = max_t (a[t] + g_p[t - p] + g_w[t - i]) where a is the convolution of the words
    (computed once per sentence, with the words' true neighbours even at a window's edge)
    and g_p, g_w the distance tables; a network with a predicate window adds its term
    (`predicate_terms`, once per predicate) after the max.  Shorter windows are padded
    with b = -inf, which no max picks, so several sentences share every operation (call
    with windows of similar length); the hidden and output layers run on the window's
    cells only (a padding cell's scores are 0).  Predicates go in groups of about
    `rows` / N: memory is bounded by `rows`.
    """
    reach = cfg.max_dist + cfg.window // 2
    w_x, g_w, g_p = tables or sentence_tables(w, cfg)
    lengths = np.array([len(x) for x in ids], dtype=np.intp)
    a = np.empty((int(lengths.sum()) + 1, len(w_x)), dtype=np.float32)
    a[-1] = -np.inf                                                       # [-1]: no word
    flat = np.concatenate(ids)
    for lo, block in window_layer(flat, lengths, w, cfg, w_x, w["conv.bias"]):
        a[lo : lo + len(block)] = block
    start = np.cumsum(lengths) - lengths
    owner = np.repeat(np.arange(len(ids)), [len(p) for p in predicates])   # sentence of row
    pred = np.array([p for ps in predicates for p in ps], dtype=np.intp)
    extra = predicate_terms(flat, start[owner], lengths[owner], pred, w, cfg)   # [P, H]
    if windows is None:
        lo, hi = np.zeros_like(pred), lengths[owner]
    else:
        bounds = np.array([b for ws in windows for b in ws], dtype=np.intp).reshape(-1, 2)
        lo, hi = bounds[:, 0], bounds[:, 1]
    n = int((hi - lo).max(initial=0))
    l1, l2 = w["l1.weight"].T, w["l2.weight"].T
    out = np.zeros((len(pred), n, len(w["l2.bias"])), dtype=np.float32)   # padding stays 0
    pos = np.arange(n)
    group = max(1, rows // max(n, 1))
    for k in range(0, len(pred), group):
        s, p, first = owner[k : k + group], pred[k : k + group], lo[k : k + group]
        real = pos < (hi - lo)[k : k + group, None]                       # [P, N]
        at = first[:, None] + pos                                         # word of each cell
        b = a[np.where(real, start[s][:, None] + at, -1)]
        b += g_p[np.clip(at - p[:, None], -reach, reach) + reach]         # [P, N, C]
        hid = max_over_time(b, g_w, reach)[real] @ l1                     # [cells, H]
        hid += w["l1.bias"]
        if extra is not None:
            hid += np.repeat(extra[k : k + group], real.sum(axis=1), axis=0)
        scores = hardtanh(hid) @ l2
        scores += w["l2.bias"]
        out[k : k + len(p)][real] = scores
    return out


def _gates(g: np.ndarray, c: np.ndarray, h: np.ndarray) -> None:
    """One LSTM step from its scaled pre-activations g [n, 4H] (-z for the gates i, f and o,
    -2z for g, see `_scaled`): the cells c [n, H] and the states h [n, H] updated in place.
    One exp for all four gates: sigmoid(z) = 1 / (1 + exp(-z)) and tanh(z) = 2 sigmoid(2z)
    - 1, since NumPy's float32 exp runs in SIMD and its tanh does not (2.5 times the time
    per element here).  An exp that overflows (z below -88, or -44 for g) gives inf and the
    gate its limit, 0 (or -1 for g): callers silence that warning (`np.errstate`)."""
    n_h = c.shape[1]
    np.exp(g, out=g)
    g += 1.0
    np.reciprocal(g, out=g)                                   # i, f, o; g: sigmoid(2z)
    cell = g[:, 2 * n_h : 3 * n_h]
    cell *= 2.0
    cell -= 1.0
    c *= g[:, n_h : 2 * n_h]
    c += g[:, :n_h] * cell
    np.tanh(c, out=h)
    h *= g[:, 3 * n_h :]


def _scaled(w: Weights, name: str, suffix: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An LSTM direction's input weights [D, 4H], recurrent weights [H, 4H] and bias [4H],
    scaled for `_gates`: the i, f and o columns by -1, the g columns by -2."""
    n_h = w[f"{name}.weight_hh_l0{suffix}"].shape[1]
    scale = np.full(4 * n_h, -1.0, dtype=np.float32)
    scale[2 * n_h : 3 * n_h] = -2.0                                           # g: tanh
    return (w[f"{name}.weight_ih_l0{suffix}"].T * scale,
            w[f"{name}.weight_hh_l0{suffix}"].T * scale,
            (w[f"{name}.bias_ih_l0{suffix}"] + w[f"{name}.bias_hh_l0{suffix}"]) * scale)


def _alive(lengths: np.ndarray) -> np.ndarray:
    """Sentences' lengths, longest first -> how many are longer than t, for each step t."""
    longest = int(lengths[0]) if len(lengths) else 0
    return np.searchsorted(-lengths, -np.arange(longest), side="left")


def lstm_direction(x: np.ndarray, starts: np.ndarray, lengths: np.ndarray, w: Weights,
                   suffix: str, out: np.ndarray, name: str = "lstm") -> None:
    """One direction of a one-layer LSTM (PyTorch's nn.LSTM: gates i, f, g, o) over
    sentences laid end to end: inputs x [sum T, D], each sentence's first row and length
    (longest first) -> its hidden states written into out [sum T, H] in place.  `suffix`
    "" reads each sentence left to right, "_reverse" right to left.

    The recurrence steps through positions, all sentences at once, and at step t only the
    sentences longer than t take part (the rows of a packed sequence), so no padding is
    computed.  Each step is one product of [input, previous state] with both weight
    matrices stacked (no [words, 4H] projection of the whole input is held: that was 100 MB
    for a 32,000-word batch), and one exp for all four gates (`_gates`), whose weights are
    scaled beforehand (`_scaled`)."""
    w_ih, w_hh, bias = _scaled(w, name, suffix)
    both = np.concatenate([w_ih, w_hh])                                       # [D+H, 4H]
    d, n_h = x.shape[1], w_hh.shape[0]
    inp = np.zeros((len(lengths), d + n_h), dtype=np.float32)     # [x_t, h_{t-1}] per row
    c = np.zeros((len(lengths), n_h), dtype=np.float32)
    with np.errstate(over="ignore"):
        for t, n in enumerate(_alive(lengths).tolist()):
            rows = starts[:n] + (t if not suffix else lengths[:n] - 1 - t)
            inp[:n, :d] = x[rows]
            g = inp[:n] @ both
            g += bias
            _gates(g, c[:n], inp[:n, d:])
            out[rows] = inp[:n, d:]


def lstm_recurrence(xw: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                    w_hh: np.ndarray, suffix: str, out: np.ndarray) -> None:
    """`lstm_direction` for inputs already projected: xw [sum T, 4H] (the scaled input
    weights' product plus the bias, `_scaled`), w_hh the scaled recurrent weights [H, 4H]."""
    n_h = w_hh.shape[0]
    h = np.zeros((len(lengths), n_h), dtype=np.float32)
    c = np.zeros((len(lengths), n_h), dtype=np.float32)
    with np.errstate(over="ignore"):
        for t, n in enumerate(_alive(lengths).tolist()):
            rows = starts[:n] + (t if not suffix else lengths[:n] - 1 - t)
            g = h[:n] @ w_hh
            g += xw[rows]
            _gates(g, c[:n], h[:n])
            out[rows] = h[:n]


def _longest_first(lengths: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Sentences laid end to end -> (their first rows, their lengths), longest first."""
    lengths = np.asarray(lengths, dtype=np.intp)
    order = np.argsort(-lengths, kind="stable")
    return (np.cumsum(lengths) - lengths)[order], lengths[order]


def bilstm_states(x: np.ndarray, lengths: Sequence[int], w: Weights, name: str = "lstm"
                  ) -> np.ndarray:
    """Both directions' states side by side [sum T, 2H] of the LSTM `name` over inputs
    x [sum T, D] of sentences laid end to end."""
    starts, ordered = _longest_first(lengths)
    n_h = w[f"{name}.weight_hh_l0"].shape[1]
    h = np.empty((len(x), 2 * n_h), dtype=np.float32)
    lstm_direction(x, starts, ordered, w, "", h[:, :n_h], name)
    lstm_direction(x, starts, ordered, w, "_reverse", h[:, n_h:], name)
    return h


def bilstm_scores(ids: np.ndarray, lengths: Sequence[int], w: Weights,
                  cfg: NetConfig) -> np.ndarray:
    """BiLSTM approach (senna.nn.networks.BiLSTMNet): ids [sum T, F] of sentences laid end
    to end -> emissions [sum T, K]: lookup tables, both directions' hidden states side by
    side, the output layer."""
    if cfg.level_hidden:
        return level_scores(sentence_states(ids, lengths, w, cfg), ids[:, -1], lengths, w, cfg)
    out = bilstm_states(embed(ids, w, len(cfg.dims)), lengths, w) @ w["l2.weight"].T
    out += w["l2.bias"]
    return out


def sentence_states(ids: np.ndarray, lengths: Sequence[int], w: Weights, cfg: NetConfig
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A BiLSTM with `level_hidden`, what does not change from level to level: ids
    [sum T, F] (the last column, the levels', unread) -> the level LSTM's inputs from the
    first LSTM's states, forward and backward ([sum T, 4 level_hidden] each: scaled, bias
    included, `_scaled`), and the output layer's share of the scores [sum T, K]."""
    states = bilstm_states(embed(ids, w, len(cfg.dims) - 1), lengths, w)
    n_s = states.shape[1]
    inputs = []
    for suffix in ("", "_reverse"):
        w_ih, _, bias = _scaled(w, "levels", suffix)
        xw = states @ w_ih[:n_s]
        xw += bias
        inputs.append(xw)
    base = states @ w["l2.weight"][:, :n_s].T
    base += w["l2.bias"]
    return inputs[0], inputs[1], base


def level_scores(fixed: tuple[np.ndarray, np.ndarray, np.ndarray], level_ids: np.ndarray,
                 lengths: Sequence[int], w: Weights, cfg: NetConfig) -> np.ndarray:
    """`sentence_states` of sentences laid end to end, and their words' ids in the last
    feature's table [sum T] -> emissions [sum T, K]: the level LSTM's two directions and the
    output layer's share of their states."""
    starts, ordered = _longest_first(lengths)
    table, n_l = w[f"emb.tables.{len(cfg.dims) - 1}.weight"], cfg.level_hidden
    h = np.empty((len(level_ids), 2 * n_l), dtype=np.float32)
    for k, suffix in enumerate(("", "_reverse")):
        w_ih, w_hh, _ = _scaled(w, "levels", suffix)
        xw = (table @ w_ih[2 * cfg.hidden :])[level_ids]
        xw += fixed[k]
        lstm_recurrence(xw, starts, ordered, w_hh, suffix, h[:, k * n_l : (k + 1) * n_l])
    out = h @ w["l2.weight"][:, 2 * cfg.hidden :].T
    out += fixed[2]
    return out
