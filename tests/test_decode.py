"""Forward algorithm and Viterbi against brute-force enumeration of every tag path."""

import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from senna.decode.viterbi import Decoder  # noqa: E402
from senna.nn.criterion import log_partition, path_score, sll_nll, wll_nll  # noqa: E402


def brute_force(emissions, transitions, start):
    """All K**T paths: (log-sum-exp of scores, best path, best score)."""
    t, k = emissions.shape
    scores = {}
    for path in itertools.product(range(k), repeat=t):
        s = start[path[0]] + sum(emissions[i, p] for i, p in enumerate(path))
        s += sum(transitions[a, b] for a, b in zip(path[:-1], path[1:], strict=True))
        scores[path] = s
    best = max(scores, key=scores.get)
    return np.logaddexp.reduce(np.array(list(scores.values()))), np.array(best), scores[best]


def random_case(seed, lengths, k):
    rng = np.random.default_rng(seed)
    t = max(lengths)
    return (rng.normal(size=(len(lengths), t, k)), rng.normal(size=(k, k)),
            rng.normal(size=k), np.array(lengths))


@pytest.mark.parametrize("seed", range(5))
def test_forward_and_viterbi_match_brute_force_on_padded_batch(seed):
    emissions, transitions, start, lengths = random_case(seed, [4, 1, 3, 2], 3)
    e, m = torch.tensor(emissions), torch.arange(4)[None, :] < torch.tensor(lengths)[:, None]
    logz = log_partition(e, m, torch.tensor(transitions), torch.tensor(start)).numpy()
    paths = Decoder(3, transitions, start).decode(emissions, lengths)
    for b, n in enumerate(lengths):
        z, best, best_score = brute_force(emissions[b, :n], transitions, start)
        assert logz[b] == pytest.approx(z, abs=1e-9)
        np.testing.assert_array_equal(paths[b], best)
        tags = torch.zeros(1, 4, dtype=torch.long)
        tags[0, :n] = torch.tensor(best)
        s = path_score(e[b:b + 1], tags, m[b:b + 1].double(), torch.tensor(transitions),
                       torch.tensor(start))
        assert s.item() == pytest.approx(best_score, abs=1e-9)


def test_sll_gradient_is_exact():
    emissions, transitions, start, lengths = random_case(7, [3, 2], 3)
    args = [torch.tensor(a, requires_grad=True) for a in (emissions, transitions, start)]
    m = torch.arange(3)[None, :] < torch.tensor(lengths)[:, None]
    tags = torch.tensor([[0, 2, 1], [1, 1, 0]])

    def f(e, a, s):
        return sll_nll(e, tags, m, a, s).sum()

    assert torch.autograd.gradcheck(f, args)


def test_sll_nll_is_positive_and_probabilities_sum_to_one():
    emissions, transitions, start, lengths = random_case(3, [3], 2)
    e, a, s = (torch.tensor(x) for x in (emissions, transitions, start))
    m = torch.ones(1, 3, dtype=torch.bool)
    total = sum(torch.exp(-sll_nll(e, torch.tensor([p]), m, a, s)).item()
                for p in itertools.product(range(2), repeat=3))
    assert total == pytest.approx(1.0)


def test_wll_ignores_padding_and_its_decoder_takes_argmax():
    emissions, _, _, lengths = random_case(1, [3, 1], 4)
    e = torch.tensor(emissions)
    m = torch.arange(3)[None, :] < torch.tensor(lengths)[:, None]
    tags = torch.tensor([[0, 1, 2], [3, 0, 0]])
    nll = wll_nll(e, tags, m)
    logp = torch.log_softmax(e, -1)
    assert nll[1].item() == pytest.approx(-logp[1, 0, 3].item())
    paths = Decoder(4, np.zeros((4, 4)), np.zeros(4)).decode(emissions, lengths)
    np.testing.assert_array_equal(paths[0], emissions[0].argmax(-1))
    assert len(paths[1]) == 1
