"""Long sentences cost what their words cost as ordinary sentences (issue 10, item 1): SRL
rows cover a window around the predicate beyond SRL_EXACT words, long sentences are decoded
in overlapping pieces, and role columns outside a window stay compact.  Tiny random models
(conftest's `models`); the bound on time is measured by bench/scaling.py."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from conftest import SENTS, SRL, WORDS, dense_sentence_emissions, tiny_model, window_inputs
from hypothesis import given, settings
from hypothesis import strategies as st

import senna.decode.viterbi as viterbi
import senna.runtime.model as runtime_model
import senna.runtime.pipeline as pipeline
from senna.decode.constraints import iobes, valid_iobes
from senna.decode.viterbi import Decoder
from senna.runtime import kernels
from senna.runtime.model import TaskModel
from senna.tags import RoleTags, tags_to_spans
from senna.tags import _conlleval_spans as _spans


@pytest.mark.parametrize("predicate_window", [0, 5])
def test_srl_window_rows_match_the_max_over_their_window(predicate_window):
    """A row restricted to words [lo, hi) is the network on those words, with the
    convolution still seeing their true neighbours, and the predicate's words (PADDING
    past the sentence's edges) added after the max (brute-force oracle)."""
    model = TaskModel(tiny_model("srl", SRL, ("pt0",), "sentence", seed=5,
                                 predicate_window=predicate_window))
    rng = np.random.default_rng(0)
    words = list(rng.choice(WORDS, 40))
    ids = model.encode(words, {"pt0": ["O"] * 40})
    preds, windows = [1, 20, 39], [(0, 9), (14, 27), (33, 40)]
    got = kernels.role_scores([ids], [preds], model.w, model.cfg, model.tables, [windows])
    cfg, w = model.cfg, model.w
    w_x, g_w, g_p = kernels.sentence_tables(w, cfg)
    reach = cfg.max_dist + cfg.window // 2
    a = window_inputs(ids, [40], w, cfg) @ w_x.T + w["conv.bias"]
    for row, p, (lo, hi) in zip(got, preds, windows, strict=True):
        h = np.stack([np.max([a[j] + g_p[np.clip(j - p, -reach, reach) + reach]
                              + g_w[np.clip(j - i, -reach, reach) + reach]
                              for j in range(lo, hi)], axis=0) for i in range(lo, hi)])
        hid = h @ w["l1.weight"].T + w["l1.bias"]
        if predicate_window:
            q = predicate_window // 2
            near = [ids[j] if 0 <= j < 40 else np.zeros_like(ids[0])
                    for j in range(p - q, p + q + 1)]
            hid += kernels.embed(np.array(near), w, len(cfg.dims)).reshape(-1) @ w["pred.weight"].T
        want = np.clip(hid, -1, 1) @ w["l2.weight"].T
        np.testing.assert_allclose(row[: hi - lo], want + w["l2.bias"], atol=1e-5)


def test_whole_rows_still_match_the_oracle(models):
    model = TaskModel.load(models / "srl")
    ids = model.encode(SENTS[3], {"pt0": ["O"] * len(SENTS[3])})
    got = kernels.role_scores([ids], [[1, 8]], model.w, model.cfg, model.tables)
    np.testing.assert_allclose(got, dense_sentence_emissions(model, ids, [1, 8]), atol=1e-5)


def test_long_sentences_get_windows_and_short_ones_do_not(models, monkeypatch):
    monkeypatch.setattr(runtime_model, "SRL_EXACT", 12)
    monkeypatch.setattr(runtime_model, "SRL_RADIUS", 3)
    monkeypatch.setattr(pipeline, "SRL_EXACT", 12)
    monkeypatch.setattr(pipeline, "PIECE", 8)
    pipe = pipeline.Pipeline(models, ["srl"])
    short = SENTS[3]
    long = SENTS[3] * 4
    preds = [1, 8, 17, 30, 39]
    sent = pipe.tag([long], [preds])[0]
    model = pipe.models["srl"]
    pt0 = {"pt0": sent.columns["pt0"]}
    windows = [[model.role_window(len(long), p) for p in preds]]
    want = model.predict_role_windows([long], [preds], [pt0], windows)[0]
    for p, (lo, tags), got in zip(preds, want, sent.frames, strict=True):
        assert isinstance(got.tags, RoleTags) and len(got.tags) == len(long)
        assert list(got.tags) == ["O"] * lo + tags + ["O"] * (len(long) - lo - len(tags))
        assert lo == max(0, p - 3) and len(tags) == min(len(long), p + 4) - lo
        assert valid_iobes(list(got.tags))
    # a sentence of at most SRL_EXACT words: every row covers it whole
    ref = pipe.tag([short], [[1, 8]])[0]
    assert [list(p.tags) for p in ref.frames] == \
        model.predict_roles_many([short], [[1, 8]], [{"pt0": ref.columns["pt0"]}])[0]


def test_every_predicate_has_one_v_span_holding_it(models):
    pipe = pipeline.Pipeline(models, ["srl"])
    for sent in pipe.tag(SENTS, [list(range(len(s))) for s in SENTS]):
        for p in sent.frames:
            v = [a for a in p.arguments if a.label == "V"]
            assert len(v) == 1 and v[0].start <= p.index < v[0].end, p
            assert valid_iobes(p.tags)


@pytest.mark.parametrize("seed", range(4))
def test_long_sentences_decode_in_pieces_as_whole(seed, monkeypatch):
    """Pieces joined where they agree give the whole sentence's best path (float64 sums;
    random scores, whose paths converge within a few words as trained models' do)."""
    monkeypatch.setattr(viterbi, "LONG", 40)
    monkeypatch.setattr(viterbi, "PIECE", 16)
    monkeypatch.setattr(viterbi, "MARGIN", 8)
    tags = ["O"] + [f"{p}-{t}" for t in ("A", "B", "C") for p in "BIES"]
    rng = np.random.default_rng(seed)
    k = len(tags)
    decoder = Decoder(k, rng.normal(size=(k, k)), rng.normal(size=k), iobes(tags))
    lengths = np.array([300, 7, 41, 0, 120])
    emissions = rng.normal(size=(lengths.sum(), k)) * 3
    got = decoder.decode_flat(emissions, lengths)
    starts = np.cumsum(lengths) - lengths
    for s, n in zip(starts, lengths, strict=True):
        whole = decoder._paths(emissions, np.array([n]), np.array([s]))
        np.testing.assert_array_equal(got[s : s + n], whole)
        assert iobes(tags).valid(got[s : s + n])


def test_pieces_that_never_agree_fall_back_to_the_whole_sentence():
    cuts = [(0, 10), (6, 16)]
    pieces = [np.zeros(10, dtype=np.intp), np.ones(10, dtype=np.intp)]
    assert Decoder._join(cuts, pieces) is None
    pieces[1][:3] = 0
    np.testing.assert_array_equal(Decoder._join(cuts, pieces), [0] * 9 + [1] * 7)


TAG = st.sampled_from(["O", "O", "O", "B-A", "I-A", "E-A", "S-A", "B-B", "E-B", "S-B", "I-B"])


@settings(max_examples=200, deadline=None)
@given(st.lists(TAG, max_size=30), st.integers(0, 120), st.integers(0, 120))
def test_spans_skip_runs_of_o_exactly(core, before, after):
    tags = ["O"] * before + core + ["O"] * after
    assert tags_to_spans(tags) == _spans(tags)
    column = RoleTags(len(tags), before, core)
    assert list(column) == tags and column == tags and len(column) == len(tags)
    assert tags_to_spans(column) == _spans(tags)
    assert copy.deepcopy(column) == tags and isinstance(copy.deepcopy(column), list)
    if tags:
        assert column[-1] == tags[-1] and column[len(tags) // 2] == tags[len(tags) // 2]
