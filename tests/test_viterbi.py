"""The pruned, batched Viterbi equals the plain full-step one (kept here as the oracle),
ties and padding included; no torch needed."""

import numpy as np
import pytest

from senna.decode.viterbi import Decoder


def viterbi(emissions, lengths, transitions, start):
    return Decoder(emissions.shape[2], transitions, start).decode(emissions, lengths)


def full_viterbi(emissions, lengths, transitions, start):
    """Every previous tag at every step, one sentence at a time."""
    paths = []
    for e, n in zip(emissions, lengths, strict=True):
        if n == 0:
            paths.append(np.empty(0, dtype=np.intp))
            continue
        score = start + e[0]
        back = []
        for i in range(1, n):
            cand = score[:, None] + transitions
            back.append(cand.argmax(0))
            score = cand.max(0) + e[i]
        path = [int(score.argmax())]
        for b in reversed(back):
            path.append(int(b[path[-1]]))
        paths.append(np.array(path[::-1], dtype=np.intp))
    return paths


def case(seed, k, lengths, dtype, scale=1.0, integer=False):
    rng = np.random.default_rng(seed)
    shape = (len(lengths), max(max(lengths), 1), k)
    draw = (lambda *s: rng.integers(-2, 3, size=s)) if integer else (lambda *s: rng.normal(size=s))
    e = (draw(*shape) * scale).astype(dtype)
    return e, np.array(lengths), draw(k, k).astype(dtype), draw(k).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k,scale,integer", [(3, 1.0, False), (17, 10.0, False),
                                             (50, 0.1, False), (179, 30.0, False),
                                             (5, 1.0, True), (40, 1.0, True)])
def test_pruned_viterbi_equals_full_steps(dtype, seed, k, scale, integer):
    emissions, lengths, trans, start = case(seed, k, [7, 1, 0, 12, 3, 12], dtype, scale,
                                            integer)
    got = viterbi(emissions, lengths, trans, start)
    for g, want in zip(got, full_viterbi(emissions, lengths, trans, start), strict=True):
        np.testing.assert_array_equal(g, want)


def test_forbidden_transitions_and_large_scores():
    emissions, lengths, trans, start = case(3, 6, [9, 4], np.float32, 1e6)
    trans[0, 1:] = -np.inf
    got = viterbi(emissions, lengths, trans, start)
    for g, want in zip(got, full_viterbi(emissions, lengths, trans, start), strict=True):
        np.testing.assert_array_equal(g, want)


def test_batch_equals_one_by_one():
    emissions, lengths, trans, start = case(5, 50, [4, 20, 9], np.float32, 3.0)
    together = viterbi(emissions, lengths, trans, start)
    for j, n in enumerate(lengths):
        alone = viterbi(emissions[j : j + 1, :n], lengths[j : j + 1], trans, start)[0]
        np.testing.assert_array_equal(together[j], alone)


def test_empty_batch():
    assert viterbi(np.zeros((0, 3, 4), np.float32), np.zeros(0, int), np.zeros((4, 4)),
                   np.zeros(4)) == []
