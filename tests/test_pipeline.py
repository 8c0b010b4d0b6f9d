"""The tagging cascade and the Python API, on tiny random models built without torch
(conftest's `models`)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import (
    MODELS,
    POS,
    SENTS,
    SRL,
    WORDS,
    dense_sentence_emissions,
    require,
    tiny_model,
)

from senna.api import Tagger, load
from senna.io.checkpoint import save_model
from senna.runtime import kernels
from senna.runtime.model import TaskModel
from senna.runtime.pipeline import (
    Pipeline,
    length_buckets,
    token_ranges,
)


@pytest.fixture(scope="module")
def tagger(models) -> Tagger:
    return load(models, ("pos", "chunk", "ner", "pt0", "srl"))


def test_loads_only_needed_models(models):
    assert Pipeline(models, ["ner"]).order == ["ner"]
    assert Pipeline(models, "chk").order == ["pos", "chunk"]
    assert Pipeline(models, ["srl"]).order == ["pos", "pt0", "srl"]


def test_missing_dependency_is_a_clear_error(models, tmp_path):
    (tmp_path / "srl").symlink_to(models / "srl")
    with pytest.raises(ValueError, match="no pos model"):
        Pipeline(tmp_path, ["srl"])
    with pytest.raises(ValueError, match="unknown task"):
        Pipeline(models, ["parse"])


def test_a_model_reading_tags_of_another_tag_set_is_refused(models, tmp_path):
    """A chunk model trained on Penn Treebank POS tags, fed by a POS tagger of UD tags, would
    read every tag as unknown and chunk on, silently worse: the pipeline refuses it, naming
    the tags; a few unknown tags (a tag set with a tag more) pass."""
    ud = ["ADJ", "ADP", "DET", "NOUN", "PUNCT", "VERB"]
    other = tmp_path / "ud-pos"
    save_model(other, tiny_model("pos", ud, seed=7))
    with pytest.raises(ValueError, match=r"the chunk model reads pos tags that it was never "
                                         r"trained on \(6 of the pos model's 6: ADJ, ADP"):
        Pipeline(models, ["chunk"], task_dirs={"pos": other})
    assert Pipeline(models, ["ner"], task_dirs={"pos": other}).order == ["ner"]
    one_more = tmp_path / "pos-plus"
    save_model(one_more, tiny_model("pos", [*POS, "ADD"], seed=7))
    assert Pipeline(models, ["chunk"], task_dirs={"pos": one_more}).order == ["pos", "chunk"]


def test_cascade_feeds_upstream_columns(models):
    pipe = Pipeline(models, ("pos", "chunk", "pt0", "srl"))
    sents = pipe.tag(SENTS)
    pos = [s.columns["pos"] for s in sents]
    chunk = TaskModel.load(models / "chunk").predict(SENTS, [{"pos": p} for p in pos])
    assert [s.columns["chunk"] for s in sents] == chunk
    srl = TaskModel.load(models / "srl")
    for words, s, p in zip(SENTS, sents, pos, strict=True):
        preds = [i for i, t in enumerate(p) if t.startswith("VB")]
        assert s.predicates == preds
        pt0 = {"pt0": s.columns["pt0"]}
        assert s.roles == (srl.predict_roles_many([words], [preds], [pt0])[0] if preds else [])


def test_batch_equals_one_by_one(models):
    pipe = Pipeline(models, ("pos", "chunk", "ner", "pt0", "srl"))
    assert pipe.tag(SENTS) == [pipe.tag([s])[0] for s in SENTS]
    small = Pipeline(models, ("pos", "chunk", "ner", "pt0", "srl"), max_tokens=8)
    assert small.tag(SENTS) == pipe.tag(SENTS)
    model, words = pipe.models["ner"], SENTS + [[]] + SENTS[::-1]
    assert pipe._window_tags("ner", words, [{}] * len(words)) == model.predict(words)


def test_user_predicates(models):
    pipe = Pipeline(models, ["srl"])
    sents = pipe.tag(SENTS[:2], [[5, 2, 2], []])
    assert sents[0].predicates == [2, 5]
    assert sents[0].frames[0].word == "sat" and sents[1].frames == []
    with pytest.raises(ValueError, match="out of range"):
        pipe.tag(SENTS[:1], [[7]])


def test_linear_max_over_time_matches_brute_force(models):
    model = TaskModel.load(models / "srl")
    rng = np.random.default_rng(0)
    words = list(rng.choice(WORDS, 40))
    ids = model.encode(words, {"pt0": ["O"] * 40})
    preds = [0, 3, 20, 39]
    got = kernels.role_scores([ids], [np.array(preds)], model.w, model.cfg, model.tables)
    np.testing.assert_allclose(got, dense_sentence_emissions(model, ids, preds), atol=1e-5)


def test_srl_sentences_of_different_lengths_share_one_pass(models):
    """Padding shorter sentences (b = -inf) changes no score of a real word (up to float
    rounding: BLAS may sum in another order for another number of rows)."""
    model = TaskModel.load(models / "srl")
    rng = np.random.default_rng(1)
    sents = [list(rng.choice(WORDS, n)) for n in (3, 40, 1, 12, 7)]
    ids = [model.encode(w, {"pt0": ["O"] * len(w)}) for w in sents]
    preds = [[0, 2], [1, 20, 39], [0], [], [6, 3]]
    got = kernels.role_scores(ids, preds, model.w, model.cfg, model.tables)
    want = [row for x, p in zip(ids, preds, strict=True)
            for row in kernels.role_scores([x], [p], model.w, model.cfg, model.tables)]
    assert len(got) == len(want) == 8
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g[: len(w)], w, atol=1e-5)
        assert not g[len(w) :].any()             # padding cells: no hidden layer ran there


def test_long_srl_sentences_match_the_kernel(models):
    pipe = Pipeline(models, ["srl"])
    words = SENTS[3] * 6
    sent = pipe.tag([words], [[1, 30, 59]])[0]
    pt0 = {"pt0": sent.columns["pt0"]}
    assert sent.roles == pipe.models["srl"].predict_roles_many([words], [[1, 30, 59]], [pt0])[0]


def test_window_srl_in_predicate_groups(models, tmp_path):
    for task in ("pos", "pt0"):
        (tmp_path / task).symlink_to(models / task)
    save_model(tmp_path / "srl", tiny_model("srl", SRL, ("pred_distance",), seed=6))
    words = SENTS[3]
    big, small = (Pipeline(tmp_path, ["srl"], max_tokens=n) for n in (1000, 25))
    assert big.tag([words], [[0, 4, 8]]) == small.tag([words], [[0, 4, 8]])
    assert big.tag([words], [[0, 4, 8]])[0].roles == \
        big.models["srl"].predict_roles_many([words], [[0, 4, 8]], [{}])[0]


def test_token_ranges_and_length_buckets():
    assert list(token_ranges([2, 2, 2, 10, 2], 8)) == [(0, 3), (3, 4), (4, 5)]
    assert list(token_ranges([], 8)) == []
    assert length_buckets([30, 1, 5, 31, 2, 100], 1000) == [[1, 4, 2], [0, 3], [5]]
    assert length_buckets([3, 3, 3], 6) == [[0, 1], [2]]


def test_api_offsets_and_spans(tagger):
    text = "  John Smith's cat sat\ton the mat.\n\nNew York isn't big!  "
    doc = tagger(text)
    assert len(doc.sentences) >= 2
    for tok in doc.tokens:
        assert text[tok.start : tok.end] == tok.text
    for sent in doc.sentences:
        for span in sent.spans("chunk") + sent.spans("ner"):
            assert span.text == text[sent.tokens[span.start].start : sent.tokens[span.end - 1].end]


def test_api_pretokenized_and_predicates(tagger):
    doc = tagger(["John", "runs", "."], predicates=[1])
    assert doc.text == "John runs ." and [t.start for t in doc.tokens] == [0, 5, 10]
    assert doc.sentences[0].predicates == [1]
    with pytest.raises(ValueError):
        tagger("John runs.", predicates=[1])


def test_pipe_equals_call(tagger):
    texts = ["The cat sat on the mat. John runs.", "", "a dog is in New York!",
             ["pre", "tokenised", "input"]] * 5
    assert list(tagger.pipe(texts, batch_size=3)) == [tagger(t) for t in texts]


def test_to_dict_is_json_ready(tagger):
    import json
    d = json.loads(json.dumps(tagger("John runs in New York.").to_dict()))
    tok = d["sentences"][0]["tokens"][0]
    ran = [t for t in ("pos", "chunk", "ner", "pt0", "vbs") if t in tagger.pipeline.order]
    assert set(tok) == {"text", "start", "end", *ran}
    assert set(d["sentences"][0]) == {"tokens", "chunks", "entities", "predicates"}
    only = tagger("John runs in New York.").to_dict(["chk"])["sentences"][0]
    assert set(only) == {"tokens", "chunks"} and set(only["tokens"][0]) == {
        "text", "start", "end", "chunk"}


def test_package_exports_load():
    import senna
    assert senna.load is load


def test_shipped_pos_model():
    require(MODELS / "pos" / "config.json", "the shipped POS model")
    doc = load(None, ["pos"])("The cat sat on the mat.")
    assert doc.sentences[0].columns["pos"][:2] == ["DT", "NN"]


def test_shipped_cascade():
    for task in ("pos", "chunk", "ner", "pt0", "srl"):
        require(MODELS / task / "config.json", f"the shipped {task} model")
    sent = load()("John Smith saw the cat in New York.").sentences[0]
    assert [f.word for f in sent.frames] == ["saw"]
    assert ("V", 2, 3) in [(a.label, a.start, a.end) for a in sent.frames[0].arguments]
    assert ("PER", 0, 2) in [(e.label, e.start, e.end) for e in sent.spans("ner")]
