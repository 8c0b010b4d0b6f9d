"""The NumPy runtime computes the training network's scores on real dev data: every shipped
model, within 1e-5, on dev sentences of every length (the runtime's shortcuts: distinct
feature tuples projected once, the blocked max over time, SRL windows only beyond
SRL_EXACT words, which no dev sentence reaches)."""


import numpy as np
import pytest
from conftest import shipped

torch = pytest.importorskip("torch")

from senna.io.checkpoint import load_model  # noqa: E402
from senna.runtime.model import SRL_EXACT, TaskModel  # noqa: E402
from senna.scoring.inputs import recorded_dev_set  # noqa: E402
from senna.train.data import batches, make_examples  # noqa: E402
from senna.train.tagging import network_from_saved  # noqa: E402


def dev_slice(sentences: list, n: int = 100) -> list:
    """The first n dev sentences and the n longest (where long-sentence code paths act)."""
    longest = sorted(range(len(sentences)), key=lambda i: -len(sentences[i].words))[:n]
    return [sentences[i] for i in sorted(set(range(min(n, len(sentences)))) | set(longest))]


@pytest.mark.regression
@pytest.mark.parametrize("task", ["pos", "chunk", "ner", "pt0", "srl"])
def test_runtime_scores_match_training_on_dev(task, data_dir):
    path = shipped(task)
    spec, dev = recorded_dev_set(path, data_dir)
    dev = dev_slice(dev)
    saved = load_model(path)
    net = network_from_saved(saved).eval()
    runtime = TaskModel.load(path)
    examples = make_examples(spec, dev, saved.featurizer)
    want = {}
    with torch.no_grad():
        for b in batches(examples, 64, None):
            out = net(torch.from_numpy(b.ids), torch.from_numpy(b.lengths),
                      torch.from_numpy(b.predicates)).numpy()
            for row, i in enumerate(b.index):
                want[i] = out[row, : len(examples[i].ids)]
    if runtime.sentence_level:
        assert max(len(s.words) for s in dev) <= SRL_EXACT
        part = [s for s in dev if s.predicates]
        got, bounds = runtime.role_scores([s.words for s in part], [s.predicates for s in part],
                                          [s.columns for s in part])
        got = [g[: hi - lo] for g, (lo, hi) in zip(got, bounds, strict=True)]
    else:
        flat = runtime.emissions([s.words for s in dev], [s.columns for s in dev])
        got = np.split(flat, np.cumsum([len(s.words) for s in dev])[:-1])
    assert len(got) == len(examples)
    for i, g in enumerate(got):
        np.testing.assert_allclose(g, want[i], atol=1e-5, rtol=1e-5)


@pytest.mark.regression
@pytest.mark.parametrize("task", ["pos", "chunk", "ner", "pt0"])
def test_long_lines_decode_in_pieces_as_whole(task, data_dir):
    """A dev set joined into one line (over 20,000 words): decoding it in overlapping
    pieces gives the path of Viterbi over the whole line (in float64, as float32 sums drift
    over so many words)."""
    from senna.decode.viterbi import Decoder

    path = shipped(task)
    _, dev = recorded_dev_set(path, data_dir)
    model = TaskModel.load(path)
    words = [w for s in dev for w in s.words]
    columns = {k: [v for s in dev for v in s.columns[k]] for k in dev[0].columns}
    emissions = model.emissions([words], [columns])
    lengths = np.array([len(words)])
    pieces = model.decoder.decode_flat(emissions, lengths)
    w = model.w
    whole = Decoder(len(model.tags), w["transitions"].astype(np.float64),
                    w["start"].astype(np.float64), model.constraints)
    assert len(words) > 20_000
    np.testing.assert_array_equal(pieces, whole._paths(emissions.astype(np.float64), lengths,
                                                       np.array([0])))
