"""`senna serve`: the API in-process (Starlette's TestClient), bad requests, batching of
concurrent requests, and the real server on loopback.  Skipped without the `serve` extra."""

from __future__ import annotations

import json
import re
import socket
import urllib.request
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import SERVE_TEXT as TEXT

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("httpx")

with warnings.catch_warnings():   # Starlette 1.x asks for httpx2; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

import senna  # noqa: E402
from senna.integrations import view  # noqa: E402
from senna.serve.app import Limits, create_app  # noqa: E402


@pytest.fixture(scope="module")
def tagger():
    return senna.load(tasks=["pos", "chunk", "ner", "pt0", "srl"])


@pytest.fixture(scope="module")
def client(tagger):
    with TestClient(create_app(tagger, Limits(max_body_bytes=4000, max_tokens=60))) as c:
        yield c


def test_health(client):
    r = client.get("/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["tasks"] == ["pos", "chunk", "ner", "pt0",
                                                                 "srl"]


def test_tag_text_returns_what_the_tagger_says(client, tagger):
    """The JSON is `Document.to_dict(tasks)`, as `senna --format json` prints it."""
    r = client.post("/tag", json={"text": TEXT})
    assert r.status_code == 200
    assert r.json() == {"documents": [tagger(TEXT).to_dict(tagger.tasks)]}
    got = r.json()["documents"][0]["sentences"]
    assert len(got) == 2 and [e["text"] for e in got[0]["entities"]] == ["John Smith", "Paris"]
    assert got[0]["predicates"][0]["word"] == "flew"


def test_the_json_is_what_the_cli_prints(client, tagger):
    """One document per sentence given as tokens, each the line `senna -usrtokens
    --format json` prints for it."""
    from senna.io.output import OutputOptions, format_document

    sents = [["John", "lives", "in", "Paris", "."], ["The", "cat", "sat", "."]]
    r = client.post("/tag", json={"tokens": sents, "tasks": ["pos", "ner", "srl"]})
    opts = OutputOptions(("pos", "ner", "srl"))
    lines = [json.loads(format_document(tagger(s), "json", opts)) for s in sents]
    assert r.json() == {"documents": lines}


def test_tasks_subset_and_formats(client, tagger):
    r = client.post("/tag", json={"text": "The cat sat.", "tasks": ["pos"]})
    (doc,) = r.json()["documents"]
    (sent,) = doc["sentences"]
    assert set(sent) == {"tokens"} and [t["pos"] for t in sent["tokens"]] == [
        "DT", "NN", "VBD", "."]
    assert set(sent["tokens"][0]) == {"text", "start", "end", "pos"}
    r = client.post("/tag", json={"text": "The cat sat.", "tasks": "srl", "format": "allennlp"})
    assert r.json()["sentences"][0]["verbs"][0]["verb"] == "sat"
    r = client.post("/tag", json={"tokens": [["The", "cat"], ["sat"]], "tasks": ["pos"],
                                  "format": "conll"})
    want = [view.tags(tagger(s).sentences[0], "pos") for s in (["The", "cat"], ["sat"])]
    assert r.json()["output"] == f"The\t{want[0][0]}\ncat\t{want[0][1]}\n\nsat\t{want[1][0]}\n\n"
    r = client.post("/tag", json={"tokens": ["A", "cat", "."], "tasks": ["pos"]})
    assert [t["text"] for t in r.json()["documents"][0]["sentences"][0]["tokens"]] == [
        "A", "cat", "."]


@pytest.mark.parametrize("body, status, message", [
    (b'{"text": ', 400, "invalid JSON"),
    (b"\xff\xfe", 400, "invalid JSON"),
    (b'["a"]', 422, "must be a JSON object"),
    (b'{"text": 3}', 422, "'text' must be a string"),
    (b'{"tokens": ["a", 3]}', 422, "'tokens' must be"),
    (b'{"tokens": ["a b"]}', 422, "'tokens' must be"),
    (b'{"text": "a", "tokens": ["a"]}', 422, "exactly one"),
    (b'{}', 422, "exactly one"),
    (b'{"text": "a", "tasks": 5}', 422, "'tasks' must be"),
    (b'{"text": "a", "tasks": ["parse"]}', 422, "unknown task 'parse'"),
    (b'{"text": "a", "format": "xml"}', 422, "'format' must be"),
    (b'{"text": "a", "lang": "fr"}', 422, "unknown field"),
    (json.dumps({"text": "word " * 61}).encode(), 413, "over 60 words; the limit is 60"),
    (json.dumps({"text": "word, " * 31}).encode(), 413, "62 tokens; the limit is 60"),
    (json.dumps({"tokens": [["a"] * 30, ["b"] * 31]}).encode(), 413, "the limit is 60"),
    (json.dumps({"text": "x" * 5000}).encode(), 413, "body over 4000 bytes"),
    (b'{"text": "a \\ud800 b"}', 400, "lone surrogate U+D800 in 'text' at character 2"),
    (b'{"tokens": ["a", "\\udc80"]}', 400, "lone surrogate U+DC80 in 'tokens' in token 2"),
    (b'{"tokens": [["a"], ["b\\udbff"]]}', 400, "lone surrogate U+DBFF"),
    (b'{"text": "a", "tasks": ["\\ud800"]}', 422, "unknown task"),
    (b'{"text": "a", "\\udfff": 1}', 422, "unknown field"),
])
def test_bad_requests_get_a_clear_4xx_and_the_server_keeps_serving(client, body, status,
                                                                   message):
    r = client.post("/tag", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status
    assert message in r.json()["error"]
    assert client.post("/tag", json={"text": "Fine.", "tasks": ["pos"]}).status_code == 200


def test_unknown_routes_and_methods_are_json_errors(client):
    assert client.get("/nope").json() == {"error": "Not Found"}
    assert client.get("/tag").status_code == 405
    assert client.get("/static/../app.py").status_code == 404


def test_task_not_served(tagger):
    small = senna.load(tasks=["pos"])
    with TestClient(create_app(small)) as c:
        r = c.post("/tag", json={"text": "a", "tasks": ["ner"]})
        assert r.status_code == 422 and "this server runs pos" in r.json()["error"]


def test_timeout_is_a_503(tagger):
    """The body arrives at once; tagging ~3,000 tokens with all tasks takes far longer than
    50 ms (about 0.4 s at 7,000 tokens/s)."""
    with TestClient(create_app(tagger, Limits(timeout_s=0.05))) as c:
        r = c.post("/tag", json={"text": TEXT * 200})
        assert r.status_code == 503 and "took over" in r.json()["error"]


def test_page_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and 'id="text"' in page.text
    assert "drawSentence" in client.get("/static/app.js").text
    assert client.get("/static/style.css").status_code == 200


def test_concurrent_requests_are_batched_with_the_same_results(client):
    texts = [f"Mary met Bob in Rome {i} times. They left." for i in range(12)]
    serial = [client.post("/tag", json={"text": t}).json() for t in texts]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda t: client.post("/tag", json={"text": t}).json(), texts))
    assert together == serial


def test_real_server_tags_and_survives_a_slow_client(server):
    url, port = server
    with socket.create_connection(("127.0.0.1", port)) as s:   # sends 10 of 100 bytes
        s.sendall(b"POST /tag HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100\r\n\r\n{\"text\": ")
        s.settimeout(10)
        reply = b""
        while b"\r\n\r\n" not in reply or len(reply.partition(b"\r\n\r\n")[2]) < int(
                re.search(rb"content-length: (\d+)", reply, re.I).group(1)):
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
        reply = reply.decode()
    assert reply.startswith("HTTP/1.1 408") and "not received within 2 s" in reply
    req = urllib.request.Request(url + "/tag", data=json.dumps({"text": TEXT}).encode(),
                                 headers={"Content-Type": "application/json"})
    body = json.load(urllib.request.urlopen(req, timeout=30))
    assert body["documents"][0]["sentences"][0]["entities"][0] == {
        "label": "PER", "start": 0, "end": 2, "text": "John Smith"}


def test_binds_to_loopback_by_default():
    from senna.cli.serve import parser

    assert parser().parse_args([]).host == "127.0.0.1"
