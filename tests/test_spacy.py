"""The spaCy component against spaCy from PyPI: entry point, annotations, nlp.pipe with
n_process, DocBin round trip.  Skipped where spaCy is not installed (extra `spacy`)."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
from collections import Counter, defaultdict

import pytest
from conftest import ROOT

spacy = pytest.importorskip("spacy")

from spacy.tokens import DocBin  # noqa: E402

import senna  # noqa: E402
from senna.integrations import view  # noqa: E402
from senna.integrations.spacy import UPOS, upos  # noqa: E402

TASKS = ["pos", "chunk", "ner", "pt0", "srl"]
TEXTS = ["John Smith flew to Paris on Monday to meet the board.  It rained in New York.",
         "The cat sat on the mat.\n\nA dog, which barked, ran to Mary Jones in London.",
         "", "   ", "Hello"]


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("senna", config={"tasks": TASKS})
    return nlp


@pytest.fixture(scope="module")
def tagger():
    return senna.load(tasks=TASKS)


def annotations(doc) -> dict:
    """Everything the component sets, as plain data."""
    return {"tags": [(t.text, t.tag_, t.pos_) for t in doc],
            "ents": [(e.start, e.end, e.label_) for e in doc.ents],
            "chunks": [(s.start, s.end, s.label_) for s in doc.spans["chunks"]],
            "pt0": [(s.start, s.end, s.label_) for s in doc.spans["pt0"]],
            "srl": [(f.predicate.i, [(a.start, a.end, a.label_) for a in f.arguments])
                    for f in doc._.srl]}


def test_factory_is_found_through_the_entry_point(tmp_path):
    """A fresh interpreter that never imports senna: spaCy finds the factory through the
    `spacy_factories` entry point that pyproject.toml declares (installed here as a
    minimal dist-info, since the editable install may predate it)."""
    found = re.search(r'\[project\.entry-points\.spacy_factories\]\nsenna = "([^"]+)"',
                      (ROOT / "pyproject.toml").read_text())
    assert found, "pyproject.toml declares no spacy_factories entry point"
    target = found.group(1)
    info = tmp_path / "senna_entry-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: senna-entry\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text(f"[spacy_factories]\nsenna = {target}\n")
    code = ("import spacy; nlp = spacy.blank('en'); "
            "nlp.add_pipe('senna', config={'tasks': ['pos']}); "
            "print([t.tag_ for t in nlp('The cat sat .')])")
    env = {"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['DT', 'NN', 'VBD', '.']"


def test_tags_spacy_tokens_as_the_tagger_tags_the_words(nlp, tagger):
    """Each sentence's non-space tokens get exactly what the tagger gives those words."""
    doc = nlp(TEXTS[1])
    got = annotations(doc)
    for sent in doc.sents:
        idx = [t.i for t in sent if not t.is_space]
        tsent = tagger([doc[i].text for i in idx]).sentences[0]
        assert [doc[i].tag_ for i in idx] == view.tags(tsent, "pos")
        for key, task in (("ents", "ner"), ("chunks", "chunk"), ("pt0", "pt0")):
            want = [(idx[s], idx[e - 1] + 1, label) for label, s, e in view.spans(tsent, task)]
            assert [x for x in got[key] if sent.start <= x[0] < sent.end] == want
        frames = [(idx[p], [(idx[s], idx[e - 1] + 1, label)
                            for label, s, e in view.arguments(tags) if label != "V"])
                  for p, tags in view.frames(tsent)]
        assert [f for f in got["srl"] if sent.start <= f[0] < sent.end] == frames
    assert [t.tag_ for t in doc if t.is_space] == ["_SP"]
    assert len(list(doc.sents)) == 2


def test_what_a_user_sees(nlp):
    doc = nlp("John Smith flew to Paris on Monday.")
    assert [(t.text, t.tag_, t.pos_) for t in doc[:3]] == [
        ("John", "NNP", "PROPN"), ("Smith", "NNP", "PROPN"), ("flew", "VBD", "VERB")]
    assert [(e.text, e.label_) for e in doc.ents] == [("John Smith", "PER"), ("Paris", "LOC")]
    assert ("John Smith", "NP") in [(s.text, s.label_) for s in doc.spans["chunks"]]
    (frame,) = doc._.srl
    assert frame.predicate.text == "flew"
    # the flyer: ARG0 or ARG1 by the model (PropBank's fly.01 allows both readings)
    assert {("ARG0", "John Smith"), ("ARG1", "John Smith")} & {
        (a.label_, a.text) for a in frame.arguments}


def test_keeps_sentence_boundaries_set_earlier():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer", config={"punct_chars": [";"]})
    nlp.add_pipe("senna", config={"tasks": ["pos"]})
    doc = nlp("He came; she left. They stayed.")
    assert [s.text for s in doc.sents] == ["He came;", "she left. They stayed."]
    assert all(t.tag_ for t in doc)


def test_empty_and_space_only_docs(nlp):
    assert len(nlp("")) == 0
    doc = nlp("   ")
    assert [t.tag_ for t in doc] == ["_SP"] and doc._.srl == [] and not doc.ents


def test_pipe_batches_and_processes_agree(nlp):
    one = [annotations(d) for d in map(nlp, TEXTS)]
    assert [annotations(d) for d in nlp.pipe(TEXTS, batch_size=2)] == one
    assert [annotations(d) for d in nlp.pipe(TEXTS, batch_size=2, n_process=2)] == one


def test_docbin_round_trip(nlp):
    docs = list(nlp.pipe(TEXTS))
    data = DocBin(store_user_data=True, docs=docs).to_bytes()
    fresh = spacy.blank("en")
    back = list(DocBin().from_bytes(data).get_docs(fresh.vocab))
    assert [annotations(d) for d in back] == [annotations(d) for d in docs]


def test_component_pickles_as_its_settings(nlp):
    comp = pickle.loads(pickle.dumps(nlp.get_pipe("senna")))
    doc = spacy.blank("en")("The cat sat .")
    assert [t.tag_ for t in comp(doc)] == ["DT", "NN", "VBD", "."]


def test_unknown_task_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown task"):
        spacy.blank("en").add_pipe("senna", config={"tasks": ["parse"]})


def test_upos_map_agrees_with_ud_ewt(data_dir):
    """The PTB -> UPOS map reproduces EWT's gold UPOS from its gold XPOS on the dev set
    (the map cannot split IN into ADP/SCONJ or VB* into VERB/AUX beyond "be")."""
    path = data_dir / "ewt" / "en_ewt-ud-dev.conllu"
    hits, total, seen = 0, 0, defaultdict(Counter)
    for line in path.read_text(encoding="utf-8").splitlines():
        f = line.split("\t")
        if len(f) == 10 and f[0].isdigit():
            total += 1
            hits += upos(f[4], f[1]) == f[3]
            seen[f[4]][f[3]] += 1
    assert set(seen) <= set(UPOS)
    assert hits / total > 0.93


def test_tags_set_in_bulk_are_those_set_token_by_token(nlp, tagger):
    """POS goes in with one Doc.from_array: each token's tag_ and pos_ are what setting
    them one by one from the tagger's tags gives, on tokens that are not plain words (a
    zero-width space inside, a no-break space alone, a merged "New York", a line break)."""
    from senna.integrations.spacy import tagger_word

    doc = nlp.make_doc("It is\u200b here and\u00a0 it was\n\nthere. Bob met him in New York now.")
    with doc.retokenize() as r:
        r.merge(doc[-4:-2])
    doc = nlp.get_pipe("senna")(doc)
    for sent in doc.sents:
        idx = [t.i for t in sent if tagger_word(t.text)]
        tags = view.tags(tagger([tagger_word(doc[i].text) for i in idx]).sentences[0], "pos")
        want = dict(zip(idx, tags, strict=True))
        assert [(t.tag_, t.pos_) for t in sent] == [
            (want[t.i], upos(want[t.i], t.text)) if t.i in want else ("_SP", "SPACE")
            for t in sent]
    assert doc[1].tag_ == "VBZ" and doc[1].pos_ == "VERB"   # "is" + zero-width space
    assert "New York" in [t.text for t in doc]
