"""Character-level word vectors (senna.features.kinds.CharsFeature, senna.nn.chars,
senna.runtime.chars): spellings, the NumPy convolution against PyTorch's, the run-time table
that computes each spelling once, presets with additions, and sharing in joint training.
The runtime/training agreement of whole chars models is in test_train.py and below."""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import FIX

from senna.features import specs as F
from senna.features.featurizer import Featurizer
from senna.features.kinds import Spellings
from senna.runtime import chars as runtime_chars
from senna.runtime.kernels import char_vectors
from senna.tasks import get_task
from senna.vocab import Vocab


class Sent:
    def __init__(self, words):
        self.words = words


def featurizer(words=("Paris", "paris", "flew", "too", "Paris", "!")) -> Featurizer:
    return Featurizer.fit([F.word(4), F.chars(6, 3, 3)], [Sent(list(words))])


def test_character_vocabulary_and_spellings():
    fz = featurizer()
    kind = fz.kinds[1]
    chars = fz.vocabs["chars"]
    assert {"a", "P", "o"} <= set(chars.items) and "!" not in chars  # once -> RARE
    ids = fz.encode(["Paris", "Zorro!", "Paris"])[:, 1]
    assert ids[0] == ids[2] and ids[0] != ids[1] and 0 not in ids  # 0: beyond the sentence
    row = kind.spellings.padded([ids[1]], 0)[0][0]
    assert row.tolist()[1:5] == [chars.id(c) for c in "orro"] and Vocab.unk_id not in row[1:5]
    assert row[0] == row[-1] == Vocab.unk_id  # Z and ! are rare
    padded, lengths = kind.spellings.padded([ids[0], 0], half=1)
    assert lengths.tolist() == [5, 1] and padded.shape == (2, 7)
    assert padded[0, 0] == padded[0, 6] == 0 and padded[1].tolist() == [0] * 7


def test_long_words_keep_their_ends():
    s = Spellings(Vocab(list("abcxyz")))
    word = "abc" + "x" * 100 + "xyz"
    row = s.padded([s.id(word)], 0)[0][0]
    assert len(row) == Spellings.LONGEST
    assert row[:3].tolist() == [2, 3, 4] and row[-3:].tolist() == [5, 6, 7]
    padded, lengths = s.padded([s.id(""), 0, s.id("a\U0001F600")], 1)
    assert lengths.tolist() == [1, 1, 2]
    assert padded.tolist() == [[0, 1, 0, 0], [0, 0, 0, 0], [0, 2, 1, 0]]  # 😀 is rare


def test_bad_chars_settings_are_refused():
    with pytest.raises(ValueError, match="char dim"):
        Featurizer.fit([F.FeatureSpec("chars", "chars", 5, "ten")], [])
    with pytest.raises(ValueError, match="window odd"):
        Featurizer.fit([F.chars(5, 4, 2)], [])
    with pytest.raises(ValueError, match=r"\+chars"):
        get_task("pos").features("senna+colour")
    with pytest.raises(ValueError, match="features must be a preset"):
        get_task("pos").features("senna+chars+chars")
    with pytest.raises(ValueError, match="features must be a preset"):
        get_task("pos").features("senna+chars:many")
    names = [s.name for s in get_task("chunk").features("basic+chars")]
    assert names == ["word", "caps", "chars"]
    assert get_task("ner").features("senna+chars:30")[-1] == F.chars(30)
    assert get_task("pos").features("senna+chars:30:10:5")[-1] == F.chars(30, 10, 5)
    for bad in ("chars:30:10:5:1", "chars::5", "chars:30:", "chars:0", "chunk:5:5"):
        with pytest.raises(ValueError, match="features must be a preset"):
            get_task("pt0").features("senna+" + bad)


def random_weights(n_chars: int, width: int, window: int, filters: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return {"c.chars.weight": rng.normal(size=(n_chars, width)).astype(np.float32),
            "c.conv.weight": rng.normal(size=(filters, width, window)).astype(np.float32),
            "c.conv.bias": rng.normal(size=filters).astype(np.float32)}


def test_numpy_convolution_matches_pytorch_and_ignores_padding_beyond_a_word():
    torch = pytest.importorskip("torch")
    from senna.nn.chars import CharConvolution

    fz = featurizer()
    spellings = fz.kinds[1].spellings
    ids = fz.encode(["to", "Paris", "flew", "a", "extraordinarily"])[:, 1]
    w = random_weights(len(fz.vocabs["chars"]), 3, 3, 6)
    net = CharConvolution(len(fz.vocabs["chars"]), 3, 3, 6)
    with torch.no_grad():
        net.chars.weight.copy_(torch.from_numpy(w["c.chars.weight"]))
        net.conv.weight.copy_(torch.from_numpy(w["c.conv.weight"]))
        net.conv.bias.copy_(torch.from_numpy(w["c.conv.bias"]))
    net.spellings = spellings
    with torch.no_grad():
        ref = net(torch.from_numpy(np.array([ids, ids[::-1]]))).numpy()
    got = char_vectors(*spellings.padded(ids, 1), w, "c")
    np.testing.assert_allclose(ref[0], got, atol=1e-5)
    np.testing.assert_allclose(ref[1], got[::-1], atol=1e-5)
    alone = char_vectors(*spellings.padded(ids[:1], 1), w, "c")  # no longer neighbour
    np.testing.assert_allclose(alone[0], got[0], atol=1e-6)
    # by hand: "to" = [PAD t o PAD]; two windows, max over them
    e = w["c.chars.weight"][spellings.padded(ids[:1], 1)[0][0]]
    conv = w["c.conv.weight"].reshape(6, -1)
    by_hand = np.max([conv @ e[i : i + 3].T.reshape(-1) for i in range(2)], 0) + w["c.conv.bias"]
    np.testing.assert_allclose(got[0], by_hand, rtol=1e-5)


def test_runtime_table_computes_each_spelling_once_and_forgets_when_full(monkeypatch):
    fz = featurizer()
    kind = fz.kinds[1]
    w = random_weights(len(fz.vocabs["chars"]), 3, 3, 6)
    table = runtime_chars.CharVectors(kind, w, "c")
    calls = []
    real = runtime_chars.char_vectors
    monkeypatch.setattr(runtime_chars, "char_vectors",
                        lambda c, n, *a: calls.append(len(c)) or real(c, n, *a))
    ids = fz.encode(["to", "Paris", "to", "flew"])[:, 1]
    first = table[ids]
    assert sum(calls) == 3   # three distinct spellings
    np.testing.assert_array_equal(table[ids[::-1]], first[::-1])
    assert sum(calls) == 3
    more = fz.encode(["to", "Rome"])[:, 1]
    table[more]
    assert sum(calls) == 4
    np.testing.assert_array_equal(first[0], char_vectors(*kind.spellings.padded(ids[:1], 1),
                                                          w, "c")[0])
    monkeypatch.setattr(runtime_chars.CharVectors, "LIMIT", 4)
    runtime_chars.bound(fz)          # 5 spellings (0 included) > 4: start again
    assert len(kind.spellings) == 1
    again = fz.encode(["flew", "to"])[:, 1]
    np.testing.assert_allclose(table[again], first[[3, 0]], rtol=1e-6)


@pytest.mark.slow
def test_a_chars_model_tags_the_same_after_forgetting(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from senna.io.formats import read_dataset
    from senna.runtime.model import TaskModel
    from senna.train.config import TrainConfig
    from senna.train.loop import train

    cfg = TrainConfig(task="ner", train=str(FIX / "ner_small.conll"), features="basic+chars",
                      out=str(tmp_path / "m"), epochs=1, hidden=10, word_dim=8, batch_size=8,
                      threads=1)
    train(cfg)
    words = [s.words for s in read_dataset(cfg.train, "conll2003")]
    expected = TaskModel.load(cfg.out).predict(words)
    monkeypatch.setattr(runtime_chars.CharVectors, "LIMIT", 50)
    model = TaskModel.load(cfg.out)
    got = [model.predict([w])[0] for w in words]   # forgets many times on the way
    assert got == expected
    assert len(model.featurizer.kinds[-1].spellings) <= 50 + max(map(len, words)) + 1
    path = Path(cfg.out) / "config.json"
    config = json.loads(path.read_text())
    config["net"]["chars"][-1] = [5, 3]   # not what the feature says
    path.write_text(json.dumps(config))
    (path.parent / "manifest.json").unlink()   # else its recorded size refuses it first
    from senna.io.saved_model import ModelError

    with pytest.raises(ModelError, match="character settings"):
        TaskModel.load(cfg.out)
