"""Decoding in NumPy, shared by training-time evaluation and the runtime.

`Decoder` finds the best path under the sentence-level score of `senna.nn.criterion`
(start + emissions + transitions), optionally only among the sequences a tag scheme allows
(`senna.decode.constraints`).  A word-level (WLL) model decoded under constraints is a
Decoder with zero transitions: the valid path with the largest sum of word scores.
"""

from __future__ import annotations

import numpy as np

from senna.decode.constraints import Constraints


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


def _pick(score: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """score[b, idx[..., b]] for score [B, U] and idx [..., B]: a gather by flat index
    (twice as fast as score[arange(B), idx]); a column slice (a tag group's scores) is
    gathered in place rather than copied whole."""
    b, u = score.shape
    if not score.flags.c_contiguous:
        return score[np.arange(b), idx]
    return np.take(score, idx + np.arange(b) * u)


def _best(score: np.ndarray, transitions: np.ndarray, idx: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray]:
    """Max and first argmax over candidate previous tags idx [W, B] (any order, repeats
    allowed) of score[b, i] + transitions[i, j] -> [B, J] each (score [B, U],
    transitions [U, J]).  Laid out [W, B, K], so
    both are reductions over the outer axis (long SIMD loops); the first argmax is the
    smallest tag reaching the max, found as a max of K - tag."""
    w, b = idx.shape
    k = score.shape[1]
    cand = np.take(transitions, idx, axis=0).astype(np.result_type(score, transitions),
                                                    copy=False)                  # [W, B, K]
    cand += _pick(score, idx)[:, :, None]
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
    argmax i, for every sentence b at once (score [B, U], finite transitions [U, J]).

    Why pruned: a full step costs B*K*K (K = 179 SRL tags: 32,000 sums per word), yet a
    previous tag i can only win somewhere if score[b, i] + dom[f, i] >= score[b, f] for
    the best previous tag f; about two tags pass on average.  The test is loosened by 64
    rounding units of the largest sum involved (the batch's largest |max score| plus
    `slack`, which bounds |transitions| and dom), so every i whose rounded sum could tie
    or win is kept: the result is exactly the full step's, first-index tie-breaking
    included.  Every row gets W candidates (padded with f, which changes nothing) and rows
    keeping more get a second pass, W chosen to minimise the work of both passes (a third,
    narrower pass for the second's rows costs more than it saves, measured on POS).
    Rows with non-finite scores keep every tag.  With at most DENSE tags (NER: 17) the
    full step is cheaper than the pruning and is done directly.
    """
    b, k = score.shape
    if k <= DENSE:
        return _best(score, transitions, np.repeat(np.arange(k)[:, None], b, 1))
    lead = score.argmax(1)
    top = _pick(score, lead)                                          # the max, gathered
    peak = float(np.abs(top).max())
    finite = np.isfinite(peak)
    if not finite:                                                    # rare: inf/NaN rows
        peak = float(np.abs(top[np.isfinite(top)]).max(initial=0.0))
    keep = score + np.take(dom, lead, axis=0) >= (top - 64 * eps * (peak + slack))[:, None]
    if not finite:
        keep[~np.isfinite(top)] = True
    rows, tags = np.divmod(np.flatnonzero(keep), k)                   # by row (a 2-D
    # nonzero is ten times slower)
    count = np.bincount(rows, minlength=b)
    rank = np.arange(len(rows)) - (np.cumsum(count) - count)[rows]
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


NARROW = 4  # targets with at most this many allowed previous tags: plain max over those
DENSE_CELLS = 1 << 15  # batch x K x K up to which a step is done in full
LONG, PIECE, MARGIN = 256, 128, 32  # sentences decoded in pieces; see Decoder.decode_flat


class Decoder:
    """Best paths under start + emissions + transitions, among the sequences `constraints`
    allows (all of them if None); `transitions` None: a word-level model (zero
    transitions, so with no constraints the decoder is a plain argmax per word).

    Why groups: under IOBES most pairs are forbidden, which a -inf transition score would
    express but which would also defeat the pruning of `_step` (a forbidden pair makes
    one tag infinitely better than another).  So the targets are grouped by their set of
    allowed previous tags: `I-X`/`E-X` have two (`B-X`, `I-X`) and take a plain max over
    them; the others share one set (`O`, `E-*`, `S-*`), over which every transition is
    allowed and the pruned step applies unchanged.  Tags are renumbered internally
    (`order`) so that this set and its targets are contiguous ranges: slices instead of
    gathers at every step.  Ties between equally good paths go to the smaller tag in that
    internal order.
    """

    def __init__(self, n_tags: int, transitions: np.ndarray | None = None,
                 start: np.ndarray | None = None, constraints: Constraints | None = None):
        k = n_tags
        self.k = k
        self.plain = transitions is None and constraints is None
        trans = np.zeros((k, k), np.float32) if transitions is None else np.asarray(transitions)
        self.dtype = np.result_type(trans, np.float32)
        self.eps = float(np.finfo(self.dtype).eps)
        begin = np.zeros(k, self.dtype) if start is None else np.asarray(start, self.dtype)
        end = np.zeros(k, self.dtype)
        allowed = np.ones((k, k), bool)
        if constraints is not None:
            allowed = constraints.allowed
            begin = np.where(constraints.first, begin, -np.inf).astype(self.dtype)
            end = np.where(constraints.last, end, -np.inf).astype(self.dtype)
        wide = allowed.sum(0) > NARROW                        # targets of the pruned step
        sets = {tuple(np.flatnonzero(allowed[:, j])) for j in np.flatnonzero(wide)}
        if len(sets) > 1:
            raise ValueError("constraints must give every target with more than "
                             f"{NARROW} allowed previous tags the same set of them")
        prev = np.zeros(k, bool)
        prev[list(sets.pop() if sets else ())] = True
        # internal order: wide targets only, wide targets that are also the allowed
        # previous tags, previous tags only, the rest (narrow targets)
        group = np.where(wide, np.where(prev, 1, 0), np.where(prev, 2, 3))
        self.order = np.argsort(group, kind="stable")
        o = self.order
        self.identity = bool((o == np.arange(k)).all())
        trans, allowed = trans[np.ix_(o, o)].astype(self.dtype), allowed[np.ix_(o, o)]
        self.start, self.end = begin[o], (None if np.all(end == 0) else end[o])
        self.n_wide = j1 = int(wide.sum())
        u = np.flatnonzero(prev[o])
        self.u0, self.u1 = (int(u[0]), int(u[-1]) + 1) if len(u) else (0, 0)
        sub = trans[self.u0 : self.u1, :j1]
        self.sub, self.dom = sub, dominance(sub)
        # zero transitions (a word-level model): every wide target's best previous tag is
        # the same, the best of the previous set, so a step is one max (ties: the first)
        self.flat = not np.any(sub)
        self.slack = 4.0 * float(np.abs(sub).max(initial=0.0)) + 1.0
        preds = [np.flatnonzero(allowed[:, j]) for j in range(j1, k)]
        width = max((len(p) for p in preds), default=0)
        self.cand = np.zeros((width, k - j1), dtype=np.intp)
        self.gain = np.full((width, k - j1), -np.inf, dtype=self.dtype)
        for c, p in enumerate(preds):
            if len(p):                                        # repeats change nothing
                self.cand[:, c] = np.concatenate([p, np.repeat(p[-1:], width - len(p))])
                self.gain[:, c] = trans[self.cand[:, c], j1 + c]
        self.full = np.where(allowed, trans, -np.inf).astype(self.dtype)

    def step(self, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """best[b, j] = max over allowed i of score[b, i] + transitions[i, j] and its first
        argmax i (internal order).  A few sentences (one long sentence decoded alone) take
        the full step over the -inf matrix: three calls instead of the pruned step's
        twenty, whose fixed cost would then dominate."""
        j1 = self.n_wide
        if len(score) * self.k * self.k <= DENSE_CELLS:
            cand = score[:, :, None] + self.full
            return cand.max(1), cand.argmax(1)
        if j1 == self.k and not self.flat:
            return _step(score[:, self.u0 : self.u1], self.sub, self.dom, self.slack, self.eps)
        best = np.empty_like(score)
        arg = np.empty(score.shape, dtype=np.intp)
        if j1 and self.flat:
            lead = score[:, self.u0 : self.u1].argmax(1)
            best[:, :j1] = _pick(score, lead + self.u0)[:, None]
            arg[:, :j1] = (lead + self.u0)[:, None]
        elif j1:
            best[:, :j1], arg[:, :j1] = _step(score[:, self.u0 : self.u1], self.sub, self.dom,
                                              self.slack, self.eps)
            arg[:, :j1] += self.u0
        if len(self.cand):
            top = score[:, self.cand[0]] + self.gain[0]
            where = np.broadcast_to(self.cand[0], top.shape)
            for c in range(1, len(self.cand)):
                s = score[:, self.cand[c]] + self.gain[c]
                where = np.where(s > top, self.cand[c], where)   # ties: the earlier tag
                np.maximum(top, s, out=top)
            best[:, j1:], arg[:, j1:] = top, where
        else:
            best[:, j1:], arg[:, j1:] = -np.inf, 0
        return best, arg

    def path_scores(self, emissions: np.ndarray, lengths: np.ndarray,
                    paths: list[np.ndarray]) -> np.ndarray:
        """Sentence-level score (start + emissions + transitions, -inf where the constraints
        forbid) of one path per sentence of emissions [B, T, K] -> [B]: to compare paths
        found under different constraints."""
        inv = np.empty_like(self.order)
        inv[self.order] = np.arange(self.k)
        out = np.empty(len(paths), dtype=np.float64)
        for b, (n, p) in enumerate(zip(np.asarray(lengths).tolist(), paths, strict=True)):
            if n == 0:
                out[b] = 0.0
                continue
            q = inv[p[:n]]
            total = float(self.start[q[0]]) + float(emissions[b, np.arange(n), p[:n]].sum())
            total += float(self.full[q[:-1], q[1:]].sum())
            if self.end is not None:
                total += float(self.end[q[-1]])
            out[b] = total
        return out

    def decode(self, emissions: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
        """emissions [B, T, K], lengths [B] -> best path of each sentence."""
        b, t, k = emissions.shape
        lengths = np.asarray(lengths, dtype=np.intp)
        flat = self.decode_flat(emissions.reshape(b * t, k), lengths, np.arange(b) * t)
        return [flat[j * t : j * t + n] for j, n in enumerate(lengths.tolist())]

    def decode_flat(self, emissions: np.ndarray, lengths: np.ndarray,
                    starts: np.ndarray | None = None) -> np.ndarray:
        """emissions [N, K] holding sentence j at rows starts[j] .. starts[j] + lengths[j]
        (default: laid end to end) -> best tag of each row [N] (rows outside every
        sentence: 0).

        Sentences longer than LONG words are decoded in overlapping pieces (PIECE words and
        MARGIN more on each side), batched with the others: a step of one sentence alone
        costs as much as a step of hundreds, so a long sentence decoded whole would cost a
        hundred times more per word.  Two neighbouring pieces are joined at a word of
        their overlap on whose tag they agree (the nearest to the middle), so the joined
        path is valid; far from their ends both pieces follow the whole sentence's best
        path (Viterbi paths converge within a few words).  If two pieces agree nowhere in
        their overlap, that sentence is decoded whole.
        """
        lengths = np.asarray(lengths, dtype=np.intp)
        starts = np.cumsum(lengths) - lengths if starts is None else np.asarray(starts)
        out = np.zeros(len(emissions), dtype=np.intp)
        if self.plain:
            return emissions.argmax(1) if len(emissions) else out
        if int(lengths.max(initial=0)) <= LONG:     # no pieces: one pass, no per-sentence work
            paths = self._paths(emissions, lengths, starts)
            out[np.arange(len(paths)) + np.repeat(starts - (np.cumsum(lengths) - lengths),
                                                  lengths)] = paths
            return out
        plan = []                                   # (sentence, [(lo, hi) of its pieces])
        piece_starts, piece_lengths = [], []
        for s0, n in zip(starts.tolist(), lengths.tolist(), strict=True):
            cuts = [(0, n)] if n <= LONG else [
                (max(0, c - MARGIN), min(n, c + PIECE + MARGIN)) for c in range(0, n, PIECE)]
            plan.append(cuts)
            piece_starts += [s0 + lo for lo, _ in cuts]
            piece_lengths += [hi - lo for lo, hi in cuts]
        piece_lengths_a = np.array(piece_lengths, dtype=np.intp)
        paths = self._paths(emissions, piece_lengths_a, np.array(piece_starts, dtype=np.intp))
        ends = np.cumsum(piece_lengths_a).tolist()
        k = 0
        for j, cuts in enumerate(plan):
            pieces = [paths[ends[k + m] - hi + lo : ends[k + m]] for m, (lo, hi) in
                      enumerate(cuts)]
            k += len(cuts)
            s0, n = int(starts[j]), int(lengths[j])
            joined = pieces[0] if len(cuts) == 1 else self._join(cuts, pieces)
            if joined is None:                      # pieces never agreed: decode it whole
                joined = self._paths(emissions, lengths[j : j + 1], starts[j : j + 1])
            out[s0 : s0 + n] = joined
        return out

    @staticmethod
    def _join(cuts: list[tuple[int, int]], pieces: list[np.ndarray]) -> np.ndarray | None:
        """Overlapping pieces' paths -> one path, cut between two pieces at a word of their
        overlap where both have the same tag (the nearest to the overlap's middle); None if
        some overlap has no such word."""
        parts, done = [], 0                         # words [0, done) are decided
        for (lo, _), (nlo, _), path, nxt in zip(cuts[:-1], cuts[1:], pieces[:-1], pieces[1:],
                                                strict=True):
            hi = lo + len(path)
            same = np.flatnonzero(path[nlo - lo :] == nxt[: hi - nlo]) + nlo
            same = same[same >= done]
            if not len(same):
                return None
            q = int(same[np.argmin(np.abs(same - (nlo + hi) // 2))])
            parts.append(path[done - lo : q + 1 - lo])
            done = q + 1
        parts.append(pieces[-1][done - cuts[-1][0] :])
        return np.concatenate(parts)

    def _paths(self, emissions: np.ndarray, lengths: np.ndarray, starts: np.ndarray
               ) -> np.ndarray:
        """emissions [N, K] holding sentence j at rows starts[j] .. starts[j] + lengths[j]
        -> the best paths laid end to end in sentence order [sum lengths].

        Batched over sentences: one max-plus step per position for all of them.  The
        sentences are taken longest first and their rows regrouped by position, so those
        still running at a position are a prefix of the batch: no padding, and one call
        decodes sentences of any mix of lengths.  Each step keeps its back-pointers
        ([N, K] in all, uint8), and one vectorised traceback recovers every path.
        """
        b, k = len(lengths), self.k
        t = int(lengths.max(initial=0))
        if t == 0:
            return np.zeros(0, dtype=np.intp)
        order = np.argsort(-lengths, kind="stable")
        running = np.searchsorted(-lengths[order], -np.arange(t), side="left")  # length > i
        first = np.concatenate([[0], np.cumsum(running)])     # row of position i's block
        where = np.repeat(np.arange(t), running)              # position of each block row
        rows = starts[order][np.arange(len(where)) - first[where]] + where
        emissions = emissions[rows]
        buf = None if self.identity else np.empty((running[0], k), dtype=emissions.dtype)

        def column_order(block: np.ndarray) -> np.ndarray:
            """Emission rows in the internal tag order (one row buffer, not a copy of all)."""
            if buf is None:
                return block
            return np.take(block, self.order, axis=1, out=buf[: len(block)])

        score = (self.start + column_order(emissions[: running[0]])).astype(
            np.result_type(emissions, self.dtype))
        back = np.empty((len(rows), k), dtype=np.min_scalar_type(max(k - 1, 0)))
        done = b                                              # sentences before it still run
        for i in range(1, t):
            n, lo = running[i], first[i]
            if self.end is not None and n < done:
                score[n:done] += self.end                     # sentences that just ended
            done = n
            best, back[lo : lo + n] = self.step(score[:n])
            np.add(best, column_order(emissions[lo : lo + n]), out=score[:n])
        if self.end is not None:
            score[:done] += self.end
        tags = np.empty(len(rows), dtype=np.intp)
        cur = score.argmax(1)                                 # each sentence's last tag
        for i in range(t - 1, -1, -1):
            n, lo = running[i], first[i]
            tags[lo : lo + n] = cur[:n]
            if i:
                cur[:n] = back[lo : lo + n][np.arange(n), cur[:n]]
        dest = (np.cumsum(lengths) - lengths)[order][np.arange(len(where)) - first[where]]
        out = np.empty(len(rows), dtype=np.intp)
        out[dest + where] = self.order[tags]
        return out

