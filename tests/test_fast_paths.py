"""The shortcuts the tagger takes for speed give what the plain way gives: lazily indexed
dictionaries (FileIndex), word-table rows located on first read (OverlayTable), .npz read
in one piece, batch-wide formatting and WSJ tag rules, -usrtokens tokens made on demand,
in-place tagging and --preload."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from senna.api import load, pretokenized_document, raw_document
from senna.document import Sentence
from senna.io.checkpoint import load_model
from senna.io.model_checks import all_finite
from senna.io.npz import load_npz
from senna.io.output import FORMATS, OutputOptions, format_document, format_documents
from senna.tagset import apply_tagset, to_wsj
from senna.text.normalize import normalize_word, normalize_words
from senna.text.tokenize import SpacedTokens, Token, split_pretokenized
from senna.vocab import LARGE, FileIndex, FileVocab, LineHashes, Vocab

SHIPPED = Path(__file__).resolve().parent.parent / "senna" / "models"


def _index(items: list[str]) -> dict[str, int]:
    return dict(zip(items, range(len(items)), strict=True))


def test_line_hashes_answer_as_a_dict_even_when_hashes_collide(monkeypatch) -> None:
    data = "".join(e + "\n" for e in ENTRIES).encode()
    keys = [*ENTRIES, "th", "he", "zz", "RARE\nthe", "\ud800", "end\n"]
    want = [_index(ENTRIES).get(k, -1) for k in keys]
    index = LineHashes(data)
    assert list(index.ids(keys, -1)) == want and [index.get(k, -1) for k in keys] == want
    assert list(index) == ENTRIES and len(index) == len(ENTRIES)
    assert index.lines([6, 0]) == ["é", "PADDING"]
    other_entries = ["RARE", "zz", "é", "PADDING", "the end", "th"]
    other = LineHashes("".join(e + "\n" for e in other_entries).encode())
    want_rows = [_index(ENTRIES).get(e, -1) for e in other_entries]
    assert list(index.find(other, range(len(other_entries)), -1)) == want_rows
    # every line the same hash: the bytes still tell them apart
    import senna.vocab as vocab

    monkeypatch.setattr(vocab, "hash", lambda b: 7, raising=False)
    same = LineHashes(data)
    assert list(same.ids(keys, -1)) == want and [same.get(k, -1) for k in keys] == want
    other = LineHashes("".join(e + "\n" for e in other_entries).encode())
    assert list(same.find(other, range(len(other_entries)), -1)) == want_rows
    with pytest.raises(ValueError, match="x.lst: lists an entry twice"):
        LineHashes(b"a\nb\na\n", "x.lst")


ENTRIES = ["PADDING", "RARE", "the", ",", "x y", "", "é", "the end", "end"]


def test_file_index_answers_as_a_dict_before_and_after_building() -> None:
    data = "".join(e + "\n" for e in ENTRIES).encode()
    keys = [*ENTRIES, "th", "he", "zz", "RARE\nthe", "PADDING\nRARE", "\ud800", "end\n"]
    want = {k: _index(ENTRIES).get(k) for k in keys}
    lazy = FileIndex(data, "test")
    lazy.BUILD_AFTER = 100                     # a tiny file: every miss scans all of it
    assert {k: lazy.get(k) for k in keys} == want
    assert lazy._index is None and len(lazy) == len(ENTRIES)      # searched, never built
    assert lazy.entries([2, 6, 0], {}) == ["the", "é", "PADDING"]
    lazy.built()
    assert {k: lazy.get(k) for k in keys} == want
    assert list(lazy.ids(keys, -1)) == [-1 if want[k] is None else want[k] for k in keys]


def test_file_index_builds_once_searching_costs_as_much() -> None:
    words = [f"w{i}" for i in range(1000)]
    lazy = FileIndex("".join(w + "\n" for w in words).encode(), "test")
    for n in range(FileIndex.BUILD_AFTER):
        assert lazy.get(f"missing{n}") is None and lazy._index is None
    assert lazy.get("missing") is None and lazy._index is not None
    many = FileIndex("".join(w + "\n" for w in words).encode(), "test")
    assert list(many.ids(words[::-1], -1)) == list(range(999, -1, -1))
    assert many._index is not None                    # many keys at once: built at once


def test_file_index_refuses_duplicates_and_bad_utf8() -> None:
    lazy = FileIndex(b"a\nb\na\n", "dup.lst")
    assert lazy.get("b") == 1
    with pytest.raises(ValueError, match="dup.lst: lists an entry twice"):
        lazy.built()
    with pytest.raises(UnicodeDecodeError):
        FileIndex(b"a\n\xff\n", "bad.lst")


def test_large_vocabulary_file_reads_lazily_and_as_the_eager_vocab(tmp_path) -> None:
    eager = Vocab([f"w{i}" for i in range(LARGE)])
    eager.save(tmp_path / "v.lst")
    lazy = Vocab.load(tmp_path / "v.lst")
    assert isinstance(lazy, FileVocab) and Vocab.load(tmp_path / "v.lst") is lazy
    probe = ["w5", "w9999", "nope", "PADDING", "RARE"]
    assert list(lazy.ids(probe)) == list(eager.ids(probe)) == [7, 10001, 1, 0, 1]
    assert lazy.entries([0, 1, 7]) == ["PADDING", "RARE", "w5"]   # no decoding needed
    assert lazy.index._items is None
    assert len(lazy) == len(eager) and lazy == eager and lazy.items == eager.items
    (tmp_path / "bad.lst").write_bytes(b"PADDING\nRARE\n\xff\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        Vocab.load(tmp_path / "bad.lst")


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_npz_reads_as_np_load(tmp_path, save) -> None:
    arrays = {"a": np.arange(12, dtype=np.float32).reshape(3, 4),
              "b.c": np.asfortranarray(np.ones((2, 3), dtype=np.float16)),
              "rows": np.array([3, 1], dtype=np.int32), "scalar": np.float64(2.5),
              "empty": np.zeros((0, 5), dtype=np.float32)}
    save(tmp_path / "w.npz", **arrays)
    got = load_npz(tmp_path / "w.npz")
    with np.load(tmp_path / "w.npz") as want:
        assert sorted(got) == sorted(want.files)
        for k in want.files:
            assert got[k].dtype == want[k].dtype and np.array_equal(got[k], want[k])


def test_npz_damage_is_an_error(tmp_path) -> None:
    np.savez(tmp_path / "w.npz", a=np.arange(1000, dtype=np.float32))
    data = (tmp_path / "w.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises((zipfile.BadZipFile, ValueError, EOFError, OSError)):
        load_npz(tmp_path / "cut.npz")
    np.savez(tmp_path / "obj.npz", a=np.array([{}], dtype=object))
    with pytest.raises(ValueError):
        load_npz(tmp_path / "obj.npz")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_all_finite(dtype) -> None:
    a = np.random.default_rng(0).standard_normal((600_000, 2)).astype(dtype)
    assert all_finite(a) and all_finite(a[:, ::2]) and all_finite(a[:0])
    for bad in (np.nan, np.inf, -np.inf):
        for at in ((0, 0), (-1, -1), (300_000, 1)):
            b = a.copy()
            b[at] = bad
            assert not all_finite(b)


def test_word_table_rows_located_on_first_read_equal_the_full_table() -> None:
    lazy = load_model(SHIPPED / "pos", shared_tables=True).weights["emb.tables.0.weight"]
    full = load_model(SHIPPED / "pos").weights["emb.tables.0.weight"]
    ids = np.array([0, 1, 2, 5, 77, 5, 4_000, 99_999, 31_337, 0])
    assert np.array_equal(lazy[ids], full[ids])
    located = np.flatnonzero((lazy.src != lazy.UNKNOWN) & (lazy.src >= 0))
    assert len(located) and set(located) <= set(ids)  # only rows read were looked up
    lazy.preload()
    assert not (lazy.src == lazy.UNKNOWN).any()
    assert np.array_equal(lazy[np.arange(len(full))], full)


def test_normalize_words_matches_word_by_word() -> None:
    words = ["ΟΔΟΣ", "ΣΑΣ", "aΣ", "İstanbul", "ABC123def45", "x\ny", "", "12", "ß", "ǅ",
             "ΑΣ.", "a\u0345Σ", "Σ"]
    for k in range(len(words)):
        part = words[k:] + words[:k]
        assert normalize_words(part) == [normalize_word(w) for w in part]
    assert normalize_words([]) == []


def test_spaced_tokens_are_the_split_tokens() -> None:
    line = "The  quick\tbrown fox ."
    spaced = " ".join(line.split())
    toks = SpacedTokens(spaced.split(" "))
    assert toks == split_pretokenized(spaced) and list(toks) == split_pretokenized(spaced)
    assert toks[1] == Token("quick", 4, 9) and toks[-2:] == split_pretokenized(spaced)[-2:]
    assert len(toks) == 5 and repr(toks) == repr(split_pretokenized(spaced))
    doc = pretokenized_document(spaced)
    assert isinstance(doc.sentences[0].tokens, SpacedTokens)
    assert pretokenized_document(line).sentences[0].tokens == split_pretokenized(line)


def test_wsj_rules_over_a_batch_as_sentence_by_sentence() -> None:
    sents = [(['"', "to", "do", '"', "--", "socio", "-", "political", ";"],
              ["``", "IN", "VB", "''", "NFP", "GW", "HYPH", "JJ", ","]),
             (['"', "Hi", '"', ",", "she", "said", "a/b"],
              ["``", "UH", "''", ",", "PRP", "VBD", ","]),
             (["x"], ["ADD"]), ([], [])]
    docs = [Sentence(list(w), {"pos": list(t)}) for w, t in sents]
    apply_tagset(docs)
    assert [s.columns["pos"] for s in docs] == [to_wsj(w, t) for w, t in sents]
    with pytest.raises(ValueError, match="2 words but 1 POS tags"):
        apply_tagset([Sentence(["a", "b"], {"pos": ["DT"]})])


@pytest.fixture(scope="module")
def tagger(models):
    return load(models, ("pos", "chunk", "ner", "pt0", "srl"))


TEXTS = ["The cat sat on the mat .", "", "John runs in New York . The dog is on the mat ,",
         "a", "the  cat   sat"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("opts", [
    OutputOptions(), OutputOptions(("pos", "chunk", "ner", "pt0")),
    OutputOptions(("pos", "ner"), "iob", offsets=True), OutputOptions(("chunk",), "brackets"),
    OutputOptions(("pos", "srl"), "brackets", tokens=False)])
def test_batch_formatting_equals_document_by_document(tagger, fmt, opts) -> None:
    if fmt in ("json", "allennlp", "conllu") and (opts.offsets or not opts.tokens):
        pytest.skip("not a column format")
    docs = tagger.tag_documents([raw_document(t) for t in TEXTS]
                                + [pretokenized_document(t) for t in TEXTS])
    assert format_documents(docs, fmt, opts) == "".join(format_document(d, fmt, opts)
                                                        for d in docs)
    assert format_documents([], fmt, opts) == ""


def test_tag_documents_tags_in_place_and_replaces_columns(tagger) -> None:
    doc = pretokenized_document("The cat sat .")
    doc.sentences[0].columns["ner"] = ["gold"] * 4
    (same,) = tagger.tag_documents([doc])
    assert same is doc and set(doc.sentences[0].columns) == {"pos", "chunk", "ner", "pt0"}
    assert doc.sentences[0].columns["ner"] != ["gold"] * 4
    assert tagger(["The", "cat", "sat", "."]).to_dict() == doc.to_dict()


def test_preload_changes_no_output() -> None:
    text = ["John Smith lives in New York .", "The Xylophone sat on 12 mats ."]
    lazy, eager = load(SHIPPED, ("pos", "ner")), load(SHIPPED, ("pos", "ner"))
    eager.pipeline.preload()
    assert [d.to_dict() for d in lazy.pipe(text)] == [d.to_dict() for d in eager.pipe(text)]


@pytest.mark.parametrize("stack, width", [(3, 7), (5, 16)])
def test_streamed_stacked_layer_equals_the_second_layer_over_padded_sentences(stack, width):
    """The stacked hidden layer, streamed block by block over thousands of words (sentences
    crossing blocks, blocks of odd sizes), gives each sentence's padded windows of the
    outputs below times the weight: the layer `senna.nn.networks.WindowNet` trains."""
    from senna.nn.config import NetConfig
    from senna.runtime.kernels import hardtanh, stacked_layer

    rng = np.random.default_rng(stack)
    lengths = rng.integers(1, 60, size=200).tolist()
    n, h = sum(lengths), 12
    cfg = NetConfig(dims=[4], vocab_sizes=[5], n_tags=3, hidden=h, stack=stack,
                    stack_hidden=width)
    w = {}
    for name, below in cfg.stacked:
        w[f"{name}.weight"] = rng.standard_normal((width, stack * below)).astype(np.float32)
        w[f"{name}.bias"] = rng.standard_normal(width).astype(np.float32)
    pre = rng.standard_normal((n, h)).astype(np.float32) * 2
    cuts = np.unique(np.r_[0, rng.integers(1, n, size=40), n])
    layer = iter([(int(a), pre[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)])
    for name, below in cfg.stacked:
        layer = stacked_layer(layer, n, lengths, w, cfg, name, below)
    out = list(layer)
    assert [lo for lo, _ in out] == np.cumsum([0] + [len(b) for _, b in out])[:-1].tolist()
    got = np.concatenate([b for _, b in out])
    half, want = stack // 2, pre
    for name, _ in cfg.stacked:
        rows, start = [], 0
        for length in lengths:
            padded = np.pad(hardtanh(want[start : start + length].copy()), ((half, half), (0, 0)))
            windows = np.stack([padded[i : i + stack].ravel() for i in range(length)])
            rows.append(windows @ w[f"{name}.weight"].T + w[f"{name}.bias"])
            start += length
        want = np.concatenate(rows)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_distinct_rows_stay_exact_where_the_packed_key_would_overflow():
    from senna.runtime.kernels import distinct_rows

    rng = np.random.default_rng(0)
    # words, spellings and clusters together: the sizes' product is far beyond 2**63
    sizes = [130_000, 20_000, 4098, 514, 66, 6, 3, 3]
    ids = np.stack([rng.integers(0, n, 500) for n in sizes], axis=1)
    ids = np.concatenate([ids, ids[::3]])                     # some rows twice
    rows, inverse = distinct_rows(ids, sizes)
    np.testing.assert_array_equal(rows[inverse], ids)
    assert len(rows) == len(np.unique(ids, axis=0)) == 500


def test_iobes_spans_are_conllevals_for_every_column_they_accept() -> None:
    """The tagger's well-formed IOBES columns take a shortcut; on random columns (broken
    chunks, BILOU, untyped tags, `.` among them) whatever it accepts gives conlleval's
    chunks, and tags_to_spans gives them for every column."""
    from senna.tags import BILOU, _conlleval_spans, _iobes_spans, tags_to_spans

    rng = np.random.default_rng(0)
    accepted = 0
    for _ in range(20_000):
        tags = []
        for _ in range(int(rng.integers(0, 90))):
            prefix = str(rng.choice(list("BIESOOOOLU.")))
            tags.append(prefix if prefix in "O." else
                        f"{prefix}-{rng.choice(['NP', 'ARGM-TMP', ''])}")
        plain = [BILOU[t[0]] + t[1:] if t[:2] in ("L-", "U-") else t for t in tags]
        fast = _iobes_spans(tags)
        if fast is not None:
            accepted += 1
            assert fast == _conlleval_spans(tags)
        assert tags_to_spans(tags) == _conlleval_spans(plain)
    well_formed = ["B-NP", "I-NP", "E-NP", "O", "S-VP"] * 20
    assert _iobes_spans(well_formed) == _conlleval_spans(well_formed)
    assert accepted > 100


def test_tagging_runs_the_collector_less_and_gives_its_setting_back(tagger, monkeypatch) -> None:
    """While a batch is tagged the collector's first threshold is GC_THRESHOLD; after, the
    caller's own, and a collector turned off stays off."""
    import gc

    from senna.api import GC_THRESHOLD

    seen = []
    fill = tagger.pipeline.fill
    monkeypatch.setattr(tagger.pipeline, "fill",
                        lambda *a, **k: (seen.append(gc.get_threshold()[0]), fill(*a, **k)))
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, *before[1:])
        doc = tagger("Mr. Smith flew to Paris.")
        assert seen == [GC_THRESHOLD] and gc.get_threshold()[0] == 700
        assert doc.sentences[0].columns["pos"]
        gc.set_threshold(0, *before[1:])
        tagger("It rains.")
        assert seen[-1] == 0 and gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*before)
