"""SRL decoding with each core role at most once (senna.decode.roles), against brute force
over every valid IOBES path of a small tag set."""

import itertools

import numpy as np
import pytest

from senna.decode.constraints import for_scheme
from senna.decode.roles import repeated_spans, rows_with_repeats, unique_core_roles
from senna.decode.viterbi import Decoder

TAGS = ["O", "B-ARG1", "I-ARG1", "E-ARG1", "S-ARG1", "S-ARG0", "S-V", "S-ARGM-TMP",
        "S-C-ARG1"]
ARG1 = [1, 2, 3, 4]


def setting(seed):
    rng = np.random.default_rng(seed)
    k = len(TAGS)
    constraints = for_scheme(TAGS, "iobes")
    trans, start = rng.normal(size=(k, k)).astype(np.float32), rng.normal(size=k)
    return Decoder(k, trans, start.astype(np.float32), constraints), constraints, trans, start


def score(path, emissions, trans, start):
    return start[path[0]] + sum(emissions[i, p] for i, p in enumerate(path)) + sum(
        trans[a, b] for a, b in zip(path[:-1], path[1:], strict=True))


def best_with_arg1_only_in(emissions, constraints, trans, start, first, last):
    """Brute force: the best valid path whose ARG1 tags all lie in words first..last."""
    best = -np.inf
    for path in itertools.product(range(len(TAGS)), repeat=len(emissions)):
        if not constraints.valid(path) or any(
                p in ARG1 and not first <= i <= last for i, p in enumerate(path)):
            continue
        best = max(best, score(path, emissions, trans, start))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_a_repeated_core_role_keeps_the_best_of_its_spans(seed):
    decoder, constraints, trans, start = setting(seed)
    rng = np.random.default_rng(100 + seed)
    emissions = rng.normal(size=(2, 5, len(TAGS))).astype(np.float32)
    emissions[0, :, 1:5] -= 6.0
    emissions[0, :, 5] -= 30.0                # no ARG0 (it would be the next role fixed)
    emissions[0, [0, 3], 4] += 14.0           # row 0: S-ARG1 twice, at words 0 and 3
    lengths = np.array([5, 5])
    paths = decoder.decode(emissions, lengths)
    assert repeated_spans(paths[0], TAGS, {"ARG1": np.array(ARG1)})[1] == [(0, 0), (3, 3)]
    fixed = unique_core_roles(decoder, emissions, lengths, paths, TAGS)
    assert repeated_spans(fixed[0], TAGS, {"ARG1": np.array(ARG1)}) is None
    got = score(fixed[0].tolist(), emissions[0], trans, start)
    want = max(best_with_arg1_only_in(emissions[0], constraints, trans, start, a, b)
               for a, b in [(0, 0), (3, 3)])
    assert got == pytest.approx(want, rel=1e-5)
    np.testing.assert_allclose(decoder.path_scores(emissions[:1], lengths[:1], fixed[:1]),
                               [got], rtol=1e-5)
    if repeated_spans(paths[1], TAGS, {"ARG1": np.array(ARG1), "ARG0": np.array([5])}) is None:
        np.testing.assert_array_equal(fixed[1], paths[1])   # no repeat: Viterbi's path


def test_roles_that_are_not_core_may_repeat():
    decoder, *_ = setting(0)
    emissions = np.full((1, 4, len(TAGS)), -5.0, dtype=np.float32)
    emissions[0, [0, 2], 7] = 5.0             # S-ARGM-TMP twice
    emissions[0, [1, 3], 8] = 5.0             # S-C-ARG1 twice
    lengths = np.array([4])
    paths = decoder.decode(emissions, lengths)
    assert [TAGS[t] for t in paths[0]] == ["S-ARGM-TMP", "S-C-ARG1"] * 2
    np.testing.assert_array_equal(unique_core_roles(decoder, emissions, lengths, paths,
                                                    TAGS)[0], paths[0])


def test_fixing_one_role_never_brings_back_another():
    """Allowing ARG1 in one span only may move it into an ARG0 span and back: the choices
    made in earlier rounds stay, so no core role repeats at the end."""
    decoder, *_ = setting(1)
    rng = np.random.default_rng(7)
    for _ in range(50):
        emissions = rng.normal(size=(8, 6, len(TAGS))).astype(np.float32) * 3
        lengths = rng.integers(1, 7, size=8)
        viterbi = decoder.decode(emissions, lengths)
        roles = {"ARG1": np.array(ARG1), "ARG0": np.array([5])}
        assert rows_with_repeats(viterbi, lengths, TAGS, roles) == [   # the NumPy count
            b for b, (p, n) in enumerate(zip(viterbi, lengths, strict=True))
            if repeated_spans(p[:n], TAGS, roles) is not None]
        paths = unique_core_roles(decoder, emissions, lengths, viterbi, TAGS)
        assert all(repeated_spans(p[:n], TAGS, roles) is None
                   for p, n in zip(paths, lengths, strict=True))


def test_continuations_and_references_need_their_argument():
    from senna.decode.roles import drop_orphans

    tags = ["O", "S-ARG0", "S-ARG1", "B-C-ARG1", "E-C-ARG1", "S-R-ARG0", "S-V", "S-C-V",
            "S-R-ARG2"]

    def run(*names):
        path = np.array([tags.index(t) for t in names] + [0, 0])   # padding past the row
        out = drop_orphans([path], np.array([len(names)]), tags)[0]
        assert out[len(names):].tolist() == [0, 0]
        return [tags[t] for t in out[: len(names)]]

    # C-ARG1 before ARG1: dropped; after it: kept; C-V needs nothing
    assert run("B-C-ARG1", "E-C-ARG1", "S-V", "S-ARG1", "S-C-V") == [
        "O", "O", "S-V", "S-ARG1", "S-C-V"]
    assert run("S-ARG1", "S-V", "B-C-ARG1", "E-C-ARG1") == ["S-ARG1", "S-V", "B-C-ARG1",
                                                            "E-C-ARG1"]
    # R-ARG0 with ARG0 anywhere in the row (even after it): kept; R-ARG2 without ARG2: dropped
    assert run("S-R-ARG0", "S-V", "S-ARG0", "S-R-ARG2") == ["S-R-ARG0", "S-V", "S-ARG0", "O"]
    assert drop_orphans([], np.array([], dtype=int), tags) == []
