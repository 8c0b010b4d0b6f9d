"""Level-by-level decoding (senna.syntax.decode): the best level under the tree constraints
against a brute-force search, and random scores always decoding to a well-formed tree."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from senna.decode import viterbi
from senna.decode.constraints import valid_iobes
from senna.runtime.parser import SLACK, SPREAD, _groups
from senna.syntax.decode import LevelDecoder, _merge, _top
from senna.syntax.levels import (
    collapse,
    level_features,
    levels_to_tree,
    lowest_label,
    tree_to_levels,
    with_root,
)
from senna.syntax.tree import Tree, brackets_to_tree, conll_to_tree, extent, node, tree_to_conll
from senna.tags import spans_to_tags, tags_to_spans

TAGS = ["O"] + [f"{p}-{c}" for c in ("X", "Y") for p in "BIES"]
# W has every IOBES tag; Z only S-Z (a label never seen on more than one word)
WIDE = ["O", "S-Z"] + [f"{p}-{c}" for c in ("NP", "VP", "S", "W") for p in "BIES"]


def _allowed(tags: list[str], units: list, first_level: bool) -> bool:
    """Brute-force definition: valid IOBES, no phrase cutting a unit, and after level 0
    every phrase groups two units or more."""
    if not valid_iobes(tags):
        return False
    starts = {extent(u)[0]: i for i, u in enumerate(units)}
    ends = {extent(u)[1]: i for i, u in enumerate(units)}
    for _, a, b in tags_to_spans(tags):
        if a not in starts or b not in ends:
            return False
        if not first_level and ends[b] == starts[a]:
            return False
    return True


@pytest.mark.parametrize("tags, units, first_level", [
    (TAGS, [0, 1, 2, 3], True),
    (TAGS, [node("NP", [0, 1]), 2, 3], False),
    (TAGS, [0, node("NP", [1, 2, 3])], False),
    (TAGS, [node("NP", [0, 1]), node("VP", [2, 3])], False),
    (TAGS[:5], [0, node("NP", [1, 2, 3, 4, 5])], False),
    (TAGS[:5], [node("NP", [0, 1, 2, 3]), 4, 5], False),
])
def test_best_level_equals_brute_force(tags: list[str], units: list, first_level: bool) -> None:
    decoder = LevelDecoder(tags)
    rng = np.random.default_rng(7)
    n = extent(units[-1])[1]
    index = {t: i for i, t in enumerate(tags)}
    for _ in range(5):
        emissions = rng.normal(size=(n, len(tags)))

        def score(path, emissions=emissions) -> float:
            return float(sum(emissions[i, index[t]] for i, t in enumerate(path)))

        best = max(score(c) for c in itertools.product(tags, repeat=n)
                   if _allowed(list(c), units, first_level))
        found = decoder.level(emissions, units, first_level)
        assert _allowed(found, units, first_level)
        assert score(found) == pytest.approx(best)


def _expansion(tag: str, size: int) -> list[str]:
    """The word tags a unit tag stands for (the rule in senna.syntax.decode's docstring)."""
    if size == 1 or tag == "O":
        return [tag] * size
    prefix, kind = tag.split("-")
    first, last = {"B": "BI", "I": "II", "E": "IE", "S": "BE"}[prefix]
    return [f"{first}-{kind}", *[f"I-{kind}"] * (size - 2), f"{last}-{kind}"]


def test_unit_scores_sum_the_words_of_each_expansion() -> None:
    rng = np.random.default_rng(3)
    emissions = rng.normal(size=(11, len(WIDE)))
    spans = [(0, 1), (1, 3), (3, 6), (6, 10), (10, 11)]
    index = {t: i for i, t in enumerate(WIDE)}
    scores = LevelDecoder(WIDE).unit_scores(emissions, spans, first_level=True)
    for u, (a, b) in enumerate(spans):
        for j, tag in enumerate(WIDE):
            words = _expansion(tag, b - a)
            want = (sum(emissions[a + i, index[w]] for i, w in enumerate(words))
                    if all(w in index for w in words) else -np.inf)
            assert scores[u, j] == pytest.approx(want), (tag, a, b)
    later = LevelDecoder(WIDE).unit_scores(emissions, spans, first_level=False)
    assert (later[:, [index["S-NP"], index["S-Z"]]] == -np.inf).all()


def _leaves(tree: Tree) -> list[int]:
    return [c for t in tree.nodes() for c in t.children if not isinstance(c, Tree)]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 30), seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([0.1, 1, 30]))
def test_random_scores_always_make_a_tree(n: int, seed: int, scale: float) -> None:
    rng = np.random.default_rng(seed)
    decoder = LevelDecoder(WIDE)
    seen: list[list[str]] = []

    def scorer(k: int, feature: list[str]) -> np.ndarray:
        seen.append(feature)
        return rng.normal(scale=scale, size=(n, len(WIDE)))

    levels, tree = decoder.parse(n, scorer)
    # one root over one phrase spanning the sentence; every word in it exactly once
    assert tree.label == "TOP" and len(tree.children) == 1
    assert isinstance(tree.children[0], Tree) and (tree.start, tree.end) == (0, n)
    assert sorted(_leaves(tree)) == list(range(n))
    assert conll_to_tree(tree_to_conll(tree)) == tree            # every bracket closed
    # the levels are the tree's: each groups whole units, two or more after level 0
    assert levels_to_tree(levels, n) == tree
    assert len(levels) <= n + 1
    units: list = list(range(n))
    for k, tags in enumerate(levels):
        assert valid_iobes(tags)
        if k < len(seen):
            assert seen[k] == level_features(levels[:k], n)
        after = collapse(units, tags_to_spans(tags))
        assert len(after) < len(units) or k == 0
        units = after
    assert levels_to_tree(tree_to_levels(tree), n) == tree       # the same tree re-levelled


@pytest.mark.parametrize("width", [1, 2, 3, 5])
def test_k_best_paths_equal_brute_force(width: int) -> None:
    """The `width` best valid IOBES paths of sequences laid end to end, some scores -inf
    (a tag a unit cannot take), against every sequence of tags enumerated."""
    decoder, tags = LevelDecoder(WIDE[:8]), WIDE[:8]       # O, S-Z, NP's four, VP's B and I
    rng = np.random.default_rng(width)
    for trial in range(40):
        counts = rng.integers(1, 5, size=rng.integers(1, 5))
        scores = rng.normal(size=(int(counts.sum()), len(tags)))
        if trial % 2:
            scores[rng.random(scores.shape) < 0.2] = -np.inf
        best, paths = decoder.k_best(scores, counts, width)
        at = 0
        for i, n in enumerate(counts.tolist()):
            e = scores[at : at + n]
            found = sorted((float(sum(e[t, j] for t, j in enumerate(c))), c)
                           for c in itertools.product(range(len(tags)), repeat=n)
                           if valid_iobes([tags[j] for j in c]))[::-1]
            want = [v for v, _ in found if v > -np.inf][:width]
            want += [-np.inf] * (width - len(want))
            np.testing.assert_allclose(best[i], want, rtol=1e-5, atol=1e-4)
            for r in range(width):
                path = paths[r, at : at + n]
                assert valid_iobes([tags[j] for j in path])
                if best[i, r] > -np.inf:
                    assert float(e[np.arange(n), path].sum()) == pytest.approx(best[i, r],
                                                                               abs=1e-4)
            at += n


@pytest.mark.parametrize("width", [1, 2, 3, 5])
def test_merge_is_the_top_of_both_lists(width: int) -> None:
    """Merging two lists sorted largest first = `_top` over them side by side: the same
    values, from the same places wherever they are finite (ties, -inf and all)."""
    rng = np.random.default_rng(width)
    for _ in range(20):
        lists = [-np.sort(-rng.integers(-3, 3, size=(7, 5, width)).astype(np.float32), -1)
                 for _ in range(2)]
        for values in lists:
            values[rng.random(values.shape[:-1]) < 0.2, -1] = -np.inf
            values[rng.random(values.shape[:-1]) < 0.1] = -np.inf
        codes, got = _merge(*lists)
        want_codes, want = _top(np.concatenate(lists, -1).reshape(-1, 2 * width), width)
        want, want_codes = want.reshape(got.shape), want_codes.reshape(got.shape)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(codes[np.isfinite(want)], want_codes[np.isfinite(want)])


@pytest.mark.parametrize("beam", [1, 2])
def test_a_scorer_may_give_its_emissions_end_to_end(beam: int) -> None:
    """A scorer that returns one array of all the sentences' rows parses as one that returns
    an array a sentence; either one of the wrong shape, or not finite, is refused."""
    lengths, decoder = [3, 1, 6, 4], LevelDecoder(WIDE)
    rng = np.random.default_rng(beam)
    table = {(i, k): rng.normal(size=(n, len(WIDE))) for i, n in enumerate(lengths)
             for k in range(2 * max(lengths) + 2)}

    def each(k: int, which: list[int], below: list[list[str]]) -> list[np.ndarray]:
        return [table[i, k] for i in which]

    def flat(k: int, which: list[int], below: list[list[str]]) -> np.ndarray:
        return np.concatenate(each(k, which, below))

    assert decoder.parse_spans(lengths, flat, beam) == decoder.parse_spans(lengths, each, beam)
    for wrong in (lambda k, w, b: flat(k, w, b)[1:], lambda k, w, b: each(k, w, b)[1:],
                  lambda k, w, b: flat(k, w, b) * np.nan):
        with pytest.raises(ValueError, match="expected finite emissions"):
            decoder.parse_spans(lengths, wrong, beam)


@settings(max_examples=40, deadline=None)
@given(lengths=st.lists(st.integers(1, 25), min_size=1, max_size=4),
       seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([0.1, 1, 30]),
       beam=st.integers(2, 4))
def test_a_beam_of_parses_always_makes_trees(lengths: list[int], seed: int, scale: float,
                                             beam: int) -> None:
    """With several partial parses a sentence, every tree is well formed, its levels are
    the tree's, and each of them was scored from the levels below it."""
    rng = np.random.default_rng(seed)
    decoder = LevelDecoder(WIDE)
    asked: dict[tuple[int, int], list[list[str]]] = {}

    def scorer(k: int, which: list[int], below: list[list[str]]) -> list[np.ndarray]:
        assert len(which) <= beam * len(lengths)
        for i, feature in zip(which, below, strict=True):
            asked.setdefault((i, k), []).append(feature)
        return [rng.normal(scale=scale, size=(lengths[i], len(WIDE))) for i in which]

    for i, ((levels, tree), n) in enumerate(zip(decoder.parse_spans(lengths, scorer, beam),
                                                lengths, strict=True)):
        assert tree.label == "TOP" and len(tree.children) == 1
        assert isinstance(tree.children[0], Tree) and (tree.start, tree.end) == (0, n)
        assert sorted(_leaves(tree)) == list(range(n))
        assert conll_to_tree(tree_to_conll(tree)) == tree
        tags = [spans_to_tags(spans, n, "iobes") for spans in levels]
        assert levels_to_tree(tags, n) == tree
        for k in range(len(levels) - 1):    # the last level may be the fallback root's
            assert level_features(tags[:k], n) in asked[(i, k)]


def test_a_beam_must_be_at_least_one() -> None:
    with pytest.raises(ValueError, match="beam must be at least 1"):
        LevelDecoder(WIDE).parse_spans([3], lambda k, w, b: [], 0)


# chains beside plain labels: PT0 names `S#VP` by its lowest label, VP
CHAINED = ["O"] + [f"{p}-{c}" for c in ("NP", "VP", "S#VP", "S", "SBAR#S") for p in "BIES"]


@st.composite
def pt0_tags(draw, n: int) -> list[str]:
    """A valid IOBES tagging of n words with PT0's labels (QQ: one no tag set has)."""
    tags: list[str] = []
    while len(tags) < n:
        size = draw(st.integers(0, n - len(tags)))
        label = draw(st.sampled_from(["NP", "VP", "S", "QQ"]))
        tags += ["O"] if size == 0 else [f"S-{label}"] if size == 1 else \
            [f"B-{label}", *[f"I-{label}"] * (size - 2), f"E-{label}"]
    return tags


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 25), seed=st.integers(0, 2**32 - 1))
def test_the_first_level_keeps_the_phrases_it_is_given(data, n: int, seed: int) -> None:
    """Whatever the network scores, a first level decoded `keeping` PT0's tags has PT0's
    phrases, each read by its lowest label, wherever the tag set has that label; the
    network chooses the chain (`S#VP` or `VP`).  A label the set lacks constrains nothing."""
    phrases = data.draw(pt0_tags(n))
    decoder = LevelDecoder(CHAINED)
    emissions = np.random.default_rng(seed).normal(scale=30, size=(n, len(CHAINED)))
    tags = decoder.level(decoder.keeping(emissions, phrases), list(range(n)), True)
    assert valid_iobes(tags)
    for got, want in zip(tags, phrases, strict=True):
        if "QQ" not in want:
            assert lowest_label(got) == want
    allowed = [[t for t in CHAINED if lowest_label(t) == g] for g in phrases]
    if all(allowed) and np.prod([len(a) for a in allowed]) <= 4096:   # the best allowed path
        index = {t: i for i, t in enumerate(CHAINED)}
        best = max((p for p in itertools.product(*allowed) if valid_iobes(list(p))),
                   key=lambda p: sum(emissions[j, index[t]] for j, t in enumerate(p)))
        assert tags == list(best)


def test_keeping_needs_a_tag_per_word() -> None:
    with pytest.raises(ValueError, match="expected 3 tags of the first level, got 2"):
        LevelDecoder(CHAINED).keeping(np.zeros((3, len(CHAINED))), ["O", "O"])


def test_gold_scores_give_the_gold_tree() -> None:
    tree, words, _ = brackets_to_tree("(TOP (S (NP (PRP He)) (VP (VBD saw) (NP (NP (DT the) "
                                      "(NN man)) (PP (IN with) (NP (DT a) (NN hat))))) (. .)))")
    gold = tree_to_levels(tree)
    tags = ["O"] + [f"{p}-{c}" for c in ("NP", "VP", "PP", "S") for p in "BIES"]
    index = {t: i for i, t in enumerate(tags)}

    def scorer(k: int, feature: list[str]) -> np.ndarray:
        out = np.zeros((len(words), len(tags)))
        out[np.arange(len(words)), [index[t] for t in gold[k]]] = 1.0
        return out

    assert LevelDecoder(tags).parse(len(words), scorer) == (gold, tree)


def test_nothing_found_goes_under_one_s() -> None:
    decoder = LevelDecoder(TAGS)

    def only_o(k: int, feature: list[str]) -> np.ndarray:
        out = np.zeros((3, len(TAGS)))
        out[:, 0] = 5.0
        return out

    levels, tree = decoder.parse(3, only_o)
    assert levels == [["B-S", "I-S", "E-S"]] and tree == node("TOP", [node("S", [0, 1, 2])])
    assert decoder.parse(1, lambda k, f: only_o(k, f)[:1])[1] == node("TOP", [node("S", [0])])


@pytest.mark.parametrize("emissions, message", [
    (np.zeros((2, len(TAGS))), "shape"),
    (np.full((3, len(TAGS)), np.nan), "finite"),
])
def test_bad_emissions(emissions: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LevelDecoder(TAGS).parse(3, lambda k, f: emissions)


def test_bad_tag_set_and_length() -> None:
    with pytest.raises(ValueError, match="with 'O'"):
        LevelDecoder(["B-X", "E-X"])
    with pytest.raises(ValueError, match="at least one word"):
        LevelDecoder(TAGS).parse(0, lambda k, f: np.zeros((0, len(TAGS))))


def test_large_tag_sets_decode_as_with_the_full_step(monkeypatch) -> None:
    """Over 181 tags the Viterbi prunes its steps; with -inf unit scores (S- after level 0,
    tags a set lacks) it must still find what the full max-plus step finds."""
    tags = ["O"] + [f"{p}-L{j}" for j in range(60) for p in "BIES"] + ["S-ONE"]
    rng = np.random.default_rng(5)
    scores = [rng.normal(size=(25, len(tags))) for _ in range(30)]
    pruned = LevelDecoder(tags).parse(25, lambda k, f: scores[k])
    monkeypatch.setattr(viterbi, "DENSE_CELLS", 1 << 40)
    assert LevelDecoder(tags).parse(25, lambda k, f: scores[k]) == pruned


@pytest.mark.parametrize("levels, n, expected", [
    ([], 2, [[("S", 0, 2)]]),
    ([[("NP", 0, 1)]], 2, [[("NP", 0, 1)], [("S", 0, 2)]]),
    ([[("NP", 0, 1)], [("VP", 0, 2)]], 2, [[("NP", 0, 1)], [("VP", 0, 2)]]),
    ([[("NP", 0, 1)]], 1, [[("NP", 0, 1)]]),
])
def test_with_root_closes_an_unfinished_tree(levels, n, expected) -> None:
    assert with_root(levels, n) == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 120), min_size=1, max_size=300), st.integers(1, 2000))
def test_parser_groups_cover_every_sentence_in_bounded_similar_groups(lengths, cells):
    groups = _groups(lengths, cells)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    for g in groups:
        sizes = [lengths[i] for i in g]
        assert len(g) == 1 or len(g) * max(sizes) <= cells
        assert max(sizes) <= SPREAD * min(sizes) + SLACK
