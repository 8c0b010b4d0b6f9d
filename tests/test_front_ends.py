"""The same text gives the same annotations from every front end: the `senna` command, the
Python API, the spaCy component, the HTTP server and `tag-corpus` (one partition, tagged as a
Dask worker tags it).  Lines of 1, 129, 300 and 5,000 words: a line is one document, and
a sentence longer than the pieces it is tagged in stays one sentence everywhere."""

from __future__ import annotations

import io
import json
import random
import warnings

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import senna
from senna.cli import tag as cli
from senna.integrations.corpus import make_job, plan
from senna.integrations.corpus_dask import tag_partition

TASKS = ["pos", "chunk", "ner", "srl"]
CLI_TASKS = ["-pos", "-chk", "-ner", "-srl"]
NAMES = ["John", "Smith", "Mary", "Paris", "London", "Reuters", "Monday", "Germany"]
WORDS = ["flew", "to", "the", "city", "and", "said", "that", "he", "saw", "a", "dog", "in",
         "reported", "on", "visited", "old", "friends", "who", "live", "there", ","]


def line_of(n: int, seed: int) -> str:
    """A line of n words: one sentence (no full stop inside), names and verbs among them."""
    rng = random.Random(seed)
    words = [rng.choice(NAMES)] + [rng.choice(NAMES + WORDS * 2) for _ in range(n - 2)]
    return " ".join(words + ["."] if n > 1 else words)


@pytest.fixture(scope="module")
def tagger():
    return senna.load(tasks=TASKS)


@pytest.fixture(scope="module")
def client(tagger):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from senna.serve.app import Limits, create_app

    limits = Limits(max_body_bytes=1 << 20, max_tokens=20_000, max_roles=10**8,
                    timeout_s=120)
    with TestClient(create_app(tagger, limits)) as c:
        yield c


@pytest.fixture(scope="module")
def nlp(tagger):
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    nlp.add_pipe("senna", config={"tasks": TASKS})
    return nlp


def by_cli(lines: list[str]) -> list[dict]:
    out = io.BytesIO()
    text = "".join(line + "\n" for line in lines).encode()
    assert cli.main(["--format", "json", *CLI_TASKS], io.BytesIO(text), out) == 0
    return [json.loads(line) for line in out.getvalue().decode().splitlines()]


def by_corpus(lines: list[str], tmp_path, tagger) -> list[dict]:
    source = tmp_path / "lines.txt"
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    job = make_job([str(source)], TASKS, formats=("jsonl",))
    out = tmp_path / "out"
    out.mkdir()
    docs = []
    for part in plan(job):
        tag_partition(part, str(out), job, tagger)
        for row in (out / f"{part.name}.jsonl").read_text(encoding="utf-8").splitlines():
            doc = json.loads(row)
            del doc["id"]
            docs.append(doc)
    return docs


def spacy_view(doc: dict) -> dict:
    """What the spaCy component shows of a document's dict: tokens and their tags, and
    entities, chunks and frames with offsets into the whole document."""
    tokens, ents, chunks, frames, at = [], [], [], [], 0
    for s in doc["sentences"]:
        tokens += [(t["text"], t["pos"]) for t in s["tokens"]]
        ents += [(e["label"], at + e["start"], at + e["end"]) for e in s["entities"]]
        chunks += [(c["label"], at + c["start"], at + c["end"]) for c in s["chunks"]]
        frames += [(at + p["index"], [(a["label"], at + a["start"], at + a["end"])
                                      for a in p["arguments"] if a["label"] != "V"])
                   for p in s["predicates"]]
        at += len(s["tokens"])
    return {"tokens": tokens, "ents": ents, "chunks": chunks, "frames": frames}


def spacy_doc_view(doc) -> dict:
    return {"tokens": [(t.text, t.tag_) for t in doc if not t.is_space],
            "ents": [(e.label_, e.start, e.end) for e in doc.ents],
            "chunks": [(c.label_, c.start, c.end) for c in doc.spans["chunks"]],
            "frames": [(f.predicate.i, [(a.label_, a.start, a.end) for a in f.arguments])
                       for f in doc._.srl]}


@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from([1, 12, 129, 300, 5000]), st.integers(0, 99)),
                min_size=1, max_size=3))
@example([(5000, 3)])
@example([(1, 0), (129, 1), (300, 2)])
def test_every_front_end_gives_the_api_s_annotations(tagger, client, nlp, tmp_path_factory,
                                                     shape):
    lines = [line_of(n, seed) for n, seed in shape]
    want = [tagger(line).to_dict(TASKS) for line in lines]
    assert [len(d["sentences"]) for d in want] == [1] * len(lines)   # one sentence a line
    assert by_cli(lines) == want
    served = [client.post("/tag", json={"text": line, "tasks": TASKS}) for line in lines]
    assert [r.status_code for r in served] == [200] * len(lines)
    assert [r.json()["documents"][0] for r in served] == want
    assert by_corpus(lines, tmp_path_factory.mktemp("corpus"), tagger) == want
    assert [spacy_doc_view(d) for d in nlp.pipe(lines)] == [spacy_view(d) for d in want]


def test_the_long_lines_are_tagged_in_pieces(tagger):
    """The property above covers sentences longer than the pieces they are tagged in."""
    from senna.text.pieces import MAX_WORDS

    doc = tagger(line_of(300, 1))
    assert len(doc.sentences) == 1 and len(doc.sentences[0].words) == 300 > MAX_WORDS
