"""`senna serve` against clients that try to stall it: huge texts, deeply nested JSON,
requests whose SRL output would be enormous, requests that time out, more requests than
slots, connections that never finish their headers (docs/reliability.md, "Server
limits").  Skipped without the `serve` extra."""

from __future__ import annotations

import socket
import threading
import time
import warnings
from collections.abc import Callable

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("httpx")

from conftest import SERVE_TEXT as TEXT  # noqa: E402
from conftest import start_server  # noqa: E402

with warnings.catch_warnings():   # Starlette 1.x asks for httpx2; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

import senna  # noqa: E402
from senna.integrations import view  # noqa: E402
from senna.serve.app import Limits, create_app  # noqa: E402

VERBS = "go " * 30   # 30 tokens, about half of them predicates


@pytest.fixture(scope="module")
def tagger():
    return senna.load(tasks=["pos", "chunk", "ner", "pt0", "srl"])


def wait_until(condition: Callable[[], object], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.02)


def on_model(monkeypatch, tagger, task: str, method: str,
             before: Callable[[tuple], None] | None = None) -> list[int]:
    """Count calls of `method` of `task`'s model, in every copy of the models (a server
    loads a second one for large requests), running `before(args)` first; restored after
    the test."""
    calls = [0]
    cls = type(tagger.pipeline.models[task])
    orig = getattr(cls, method)

    def wrapped(self, *args, **kwargs):
        if self.task == task:
            calls[0] += 1
            if before:
                before(args)
        return orig(self, *args, **kwargs)

    monkeypatch.setattr(cls, method, wrapped)
    return calls


@pytest.mark.parametrize("body", [b"[" * 100_000, b'{"text": ' + b"[" * 100_000,
                                  b"[" * 100_000 + b"]" * 100_000],
                         ids=["open", "in-text", "closed"])
def test_deeply_nested_json_is_a_400(tagger, body):
    with TestClient(create_app(tagger)) as c:
        r = c.post("/tag", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400 and "nested too deeply" in r.json()["error"]
        assert c.post("/tag", json={"text": "Fine.", "tasks": ["pos"]}).status_code == 200


def test_a_refused_request_is_answered_after_the_refusal_delay(tagger):
    """A client looping on bad requests waits without costing the server CPU; good requests
    are not delayed."""
    with TestClient(create_app(tagger, Limits(refusal_delay_s=0.5))) as c:
        for bad in ({"text": "a " * 100_000}, {"text": 3}, {"tokens": [[""]]}):
            t0 = time.monotonic()
            assert c.post("/tag", json=bad).status_code in (413, 422)
            assert time.monotonic() - t0 >= 0.5
        t0 = time.monotonic()
        r = c.post("/tag", content=b"[" * 100_000, headers={"content-type": "application/json"})
        assert r.status_code == 400 and time.monotonic() - t0 >= 0.5
        t0 = time.monotonic()
        assert c.post("/tag", json={"text": "Fine.", "tasks": ["pos"]}).status_code == 200
        assert time.monotonic() - t0 < 0.5


def test_too_many_words_are_refused_before_tokenising(tagger, monkeypatch):
    """100,000 words in 200 KB (under the body limit): the 413 comes from counting words,
    without tokenising."""
    def never(text):
        raise AssertionError("tokenised")

    with TestClient(create_app(tagger)) as c:
        monkeypatch.setattr(tagger, "document", never)
        r = c.post("/tag", json={"text": "a " * 100_000})
        assert r.status_code == 413 and "over 5000 words" in r.json()["error"]


def test_too_many_role_tags_are_refused_before_srl(tagger, monkeypatch):
    srl = on_model(monkeypatch, tagger, "srl", "predict_role_windows")
    with TestClient(create_app(tagger, Limits(max_roles=100))) as c:
        r = c.post("/tag", json={"text": VERBS})
        assert r.status_code == 413 and "SRL role tags" in r.json()["error"]
        assert srl[0] == 0
        assert c.post("/tag", json={"text": VERBS, "tasks": ["pos"]}).status_code == 200
        assert c.post("/tag", json={"text": "The cat sat."}).status_code == 200


def test_role_tags_at_the_limit_are_tagged_as_usual(tagger):
    """Predicates found before SRL (to count role tags) give SRL's usual frames."""
    want = tagger(VERBS).sentences[0]
    roles = len(want.predicates) * len(want.words)
    assert len(want.predicates) > 1
    with TestClient(create_app(tagger, Limits(max_roles=roles))) as c:
        r = c.post("/tag", json={"text": VERBS})
        assert r.status_code == 200
        frames = r.json()["documents"][0]["sentences"][0]["predicates"]
        assert [(f["index"], f["tags"]) for f in frames] == view.frames(want)


def test_timed_out_work_stops(tagger, monkeypatch):
    """POS takes 0.5 s here, the request may take 0.2 s: the cascade stops at its next
    stage, and SRL never runs."""
    on_model(monkeypatch, tagger, "pos", "predict", lambda args: time.sleep(0.5))
    srl = on_model(monkeypatch, tagger, "srl", "predict_role_windows")
    with TestClient(create_app(tagger, Limits(timeout_s=0.2))) as c:
        r = c.post("/tag", json={"text": TEXT})
        assert r.status_code == 503 and "took over 0.2 s" in r.json()["error"]
        wait_until(lambda: srl[0] or c.get("/health").json()["tagged"].get("stopped"))
        assert srl[0] == 0


def gated_pos(monkeypatch, tagger, min_tokens: int) -> tuple[threading.Event, threading.Event]:
    """POS on a batch of at least `min_tokens` tokens waits for `gate`; `entered` says it
    has started waiting."""
    gate, entered = threading.Event(), threading.Event()

    def hold(args):
        if sum(map(len, args[0])) >= min_tokens:
            entered.set()
            gate.wait(60)

    on_model(monkeypatch, tagger, "pos", "predict", hold)
    return gate, entered


def test_a_large_request_does_not_hold_small_ones(tagger, monkeypatch):
    """The large request waits in POS until the small one is answered."""
    gate, entered = gated_pos(monkeypatch, tagger, 100)
    done: list[str] = []

    def post(c, name, text):
        assert c.post("/tag", json={"text": text}).status_code == 200
        done.append(name)

    with TestClient(create_app(tagger, Limits(small_tokens=50))) as c:
        large = threading.Thread(target=post, args=(c, "large", TEXT * 10))
        large.start()
        assert entered.wait(60)
        post(c, "small", "The cat sat.")
        gate.set()
        large.join(60)
    assert done == ["small", "large"]


def test_large_requests_are_tagged_as_small_ones(tagger):
    with TestClient(create_app(tagger, Limits(small_tokens=5))) as c:
        r = c.post("/tag", json={"text": TEXT})
        assert r.status_code == 200
    with TestClient(create_app(tagger)) as c:
        assert c.post("/tag", json={"text": TEXT}).json() == r.json()


def test_a_busy_server_says_so_with_retry_after(tagger, monkeypatch):
    gate, entered = gated_pos(monkeypatch, tagger, 1)
    with TestClient(create_app(tagger, Limits(max_pending=1, busy_wait_s=0.1))) as c:
        first: list = []
        t = threading.Thread(target=lambda: first.append(c.post("/tag", json={"text": TEXT})))
        t.start()
        assert entered.wait(30)
        r = c.post("/tag", json={"text": "The cat sat."})
        gate.set()
        t.join(60)
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert "busy" in r.json()["error"]
        assert first[0].status_code == 200


@pytest.fixture(scope="module")
def impatient_server():
    yield from start_server("--header-timeout", "1", "--keep-alive", "1")


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes `sock` within `seconds` (reading what it sends)."""
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        pass
    return True


@pytest.mark.parametrize("partial", [b"", b"POST /tag HTT",
                                     b"POST /tag HTTP/1.1\r\nHost: x\r\nContent-Le"],
                         ids=["nothing", "request-line", "headers"])
def test_a_connection_that_never_finishes_its_headers_is_closed(impatient_server, partial):
    with socket.create_connection(("127.0.0.1", impatient_server[1])) as s:
        s.sendall(partial)
        assert closed_within(s, 20)


def test_a_stalled_second_request_on_a_kept_alive_connection_is_closed(impatient_server):
    with socket.create_connection(("127.0.0.1", impatient_server[1])) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        s.settimeout(20)
        assert s.recv(4096).startswith(b"HTTP/1.1 200")
        s.sendall(b"GET /hea")
        assert closed_within(s, 20)
