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

Progress: from level 1 on, `S-` is forbidden, so every new phrase groups two units or more
(one unit alone would be a unary chain, which is a single node); the units shrink at every
level and decoding ends after at most n levels.  It stops when one phrase spans the
sentence or a level finds nothing; what is left then goes under one `S`
(`senna.syntax.levels.with_root`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from senna.decode.constraints import iobes
from senna.decode.viterbi import Decoder
from senna.syntax.levels import Unit, cover, lowest_label, phrases_tree, with_root
from senna.syntax.tree import Tree, extent
from senna.tags import Span, spans_to_tags, split_tag
from senna.text.pieces import token_ranges

LevelScorer = Callable[[int, list[str]], np.ndarray]
"""(level index, `level_features` of the levels so far) -> emissions [n_words, n_tags]."""
BatchScorer = Callable[[int, list[int], list[list[str]]], Sequence[np.ndarray]]
"""(level index, the indices of the sentences still being parsed, their `level_features`)
-> their emissions, one [n_words, n_tags] array each."""


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
        if len(multi):
            found = rows[np.ix_(starts[multi], self.first)]
            found += rows[np.ix_(ends[multi] - 1, self.last)]
            long = ends[multi] - starts[multi] > 2
            if long.any():
                # words a+1 .. b-2 of each long unit, each on its inner tag: the sum of their
                # rows read at the inner tag
                a, b = starts[multi][long] + 1, ends[multi][long] - 1
                at = np.concatenate([[0], np.cumsum(b - a)[:-1]])
                inside = np.repeat(a - at, b - a) + np.arange(int((b - a).sum()))
                found[long] += np.add.reduceat(rows[inside], at, axis=0)[:, self.inner]
            scores[multi] = found
        later = ~np.broadcast_to(np.asarray(first_level, dtype=bool), len(starts))
        scores[np.ix_(later, self.single)] = -np.inf
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
        """`level_spans` of units given by their edges (`[0, end of unit 1, ..., n]`),
        decoded in batched Viterbi passes (a pass of one sentence costs about as much as a
        pass of hundreds) of at most GROUP_WORDS words, which bounds the memory of the unit
        scores."""
        out: list[list[Span]] = []
        for lo, hi in token_ranges([len(e) for e in emissions], GROUP_WORDS):
            out += self._edge_spans(emissions[lo:hi], edges[lo:hi], first_level[lo:hi])
        return out

    def _edge_spans(self, emissions: Sequence[np.ndarray], edges: Sequence[Sequence[int]],
                    first_level: Sequence[bool]) -> list[list[Span]]:
        offsets = np.cumsum([0] + [len(e) for e in emissions[:-1]])
        counts = np.array([len(e) - 1 for e in edges], dtype=np.intp)   # units
        flat = np.fromiter((e + o for es, o in zip(edges, offsets.tolist(), strict=True)
                            for e in es), dtype=np.intp, count=int(counts.sum()) + len(edges))
        last = np.cumsum(counts + 1) - 1            # each sentence's closing edge in `flat`
        starts = np.delete(flat, last)              # every unit's first word, and its end:
        ends = np.delete(flat, last - counts)
        first = np.repeat(np.asarray(first_level, dtype=bool), counts)
        scores = self.unit_scores(np.concatenate(emissions), np.stack([starts, ends], 1), first)
        paths = self.decoder.decode_flat(scores, counts)
        # a valid IOBES unit path (the decoder's constraints): B and S open a phrase at
        # their unit's first word, E and S close it at their unit's end, in turn
        opens = np.flatnonzero(self.opens[paths])
        closes = np.flatnonzero(self.closes[paths])
        owner = np.repeat(np.arange(len(edges)), counts)[closes]
        base = offsets[owner]
        phrases = zip([self.kind[t] for t in paths[closes].tolist()],
                      (starts[opens] - base).tolist(), (ends[closes] - base).tolist(),
                      strict=True)
        bounds = np.searchsorted(owner, np.arange(len(edges) + 1)).tolist()
        found = list(phrases)
        return [found[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]

    def parse(self, n_words: int, scorer: LevelScorer) -> tuple[list[list[str]], Tree]:
        """Levels and tree of a sentence, each level's emissions asked of `scorer`."""
        return self.parse_many([n_words], lambda level, _, below: [scorer(level, below[0])])[0]

    def parse_many(self, lengths: Sequence[int], scorer: BatchScorer
                   ) -> list[tuple[list[list[str]], Tree]]:
        """Levels and tree of each sentence of `lengths` words (`parse_spans`), each level
        as IOBES word tags."""
        return [([spans_to_tags(spans, n, "iobes") for spans in found], tree) for n, (found, tree)
                in zip(lengths, self.parse_spans(lengths, scorer), strict=True)]

    def parse_spans(self, lengths: Sequence[int], scorer: BatchScorer
                    ) -> list[tuple[list[list[Span]], Tree]]:
        """Levels (each one's phrases) and tree of each sentence of `lengths` words, level
        by level: each round asks `scorer` once for the emissions of all sentences still
        being parsed (so that a network scores them in one pass)."""
        if any(n < 1 for n in lengths):
            raise ValueError(f"expected sentences of at least one word, got lengths "
                             f"{[n for n in lengths if n < 1][:5]}")
        levels: list[list[list[Span]]] = [[] for _ in lengths]
        edges = [list(range(n + 1)) for n in lengths]  # [0, end of each unit]: words first
        below = [["O"] * n for n in lengths]          # `level_features` of the levels so far
        active, k = list(range(len(lengths))), 0
        while active:
            found = [np.asarray(e) for e in scorer(k, active, [list(below[i]) for i in active])]
            for i, emissions in zip(active, found, strict=True):
                if emissions.shape != (lengths[i], len(self.tags)) \
                        or not np.isfinite(emissions).all():
                    raise ValueError(f"level {k}: expected finite emissions of shape "
                                     f"{(lengths[i], len(self.tags))}, got shape "
                                     f"{emissions.shape}")
            still = []
            decoded = self.edge_spans(found, [edges[i] for i in active],
                                      [not levels[i] for i in active])
            for i, spans in zip(active, decoded, strict=True):
                if not spans:
                    continue
                levels[i].append(spans)
                cover(below[i], spans)
                inner = {e for _, a, b in spans for e in range(a + 1, b)}
                edges[i] = [e for e in edges[i] if e not in inner]
                if len(edges[i]) > 2 or spans[0][1:] != (0, lengths[i]):
                    still.append(i)
            active, k = still, k + 1
        out = []
        for found, n in zip(levels, lengths, strict=True):
            rooted = with_root(found, n)
            out.append((rooted, phrases_tree([p for spans in rooted for p in spans], n)))
        return out
