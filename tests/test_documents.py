"""One type per name in a document (senna.decode.documents), alone and as the runtime and
evaluation apply it."""

from __future__ import annotations

import pytest

from senna.api import Tagger, load
from senna.decode.documents import consistent_types
from senna.document import Document, Sentence
from senna.runtime.pipeline import Pipeline
from senna.runtime.predict import predict_gold_inputs
from senna.tasks import TASKS

STORY = [["Bill", "Clinton", "met", "Dole", "."],
         ["Clinton", "said", "Dole", "lost", "."],
         ["Clinton", "'s", "aides", "agreed", "."]]
TAGS = [["B-PER", "E-PER", "O", "S-PER", "O"],
        ["S-ORG", "O", "S-LOC", "O", "O"],
        ["S-PER", "O", "O", "O", "O"]]


def test_a_name_takes_its_documents_majority_type():
    out = consistent_types(STORY, TAGS, [0, 0, 0])
    # "Clinton": S-PER once, inside "Bill Clinton" (PER) once, S-ORG once -> PER
    assert out[1][0] == "S-PER"
    # "Dole": PER once, LOC once: a tie keeps each span's own type
    assert out[0][3] == "S-PER" and out[1][2] == "S-LOC"
    assert out[0] == TAGS[0] and out[2] == TAGS[2]


def test_documents_do_not_vote_for_each_other():
    assert consistent_types(STORY, TAGS, [0, 1, 2]) == TAGS
    assert consistent_types(STORY, TAGS) == TAGS          # each sentence alone


def test_boundaries_and_other_schemes_are_kept():
    words = [["New", "York", "and", "York", "."], ["York", "won", "."]]
    tags = [["B-LOC", "I-LOC", "O", "B-ORG", "O"], ["B-ORG", "O", "O"]]
    # IOB2: "York" (ORG twice) against its place inside "New York" (LOC once) -> ORG stays
    assert consistent_types(words, tags, [0, 0], scheme="iob2") == tags
    tags[1][0] = "B-LOC"   # now LOC has two votes ("New York"'s York, York) against ORG's one
    assert consistent_types(words, tags, [0, 0], scheme="iob2")[0][3] == "B-LOC"


def test_lowercase_words_of_a_long_name_do_not_vote():
    words = [["Bank", "of", "England", "."], ["of", "."]]
    tags = [["B-ORG", "I-ORG", "E-ORG", "O"], ["S-MISC", "O"]]
    assert consistent_types(words, tags, [0, 0]) == tags


def test_mismatched_lengths_are_a_clear_error():
    with pytest.raises(ValueError, match="as many"):
        consistent_types(STORY, TAGS[:2])
    with pytest.raises(ValueError, match="documents"):
        consistent_types(STORY, TAGS, [0])


SENTS = [["John", "runs", "in", "New", "York", "."], ["New", "York", "is", "a", "cat", "."],
         ["John", "sat", "on", "the", "mat"], ["John", "."],
         ["the", "dog", "and", "John", "sat", "in", "York"]]


def test_the_pipeline_votes_inside_each_document(models):
    plain = [s.columns["ner"] for s in Pipeline(models, ["ner"], documents=False).tag(SENTS)]
    pipe = Pipeline(models, ["ner"])
    one_doc = [s.columns["ner"] for s in pipe.tag(SENTS, docs=[0] * len(SENTS))]
    assert one_doc == consistent_types(SENTS, plain, [0] * len(SENTS))
    assert one_doc != plain          # the tiny model's tags do conflict: the vote acted
    assert [s.columns["ner"] for s in pipe.tag(SENTS)] == consistent_types(SENTS, plain)
    # the API: one Document is one document, two are two
    tagger = Tagger(pipe)
    docs = [Document("", [Sentence(list(w)) for w in SENTS])]
    assert [s.columns["ner"] for s in tagger.tag_documents(docs)[0].sentences] == one_doc
    split = [Document("", [Sentence(list(w))]) for w in SENTS]
    assert [d.sentences[0].columns["ner"] for d in tagger.tag_documents(split)] == \
        consistent_types(SENTS, plain)
    off = load(models, ["ner"], documents=False)
    assert [s.columns["ner"] for s in off.tag_documents(docs)[0].sentences] == plain


def test_evaluation_reads_the_sentences_documents(models):
    model = Pipeline(models, ["ner"]).models["ner"]
    sents = [Sentence(list(w), doc=0) for w in SENTS]
    plain = predict_gold_inputs(model, TASKS["ner"], sents, documents=False)
    assert plain == model.predict(SENTS)
    assert predict_gold_inputs(model, TASKS["ner"], sents) == \
        consistent_types(SENTS, plain, [0] * len(SENTS))


def test_a_word_of_longer_names_outvotes_its_own_span():
    """No name gets two types by its own words alone: "Clinton" (ORG once) against the
    "Clinton" of "Bill Clinton" (PER twice): PER wins (the fast path must see this)."""
    words = [["Bill", "Clinton", "won"], ["Clinton", "lost"], ["Bill", "Clinton", "."]]
    tags = [["B-PER", "E-PER", "O"], ["S-ORG", "O"], ["B-PER", "E-PER", "O"]]
    assert consistent_types(words, tags, [0, 0, 0])[1] == ["S-PER", "O"]
    assert consistent_types(words, tags, [0, 1, 0])[1] == ["S-ORG", "O"]

