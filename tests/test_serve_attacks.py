"""`senna serve` against clients that attack its connections and its fairness, over
loopback: idle connections held by the hundred, requests abandoned or half-closed as soon
as sent, and one client's expensive requests beside another's small ones.  Clients
connect from distinct loopback addresses (127.0.0.2, ...), as distinct machines would.
Skipped without the `serve` extra."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from conftest import ROOT, free_port  # noqa: E402
from conftest import SERVE_TEXT as TEXT  # noqa: E402
from test_serve_limits import on_model, wait_until  # noqa: E402

import senna  # noqa: E402
from senna.serve.app import Limits, create_app  # noqa: E402
from senna.serve.server import server  # noqa: E402

GOOD = "127.0.0.1"


@pytest.fixture(scope="module")
def tagger():
    return senna.load(tasks=["pos", "chunk", "ner", "pt0", "srl"])


def post(port: int, body: dict, source: str = GOOD, timeout: float = 30
         ) -> tuple[int, dict]:
    """POST /tag from the address `source`: the status and the JSON answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(source, 0))
    try:
        conn.request("POST", "/tag", json.dumps(body), {"Content-Type": "application/json"})
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read())
    finally:
        conn.close()


def health(port: int) -> dict:
    return json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10))


class InThread:
    """The app on uvicorn in a thread of this process (so that tests can slow its models
    down), with senna.serve.server's connection layer."""

    def __init__(self, tagger, limits: Limits):
        self.port = free_port()
        self.server = server(create_app(tagger, limits), "127.0.0.1", self.port, limits)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> int:
        self.thread.start()
        wait_until(lambda: self.server.started, 30)
        return self.port

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(30)


def send(port: int, body: dict) -> socket.socket:
    """A whole request sent from 127.0.0.2, its answer not read."""
    s = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
    data = json.dumps(body).encode()
    s.sendall(b"POST /tag HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n%s" % (len(data), data))
    return s


def leave(s: socket.socket, how: str) -> None:
    """Close the connection, or half-close it (shut its sending side) and close it later."""
    if how == "close":
        s.close()
    else:
        s.shutdown(socket.SHUT_WR)
        threading.Timer(20, s.close).start()


def held_pos(monkeypatch, tagger, first_word: str, task: str = "pos"
             ) -> tuple[threading.Event, threading.Event]:
    """`task` (POS) on a batch whose first word is `first_word` waits for `gate` (10 s at most);
    `entered` says it has started waiting."""
    gate, entered = threading.Event(), threading.Event()

    def hold(args):
        if args[0] and args[0][0] and args[0][0][0] == first_word:
            entered.set()
            gate.wait(10)

    on_model(monkeypatch, tagger, task, "predict", hold)
    return gate, entered


@pytest.mark.parametrize("how", ["close", "half-close"])
def test_an_abandoned_request_frees_its_slot_and_stops_its_work(tagger, monkeypatch, how):
    """The only slot is taken by a request whose client leaves while POS runs: the slot is
    free again at once (not after the 10 s deadline), SRL never runs for it, and the next
    client is served."""
    gate, entered = held_pos(monkeypatch, tagger, "Abandoned")
    srl = on_model(monkeypatch, tagger, "srl", "predict_role_windows")
    with InThread(tagger, Limits(max_pending=1, busy_wait_s=0.2)) as port:
        s = send(port, {"text": "Abandoned " + TEXT})
        assert entered.wait(30)
        leave(s, how)
        wait_until(lambda: health(port)["pending"] == 0, 5)
        gate.set()
        status, answer = post(port, {"text": "The cat sat."})
        assert status == 200, answer
        wait_until(lambda: health(port)["tagged"]["stopped"] >= 1, 10)
        assert health(port)["abandoned"] == 1 and srl[0] == 1   # the good request's SRL


@pytest.mark.parametrize("how", ["close", "half-close"])
def test_a_request_abandoned_at_once_is_never_tagged(tagger, monkeypatch, how):
    pos = on_model(monkeypatch, tagger, "pos", "predict")
    with InThread(tagger, Limits(refusal_delay_s=0)) as port:
        leave(send(port, {"text": "Abandoned " + TEXT * 20}), how)
        wait_until(lambda: health(port)["abandoned"] == 1, 10)
        assert health(port)["pending"] == 0 and pos[0] == 0
        assert post(port, {"text": "The cat sat."})[0] == 200


def test_one_clients_requests_wait_behind_its_own_not_others(tagger, monkeypatch):
    """Client 127.0.0.2 has three requests queued (the first held in POS); a request of
    127.0.0.3 that comes after them is tagged after the second, not after the third (each
    asks for other tasks, so that none is batched with another)."""
    order: list[str] = []
    on_model(monkeypatch, tagger, "ner", "predict", lambda args: order.append(args[0][0][0]))
    gate, entered = held_pos(monkeypatch, tagger, "First", "ner")
    with InThread(tagger, Limits()) as port:
        threads = []

        def ask(word: str, source: str) -> None:   # other tasks: tagged in batches of one
            tasks = ["ner", {"First": "ner", "Second": "pos", "Third": "chunk",
                             "Other": "pt0"}[word]]
            t = threading.Thread(target=post, args=(port, {"text": f"{word} ran home.",
                                                           "tasks": tasks}, source))
            t.start()
            threads.append(t)

        ask("First", "127.0.0.2")
        assert entered.wait(30)
        ask("Second", "127.0.0.2")
        wait_until(lambda: health(port)["tagged"]["queued"] == 1, 10)   # before Third
        ask("Third", "127.0.0.2")
        wait_until(lambda: health(port)["tagged"]["queued"] == 2, 10)   # tokenised, queued
        ask("Other", "127.0.0.3")
        wait_until(lambda: health(port)["tagged"]["queued"] == 3, 10)
        gate.set()
        for t in threads:
            t.join(30)
    assert order == ["First", "Second", "Other", "Third"]


def test_an_expensive_short_request_does_not_hold_small_ones(tagger, monkeypatch):
    """40 tokens with SRL cost more than `small_cost`: the request goes to the large lane
    and a small POS request is answered while it is held."""
    gate, entered = held_pos(monkeypatch, tagger, "Costly")
    done: list[str] = []

    def ask(port: int, name: str, body: dict, source: str) -> None:
        assert post(port, body, source)[0] == 200
        done.append(name)

    with InThread(tagger, Limits(small_cost=400)) as port:
        costly = threading.Thread(target=ask, args=(
            port, "costly", {"text": "Costly " + "they saw it " * 13}, "127.0.0.2"))
        costly.start()
        assert entered.wait(30)
        ask(port, "small", {"text": "The cat sat.", "tasks": ["pos"]}, GOOD)
        gate.set()
        costly.join(30)
    assert done == ["small", "costly"]


def start_serve(tmp_path: Path, *options: str) -> Iterator[tuple[int, Path]]:
    """`senna serve` as a user starts it (POS only), its log in a file: (port, log)."""
    port = free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    with log.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "senna.cli.main", "serve", "--port",
                                 str(port), "--tasks", "pos", *options], env=env,
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        wait_until(lambda: proc.poll() is not None or _up(port), 60)
        assert proc.poll() is None, log.read_text()
        yield port, log
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _up(port: int) -> bool:
    try:
        health(port)
        return True
    except OSError:
        return False


def closed_sockets(socks: list[socket.socket]) -> int:
    """How many of `socks` the server has closed (reading without waiting)."""
    n = 0
    for s in socks:
        s.setblocking(False)
        try:
            n += s.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            n += 1
    return n


@pytest.fixture
def idle_server(tmp_path) -> Iterator[tuple[int, Path]]:
    yield from start_serve(tmp_path, "--header-timeout", "60", "--client-idle", "4",
                           "--max-idle", "20")


@pytest.mark.parametrize("sources", [["127.0.0.2"] * 300,
                                     [f"127.0.0.{k}" for k in range(10, 60)]],
                         ids=["one-address", "fifty-addresses"])
def test_idle_connections_do_not_take_a_requests_place(idle_server, sources):
    """Hundreds of connections that never send a byte: those over the per-address and
    overall idle limits are closed at once (not after the 60 s header timeout), a request
    from another address is served, and the log says so in one line, not one a
    connection."""
    port, log = idle_server
    socks = [socket.create_connection(("127.0.0.1", port), source_address=(a, 0))
             for a in sources]
    try:
        limit = 4 if len(set(sources)) == 1 else 20
        wait_until(lambda: closed_sockets(socks) >= len(socks) - limit, 10)
        status, answer = post(port, {"text": "He went home."})
        assert status == 200 and answer["documents"][0]["sentences"][0]["tokens"]
    finally:
        for s in socks:
            s.close()
    lines = [line for line in log.read_text().splitlines() if "connection" in line]
    assert len(lines) == 1 and "closed" in lines[0]


def test_many_idle_connections_of_good_clients_survive_an_attack(idle_server):
    """A good client's idle keep-alive connection is not closed for another address's
    idle connections."""
    port, _ = idle_server
    good = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    good.request("GET", "/health")
    assert good.getresponse().read()
    socks = [socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
             for _ in range(100)]
    try:
        wait_until(lambda: closed_sockets(socks) >= 96, 10)
        good.request("POST", "/tag", json.dumps({"text": "Fine."}),
                     {"Content-Type": "application/json"})
        assert good.getresponse().status == 200
    finally:
        good.close()
        for s in socks:
            s.close()


