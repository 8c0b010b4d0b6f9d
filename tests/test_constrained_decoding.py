"""Decoding under the IOBES rules: the constrained Viterbi against brute-force enumeration
of every valid path on tiny cases, for sentence-level (SLL) and word-level (WLL) models."""

import itertools

import numpy as np
import pytest

from senna.decode.constraints import iobes, valid_iobes
from senna.decode.viterbi import DENSE_CELLS, Decoder

TAGS = ["B-A", "E-A", "I-A", "O", "S-A", "B-B", "E-B", "S-B"]


def brute_force(emissions, transitions, start, rules):
    """Best score over every valid path of one sentence (-inf if none)."""
    t, k = emissions.shape
    best = -np.inf
    for path in itertools.product(range(k), repeat=t):
        if not rules.valid(path):
            continue
        s = start[path[0]] + sum(emissions[i, p] for i, p in enumerate(path))
        s += sum(transitions[a, b] for a, b in zip(path[:-1], path[1:], strict=True))
        best = max(best, s)
    return best


def path_score(path, emissions, transitions, start):
    return start[path[0]] + emissions[np.arange(len(path)), path].sum() + \
        transitions[path[:-1], path[1:]].sum()


def test_iobes_rules():
    assert valid_iobes(["O", "B-A", "I-A", "E-A", "S-B", "O"])
    assert valid_iobes([])
    for bad in (["I-A"], ["O", "E-A"], ["B-A"], ["B-A", "E-B"], ["S-V", "E-ARGM-TMP"],
                ["B-A", "O", "E-A"], ["O", "I-A", "E-A"]):
        assert not valid_iobes(bad), bad


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("sentence_level", [True, False])
def test_constrained_viterbi_equals_brute_force(seed, sentence_level):
    rng = np.random.default_rng(seed)
    k = len(TAGS)
    lengths = np.array([1, 4, 3, 2, 5])
    emissions = rng.normal(size=(len(lengths), 5, k)) * 3
    emissions[1, 2, 3] = -np.inf                   # a forbidden tag (as for SRL's V)
    trans = rng.normal(size=(k, k)) if sentence_level else np.zeros((k, k))
    start = rng.normal(size=k) if sentence_level else np.zeros(k)
    rules = iobes(TAGS)
    decoder = Decoder(k, trans if sentence_level else None, start if sentence_level else None,
                      rules)
    for b, path in enumerate(decoder.decode(emissions, lengths)):
        n = lengths[b]
        assert len(path) == n and rules.valid(path)
        want = brute_force(emissions[b, :n], trans, start, rules)
        assert path_score(path, emissions[b, :n], trans, start) == pytest.approx(want)


@pytest.mark.parametrize("sentence_level", [True, False])
def test_many_tags_use_the_pruned_step(sentence_level):
    """More tags and sentences than the dense limit: the grouped, pruned step (with zero
    transitions, a word-level model: one max over the previous set) still finds the best
    valid path of a full step over a -inf transition matrix (the oracle below)."""
    types = [f"T{i}" for i in range(12)]
    tags = ["O"] + [f"{p}-{t}" for t in types for p in "BIES"]
    k = len(tags)
    rng = np.random.default_rng(3)
    lengths = np.array([9, 1, 5, 9, 2, 7] * 3)
    emissions = rng.normal(size=(len(lengths), 9, k)).astype(np.float32) * 4
    trans = rng.normal(size=(k, k)).astype(np.float32)
    start = rng.normal(size=k).astype(np.float32)
    if not sentence_level:
        trans, start = np.zeros_like(trans), np.zeros_like(start)
    rules = iobes(tags)
    decoder = Decoder(k, trans if sentence_level else None, start if sentence_level else None,
                      rules)
    assert decoder.flat != sentence_level and len(lengths) * k * k > DENSE_CELLS
    got = decoder.decode(emissions, lengths)
    full = np.where(rules.allowed, trans, -np.inf)
    for b, n in enumerate(lengths):
        score = np.where(rules.first, start, -np.inf) + emissions[b, 0]
        back = []
        for i in range(1, n):
            cand = score[:, None] + full
            back.append(cand.argmax(0))
            score = cand.max(0) + emissions[b, i]
        path = [int(np.where(rules.last, score, -np.inf).argmax())]
        for ptr in reversed(back):
            path.append(int(ptr[path[-1]]))
        np.testing.assert_array_equal(got[b], path[::-1])
        assert rules.valid(got[b])


def test_without_constraints_word_level_is_argmax():
    rng = np.random.default_rng(0)
    emissions = rng.normal(size=(2, 4, 5))
    paths = Decoder(5).decode(emissions, np.array([4, 2]))
    np.testing.assert_array_equal(paths[0], emissions[0].argmax(1))
    np.testing.assert_array_equal(paths[1], emissions[1, :2].argmax(1))


def test_criterion_comes_from_the_config():
    """A word-level (wll) model decodes without transition scores even if its file has
    some; a sentence-level (sll) one without them is an error, not a silent argmax."""
    from conftest import NER, tiny_model

    from senna.io.saved_model import ModelError
    from senna.runtime.model import TaskModel

    saved = tiny_model("ner", NER, seed=3)
    sll = TaskModel(saved)
    assert np.isfinite(sll.decoder.full).any() and (sll.decoder.full != 0).any()
    saved.net.criterion = "wll"
    wll = TaskModel(saved)
    assert np.isin(wll.decoder.full, [0, -np.inf]).all()
    assert (wll.decoder.start == 0).sum() + np.isinf(wll.decoder.start).sum() == len(NER)
    saved.net.criterion = "sll"
    del saved.weights["transitions"]
    with pytest.raises(ModelError, match="transitions"):
        TaskModel(saved)
