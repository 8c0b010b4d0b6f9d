"""Decoding a tree level by level: every level's best IOBES tags among those that keep a
tree, until one phrase spans the sentence.

Why units: a new phrase must cover whole phrases found on earlier levels.  Decoding over
*units* (the nodes found so far and the words in none) instead of words makes that a plain
IOBES constraint: a unit tagged `B-X` stands for its words tagged `B-X I-X … I-X`, `E-X`
for `I-X … I-X E-X`, `S-X` for `B-X I-X … E-X` (`S-X` on one word), `I-X` and `O` for the
same tag on every word.  These expansions are exactly the word tag sequences that cut
through no unit, and a unit's score is the sum of its words' scores, so the best unit path
(`senna.decode.viterbi.Decoder` under `senna.decode.constraints.iobes`) is the best such
word path.

Beam: greedy decoding keeps one parse and can never undo a level.  With `beam` B > 1 each
sentence keeps its B best partial parses, each extended by its level's B best unit paths
(`LevelDecoder.k_best`), scored by the sum of their levels' word log-probabilities (the
level network's softmax, which a word-level model was trained on); the best finished parse
wins.  On EWT dev a parser trained on the gold levels alone gained 0.37 bracket F1 with
B = 2 (83.32 -> 83.69) and 0.41 with B = 4 (`bench/parser_beam.py`); the shipped one,
trained on its own mistakes too, gains less from it (+0.16 to +0.19 over three seeds, less
than their spread) and decodes greedily.

Progress: from level 1 on, `S-` is forbidden, so every new phrase groups two units or more
(one unit alone would be a unary chain, which is a single node); the units shrink at every
level and decoding ends after at most n levels.  It stops when one phrase spans the
sentence or a level finds nothing; what is left then goes under one `S`
(`senna.syntax.levels.with_root`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from senna.decode.constraints import iobes
from senna.decode.viterbi import Decoder
from senna.syntax.levels import Unit, cover, lowest_label, phrases_tree, with_root
from senna.syntax.tree import Tree, extent
from senna.tags import Span, spans_to_tags, split_tag
from senna.text.pieces import token_ranges

LevelScorer = Callable[[int, list[str]], np.ndarray]
"""(level index, `level_features` of the levels so far) -> emissions [n_words, n_tags]."""
BatchScorer = Callable[[int, list[int], list[list[str]]], Sequence[np.ndarray] | np.ndarray]
"""(level index, the indices of the sentences still being parsed, their `level_features`)
-> their emissions, one [n_words, n_tags] array each, or one array of them all end to end
(which saves a copy of a network's output)."""


_WORDS = {"B": "BII", "I": "III", "E": "IIE", "S": "BIE"}   # first, inner, last word
# What a first-level tag that disagrees with the phrases it must keep costs (`keeping`): far
# more than any path scores, yet finite, so that the level always decodes.
DISAGREE = 1e4
# Words decoded in one batched pass: each float64 temporary of the unit scores is then at most
# about GROUP_WORDS * tags * 8 bytes (8 MB over EWT's 249 tags).
GROUP_WORDS = 4096


def word_tag(tag: str, where: int) -> str:
    """The tag that unit tag `tag` gives the first (where=0), an inner (1) or the last (2)
    word of a unit of two words or more: `S-X` -> `B-X`, `I-X`, `E-X`."""
    prefix, kind = split_tag(tag)
    return f"{_WORDS[prefix][where]}-{kind}" if prefix in _WORDS and kind else tag


@dataclass
class _Parse:
    """A sentence's partial parse: its levels so far, the edges of its units, its
    `level_features`, the sum of its levels' log-probabilities, and whether it is done."""

    sentence: int
    score: float
    levels: list[list[Span]]
    edges: list[int]
    below: list[str]
    done: bool = False

    def extended(self, score: float, spans: list[Span], n: int) -> _Parse:
        """This parse with one more level (`spans`), now scoring `score`; a level that
        finds nothing, or one phrase over the whole sentence, ends it."""
        if not spans:
            return _Parse(self.sentence, score, self.levels, self.edges, self.below, True)
        below = list(self.below)
        cover(below, spans)
        inner = {e for _, a, b in spans for e in range(a + 1, b)}
        edges = [e for e in self.edges if e not in inner]
        return _Parse(self.sentence, score, [*self.levels, spans], edges, below,
                      len(edges) <= 2 and spans[0][1:] == (0, n))


def _log_sum_exp(emissions: np.ndarray) -> np.ndarray:
    """Each row's log of the sum of exp [n, 1]: a softmax's normaliser."""
    top = emissions.max(axis=1, keepdims=True)
    shifted = emissions - top
    np.exp(shifted, out=shifted)
    return top + np.log(shifted.sum(axis=1, keepdims=True))


def _top(values: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's `width` largest values [n, m] -> their columns and values, largest first
    (ties: the first column; with fewer than `width` columns, the rest -inf at column 0).
    One argmax a rank: cheaper than a partition and a sort for the few ranks a beam keeps."""
    n, m = values.shape
    left = values.copy()
    rows = np.arange(n)
    cols = np.zeros((n, width), dtype=np.intp)
    vals = np.full((n, width), -np.inf, dtype=values.dtype)
    for r in range(min(width, m)):
        c = left.argmax(axis=1)
        cols[:, r], vals[:, r] = c, left[rows, c]
        left[rows, c] = -np.inf
    return cols, vals


def _ranked(values: np.ndarray, rank: np.ndarray, most: int) -> np.ndarray:
    """values [..., w] read at each row's `rank` [...] (at most `most`): for the few ranks
    of a beam, one `where` a rank is cheaper than a gather."""
    out = values[..., 0]
    for r in range(1, most + 1):
        out = np.where(rank == r, values[..., r], out)
    return out


def _merge(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two lists of values [..., w], each sorted largest first -> the `w` largest of both,
    largest first, and where each came from (r: `first`'s rank r, w + r: `second`'s), ties
    to `first`: what `_top` gives over the two side by side (but for where a -inf came
    from), found by a merge, five times faster."""
    w = first.shape[-1]
    small = np.uint8 if 2 * w < 256 else np.intp
    at_first = np.zeros(first.shape[:-1], dtype=small)
    at_second = np.zeros(first.shape[:-1], dtype=small)
    values = np.empty_like(first)
    codes = np.empty(first.shape, dtype=small)
    for r in range(w):
        a, b = _ranked(first, at_first, r), _ranked(second, at_second, r)
        from_first = a >= b
        values[..., r] = np.where(from_first, a, b)
        codes[..., r] = np.where(from_first, at_first, at_second + w)
        if r + 1 < w:
            at_first += from_first
            at_second += ~from_first
    return codes, values


class LevelDecoder:
    """Constrained decoding over a level network's IOBES tag set (`tags`, in the order of
    its output layer).  Build one per model: the underlying Decoder costs K**3 to build."""

    def __init__(self, tags: Sequence[str]):
        self.tags = list(tags)
        if "O" not in self.tags:
            raise ValueError(f"expected an IOBES tag set with 'O', got {self.tags[:8]}")
        k = len(self.tags)
        self.decoder = Decoder(k, None, None, iobes(self.tags))
        index = {t: i for i, t in enumerate(self.tags)}
        # per unit tag, the word tag id of a long unit's first / inner / last word (k: a tag
        # the set lacks, scored -inf); a one-word unit takes the unit tag itself
        self.first, self.inner, self.last = (
            np.array([index.get(word_tag(t, where), k) for t in self.tags]) for where in range(3))
        self.prefix, self.kind = zip(*(split_tag(t) for t in self.tags), strict=True)
        # k_best: after a closed tag any opening one may come; I-X and E-X only after B-X
        # or I-X.  Per kind X of inside tags its B-, I- and E- tag (k: a missing one, -inf),
        # and the tags that both open and close (O, S-X)
        rules = iobes(self.tags)
        self.either = np.flatnonzero(rules.first & rules.last)
        kinds = list(dict.fromkeys(self.kind[j] for j in np.flatnonzero(~rules.first)))
        self.kind_b, self.kind_i, self.kind_e = (
            np.array([index.get(f"{p}-{x}", k) for x in kinds], dtype=np.intp) for p in "BIE")
        self.kind_of = np.zeros(k + 1, dtype=np.intp)
        for q, x in enumerate(kinds):
            self.kind_of[[index.get(f"{p}-{x}", k) for p in "IE"]] = q
        self.inside = ~rules.first
        self.single = np.array([p == "S" for p in self.prefix])
        self.opens = np.array([p in ("B", "S") for p in self.prefix])
        self.closes = np.array([p in ("E", "S") for p in self.prefix])
        # PT0-style tag -> its row of `keeps`: which of these tags it stands for (a last row
        # of all True for a tag this set lacks)
        lowest = [lowest_label(t) for t in self.tags]
        self.by_lowest = {t: r for r, t in enumerate(dict.fromkeys(lowest))}
        self.keeps = np.ones((len(self.by_lowest) + 1, k), dtype=bool)
        self.keeps[:-1] = np.array(list(self.by_lowest))[:, None] == np.array(lowest)[None, :]

    def keeping(self, emissions: np.ndarray, phrases: Sequence[str]) -> np.ndarray:
        """A first level's emissions [n_words, K] and another tagger's IOBES tags of the
        same level (PT0's: a chain named by its lowest label) -> the emissions less
        `DISAGREE` on every tag that differs from them (read by its lowest label), so the
        level keeps that tagger's phrases and the network only chooses their chains.  A tag
        this tag set lacks constrains nothing at its word."""
        if len(phrases) != len(emissions):
            raise ValueError(f"expected {len(emissions)} tags of the first level, got "
                             f"{len(phrases)}")
        rows = np.fromiter((self.by_lowest.get(t, -1) for t in phrases), dtype=np.intp,
                           count=len(phrases))
        return np.where(self.keeps[rows], emissions, emissions - DISAGREE)

    def unit_scores(self, emissions: np.ndarray, spans: Sequence[tuple[int, int]] | np.ndarray,
                    first_level: bool | np.ndarray) -> np.ndarray:
        """emissions [n_words, K], the units' word spans -> unit emissions [n_units, K].
        Several sentences at once: their emissions laid end to end, the spans in those
        rows ([n_units, 2]), `first_level` one flag per unit."""
        bounds = np.asarray(spans, dtype=np.intp).reshape(-1, 2)
        starts, ends = bounds[:, 0], bounds[:, 1]
        k = len(self.tags)
        # float64 rows with a last column of -inf: the word tag a unit tag lacks
        rows = np.empty((len(emissions), k + 1))
        rows[:, :k] = emissions
        rows[:, k] = -np.inf
        scores = rows[starts, :k]                                  # one-word units: as is
        multi = np.flatnonzero(ends - starts > 1)
        if len(multi):   # (rows gathered, then their columns taken: twice as fast as np.ix_)
            found = np.take(rows[starts[multi]], self.first, axis=1)
            found += np.take(rows[ends[multi] - 1], self.last, axis=1)
            long = ends[multi] - starts[multi] > 2
            if long.any():
                # words a+1 .. b-2 of each long unit, each on its inner tag: the sum of their
                # rows read at the inner tag
                a, b = starts[multi][long] + 1, ends[multi][long] - 1
                at = np.concatenate([[0], np.cumsum(b - a)[:-1]])
                inside = np.repeat(a - at, b - a) + np.arange(int((b - a).sum()))
                found[long] += np.take(np.add.reduceat(rows[inside], at, axis=0), self.inner,
                                       axis=1)
            scores[multi] = found
        later = ~np.broadcast_to(np.asarray(first_level, dtype=bool), len(starts))
        scores[later[:, None] & self.single[None, :]] = -np.inf
        return scores

    def level(self, emissions: np.ndarray, units: Sequence[Unit],
              first_level: bool) -> list[str]:
        """The best word tags of one level that cut through no unit (and, after level 0,
        group two units or more in every phrase)."""
        return self.levels([emissions], [units], [first_level])[0]

    def levels(self, emissions: Sequence[np.ndarray], units: Sequence[Sequence[Unit]],
               first_level: Sequence[bool]) -> list[list[str]]:
        """`level` for several sentences (`level_spans`, as IOBES word tags)."""
        return [spans_to_tags(spans, len(e), "iobes") for e, spans in
                zip(emissions, self.level_spans(emissions, units, first_level), strict=True)]

    def level_spans(self, emissions: Sequence[np.ndarray], units: Sequence[Sequence[Unit]],
                    first_level: Sequence[bool]) -> list[list[Span]]:
        """The phrases (label, first word, end) of each sentence's best level."""
        return self.edge_spans(emissions, [[0] + [extent(u)[1] for u in us] for us in units],
                               first_level)

    def edge_spans(self, emissions: Sequence[np.ndarray], edges: Sequence[Sequence[int]],
                   first_level: Sequence[bool]) -> list[list[Span]]:
        """`level_spans` of units given by their edges (`[0, end of unit 1, ..., n]`)."""
        sizes = np.array([len(e) for e in emissions], dtype=np.intp)
        flat = np.concatenate(emissions) if len(emissions) else np.empty((0, len(self.tags)))
        return self._best_spans(flat, sizes, edges, first_level)

    def _best_spans(self, flat: np.ndarray, sizes: np.ndarray, edges: Sequence[Sequence[int]],
                    first_level: Sequence[bool]) -> list[list[Span]]:
        """`edge_spans` of sentences whose emissions lie end to end in `flat`, decoded in
        batched Viterbi passes (a pass of one sentence costs about as much as a pass of
        hundreds) of at most GROUP_WORDS words, which bounds the memory of the unit
        scores."""
        out: list[list[Span]] = []
        rows = np.concatenate([[0], np.cumsum(sizes)])
        for lo, hi in token_ranges(sizes.tolist(), GROUP_WORDS):
            scores, units = self._units(flat[rows[lo] : rows[hi]], sizes[lo:hi], edges[lo:hi],
                                        first_level[lo:hi])
            out += self._phrases(self.decoder.decode_flat(scores, units[0]), *units)
        return out

    def _units(self, flat: np.ndarray, sizes: np.ndarray, edges: Sequence[Sequence[int]],
               first_level: Sequence[bool]
               ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Sentences' emissions end to end (`sizes` words each) and unit edges -> their
        units' scores laid end to end, and (units per sentence, every unit's first word and
        end in the emissions' rows, each sentence's first row)."""
        offsets = np.cumsum(sizes) - sizes
        counts = np.array([len(e) - 1 for e in edges], dtype=np.intp)   # units
        flat_edges = np.fromiter((e + o for es, o in zip(edges, offsets.tolist(), strict=True)
                                  for e in es), dtype=np.intp,
                                 count=int(counts.sum()) + len(edges))
        last = np.cumsum(counts + 1) - 1            # each sentence's closing edge
        starts = np.delete(flat_edges, last)        # every unit's first word, and its end:
        ends = np.delete(flat_edges, last - counts)
        first = np.repeat(np.asarray(first_level, dtype=bool), counts)
        scores = self.unit_scores(flat, np.stack([starts, ends], 1), first)
        return scores, (counts, starts, ends, offsets)

    def _phrases(self, paths: np.ndarray, counts: np.ndarray, starts: np.ndarray,
                 ends: np.ndarray, offsets: np.ndarray) -> list[list[Span]]:
        """Valid IOBES unit paths laid end to end -> each sentence's phrases: B and S open
        a phrase at their unit's first word, E and S close it at their unit's end, in turn."""
        opens = np.flatnonzero(self.opens[paths])
        closes = np.flatnonzero(self.closes[paths])
        owner = np.repeat(np.arange(len(counts)), counts)[closes]
        base = offsets[owner]
        phrases = zip([self.kind[t] for t in paths[closes].tolist()],
                      (starts[opens] - base).tolist(), (ends[closes] - base).tolist(),
                      strict=True)
        bounds = np.searchsorted(owner, np.arange(len(counts) + 1)).tolist()
        found = list(phrases)
        return [found[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]

    def k_best(self, scores: np.ndarray, counts: np.ndarray, width: int
               ) -> tuple[np.ndarray, np.ndarray]:
        """Sequences' tag scores laid end to end [sum n, K] and their lengths (each one at
        least 1) -> the `width` best valid IOBES paths of each: their scores [N, width],
        best first (-inf where a sequence has fewer), and the paths [width, sum n] (all `O`
        where none).

        Why it is cheap: every opening tag (O, B-Y, S-Y) may follow every closed one (O,
        E-X, S-X), so the opening tags share one list, the `width` best paths ending
        closed one word before ("closed list"); I-X and E-X choose among the paths of B-X
        and I-X alone.  A step keeps, per kind X, the `width` best paths ending in B-X
        and in I-X, and the closed list: [n, kinds, width] numbers, not [n, K, width]."""
        k, w = len(self.tags), width
        kb, ki, ke, either = self.kind_b, self.kind_i, self.kind_e, self.either
        n_seq = len(counts)
        counts = np.asarray(counts, dtype=np.intp)
        by_length = np.argsort(-counts, kind="stable")
        first_row = (np.cumsum(counts) - counts)[by_length]
        longest = int(counts.max(initial=0))
        alive = np.searchsorted(-counts[by_length], -np.arange(longest + 1), side="left")
        # the scores of the B-, I-, E- tags of each kind and of O and S-, side by side, their
        # rows in the order the steps read them (step t: the first alive[t] sequences' word
        # t), each step's a slice: one gather here, none in the loop
        ext = np.full((len(scores), k + 1), -np.inf, dtype=np.float32)  # column k: missing
        ext[:, :k] = scores
        order = np.concatenate([first_row[:n] + t for t, n in enumerate(alive[:-1].tolist())]
                               or [np.zeros(0, np.intp)])
        nk = len(kb)
        steps = np.take(ext[order], np.concatenate([kb, ki, ke, either]), axis=1)
        step_at = np.concatenate([[0], np.cumsum(alive[:-1])]).tolist()
        start = np.full((n_seq, w), -np.inf, dtype=np.float32)
        start[:, 0] = 0.0                     # before the first word: one empty path
        shared, b_val, i_val = start, None, None
        tags, ranks = [], []                  # per word: its closed list's tags, ranks
        codes: list[np.ndarray | None] = []   # per word: I-, E- paths' B-/I- choices
        final_val = np.empty((n_seq, w))
        for t in range(longest):
            n = int(alive[t])
            rows = steps[step_at[t] : step_at[t + 1]]
            rows_b, rows_i, rows_e = (rows[:, j * nk : (j + 1) * nk, None] for j in range(3))
            shared = shared[:n]
            if t:
                pick, best_in = _merge(b_val[:n], i_val[:n])                # paths into I, E
                codes.append(pick)
            else:   # no path ends inside a phrase before the first word
                best_in = np.full((n, len(kb), w), -np.inf, dtype=np.float32)
                codes.append(None)
            b_val = shared[:, None, :] + rows_b
            i_val = best_in + rows_i
            e_val = best_in + rows_e
            col, top = _top(rows[:, 3 * nk :], w)                            # O, S-: best w
            combos = (top[:, :, None] + shared[:, None, :]).reshape(n, w * w)
            at, val = _top(np.concatenate([combos, e_val.reshape(n, -1)], 1), w)
            as_either = at < w * w
            q = np.maximum(at - w * w, 0)
            which = np.take_along_axis(col, np.minimum(at // w, w - 1), 1)   # O, S- tags
            tags.append(np.where(as_either, either[which], ke[q // w]))
            ranks.append(np.where(as_either, at % w, q % w))
            shared = val
            ended = int(alive[t + 1])
            final_val[ended:n] = val[ended:n]
        paths = np.empty((w, int(counts.sum())), dtype=np.intp)
        cur_tag, cur_rank = np.zeros((n_seq, w), np.intp), np.zeros((n_seq, w), np.intp)
        for t in range(longest - 1, -1, -1):
            n, ended = int(alive[t]), int(alive[t + 1])
            cur_tag[ended:n], cur_rank[ended:n] = tags[t][ended:n], ranks[t][ended:n]
            paths[:, first_row[:n] + t] = cur_tag[:n].T
            if t:
                at, r = cur_tag[:n].copy(), cur_rank[:n].copy()
                row = np.arange(n)[:, None]
                q = self.kind_of[at]
                code = codes[t][row, q, r].astype(np.intp)
                inside = self.inside[at]
                cur_tag[:n] = np.where(inside, np.where(code < w, kb[q], ki[q]),
                                       tags[t - 1][row, r])
                cur_rank[:n] = np.where(inside, code % w, ranks[t - 1][row, r])
        out = np.empty((n_seq, w))
        out[by_length] = final_val
        paths[np.repeat(~np.isfinite(out.T), counts, axis=1)] = self.tags.index("O")
        return out, paths

    def parse(self, n_words: int, scorer: LevelScorer) -> tuple[list[list[str]], Tree]:
        """Levels and tree of a sentence, each level's emissions asked of `scorer`."""
        return self.parse_many([n_words], lambda level, _, below: [scorer(level, below[0])])[0]

    def parse_many(self, lengths: Sequence[int], scorer: BatchScorer
                   ) -> list[tuple[list[list[str]], Tree]]:
        """Levels and tree of each sentence of `lengths` words (`parse_spans`), each level
        as IOBES word tags."""
        return [([spans_to_tags(spans, n, "iobes") for spans in found], tree) for n, (found, tree)
                in zip(lengths, self.parse_spans(lengths, scorer), strict=True)]

    def parse_spans(self, lengths: Sequence[int], scorer: BatchScorer, beam: int = 1
                    ) -> list[tuple[list[list[Span]], Tree]]:
        """Levels (each one's phrases) and tree of each sentence of `lengths` words, level
        by level: each round asks `scorer` once for the emissions of all the partial
        parses still growing (so that a network scores them in one pass; with `beam` > 1
        a sentence has up to `beam` of them, module doc)."""
        if any(n < 1 for n in lengths):
            raise ValueError(f"expected sentences of at least one word, got lengths "
                             f"{[n for n in lengths if n < 1][:5]}")
        if beam < 1:
            raise ValueError(f"beam must be at least 1, got {beam}")
        parses = [[_Parse(i, 0.0, [], list(range(n + 1)), ["O"] * n)]
                  for i, n in enumerate(lengths)]
        k = 0
        while active := [p for ps in parses for p in ps if not p.done]:
            sizes = np.array([lengths[p.sentence] for p in active], dtype=np.intp)
            flat = self._checked(scorer(k, [p.sentence for p in active],
                                        [list(p.below) for p in active]), sizes, k)
            # (score, parse, the next level's phrases or None: the parse as it is)
            grown: list[list[tuple[float, _Parse, list[Span] | None]]] = \
                [[(p.score, p, None) for p in ps if p.done] for ps in parses]
            for p, gain, spans in self._next_levels(flat, sizes, active, beam):
                grown[p.sentence].append((p.score + gain, p, spans))
            parses = [[p if spans is None else p.extended(score, spans, lengths[p.sentence])
                       for score, p, spans in sorted(g, key=lambda c: -c[0])[:beam]]
                      for g in grown]
            k += 1
        out = []
        for ps, n in zip(parses, lengths, strict=True):
            rooted = with_root(max(ps, key=lambda p: p.score).levels, n)
            out.append((rooted, phrases_tree([p for spans in rooted for p in spans], n)))
        return out

    def _checked(self, found: Sequence[np.ndarray] | np.ndarray, sizes: np.ndarray, level: int
                 ) -> np.ndarray:
        """A scorer's emissions of sentences of `sizes` words (one array each, or one array
        of them all end to end) -> that one array, checked to be finite and of that shape."""
        k = len(self.tags)
        if isinstance(found, np.ndarray) and found.ndim == 2:
            flat = found
        else:
            arrays = [np.asarray(e) for e in found]
            if len(arrays) != len(sizes) or any(e.shape != (n, k) for e, n in
                                                zip(arrays, sizes.tolist(), strict=False)):
                raise ValueError(f"level {level}: expected finite emissions of shapes "
                                 f"{[(n, k) for n in sizes.tolist()][:5]}..., got shapes "
                                 f"{[e.shape for e in arrays][:5]}")
            flat = np.concatenate(arrays) if arrays else np.empty((0, k))
        if flat.shape != (int(sizes.sum()), k) or not np.isfinite(flat).all():
            raise ValueError(f"level {level}: expected finite emissions of shape "
                             f"{(int(sizes.sum()), k)}, got shape {flat.shape}"
                             + ("" if flat.shape != (int(sizes.sum()), k) else
                                " with values that are not finite"))
        return flat

    def _next_levels(self, flat: np.ndarray, sizes: np.ndarray, parses: list[_Parse],
                     beam: int) -> list[tuple[_Parse, float, list[Span]]]:
        """Each partial parse's next levels, from the emissions of all of them end to end:
        (parse, the level's log-probability, its phrases), its best one (`beam` 1: no score
        needed), else its `beam` best."""
        edges = [p.edges for p in parses]
        first = [not p.levels for p in parses]
        if beam == 1:
            return [(p, 0.0, spans) for p, spans in
                    zip(parses, self._best_spans(flat, sizes, edges, first), strict=True)]
        out = []
        rows = np.concatenate([[0], np.cumsum(sizes)])
        for lo, hi in token_ranges(sizes.tolist(), GROUP_WORDS):
            block = flat[rows[lo] : rows[hi]]
            scores, units = self._units(block - _log_sum_exp(block), sizes[lo:hi],
                                        edges[lo:hi], first[lo:hi])
            best, paths = self.k_best(scores, units[0], beam)
            for r in range(beam):
                for p, gain, spans in zip(parses[lo:hi], best[:, r].tolist(),
                                          self._phrases(paths[r], *units), strict=True):
                    if gain > -np.inf:
                        out.append((p, gain, spans))
        return out
