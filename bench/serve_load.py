"""Load on `senna serve` over loopback: N clients POST sentences to /tag for a fixed time;
prints throughput, latency percentiles and failures.  `--mixed` adds hostile clients
beside them, one of each kind (docs/reliability.md, "Server limits").

    python bench/serve_load.py [--clients 8] [--seconds 30] [--tasks pos,chunk,ner,pt0,srl]
        [--mixed] [--url http://127.0.0.1:PORT]   # default: start `senna serve` on a free port

Requests are sentences of EWT dev (`--data ../shared/data`, `ewt/ewt.dev.pos`), sent as
text, each client in its own thread with one keep-alive connection (http.client), one
request at a time: closed-loop load, bounded by the number of clients and the duration.
Only loopback addresses are accepted.  A good request fails on any status but 200.

The hostile clients of `--mixed`, each also closed-loop, in a process of their own: `huge`
sends 200 KB of text holding 100,000 words; `nested` 100,000 nested `[`; `verbs` 4,999
words that are all verbs, about 2,500 predicates (12.5 million SRL role tags);
`slowloris` opens a connection and sends its headers a line per second, never finishing
them, then opens another once the server closes it; `idle` holds 1,100 connections that
never send a byte, reopening each one the server closes; `abandon` sends 4,500 words
asking for the parser and closes the connection at once; `halfclose` sends a sentence and
shuts its sending side (`shutdown(SHUT_WR)`) in a loop; `expensive` sends a valid 499-word
sentence asking for `psg` and `srl`, closed-loop.  Each client connects from a loopback
address of its own (good ones from 127.0.1.N, hostile ones from 127.0.2.N), as distinct
machines would.  Their answers are counted by status (for slowloris: the seconds each
connection stayed open; for idle: the connections the server closed; for abandon and
halfclose: the requests sent).  With a server it started, the
script also reports the server's peak memory (VmHWM).
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import multiprocessing
import os
import selectors
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = {"huge": lambda: json.dumps({"text": "a " * 100_000}),
           "nested": lambda: "[" * 100_000,
           "verbs": lambda: json.dumps({"text": "go " * 4999}),
           "expensive": lambda: json.dumps({"tokens": (
               "the company said it would sell the unit to a group of investors led by "
               "its chairman ,".split() * 30)[:499], "tasks": ["psg", "srl"]})}
RAW = ("slowloris", "idle", "abandon", "halfclose")   # clients on sockets of their own
HOSTILE_ADDRESS = {k: f"127.0.2.{i + 1}" for i, k in enumerate([*HOSTILE, *RAW])}


def sentences(path: Path) -> list[str]:
    out, words = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            words.append(line.split("\t")[0])
        elif words:
            out.append(" ".join(words))
            words = []
    return out + ([" ".join(words)] if words else [])


def start_server(tasks: str) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen([sys.executable, "-m", "senna.cli.main", "serve", "--port",
                             str(port), "--tasks", tasks], env=env)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/health", timeout=1)
            return proc, url
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start")


def client(url: str, body: Callable[[int], str], stop: float, out: list,
           good: bool, source: str = "127.0.0.1") -> None:
    """One closed-loop client from the address `source`: (latency s, status, tokens) per
    request until `stop`; status 0 for a connection error.  Tokens are counted in good
    requests' answers."""
    parts = urllib.parse.urlsplit(url)
    address = (source, 0)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60,
                                      source_address=address)
    i = 0
    while time.monotonic() < stop:
        data = body(i)
        i += 1
        started = time.perf_counter()
        try:
            conn.request("POST", "/tag", data, {"Content-Type": "application/json"})
            reply = conn.getresponse()
            answer = reply.read()
            status = reply.status
            tokens = sum(len(s["tokens"]) for d in json.loads(answer)["documents"]
                         for s in d["sentences"]) if good and status == 200 else 0
        except (OSError, http.client.HTTPException, ValueError):
            status, tokens = 0, 0
            conn.close()
            conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60,
                                              source_address=address)
        out.append((time.perf_counter() - started, status, tokens))
    conn.close()


def slowloris(url: str, stop: float, out: list) -> None:
    """Connections whose headers never end (a line a second): seconds each stayed open,
    until the server closed it (those still open at `stop` are not counted)."""
    parts = urllib.parse.urlsplit(url)
    while time.monotonic() < stop:
        started = time.perf_counter()
        with socket.create_connection((parts.hostname, parts.port), source_address=(
                HOSTILE_ADDRESS["slowloris"], 0)) as s:
            s.settimeout(1)
            try:
                s.sendall(b"POST /tag HTTP/1.1\r\nHost: x\r\n")
                while time.monotonic() < stop:
                    try:
                        if not s.recv(4096):
                            break
                    except TimeoutError:
                        s.sendall(b"X-Wait: 1\r\n")
                else:
                    return
            except OSError:
                pass
        out.append(time.perf_counter() - started)


def idle(url: str, stop: float, out: list, count: int = 1100) -> None:
    """`count` connections that never send a byte, each reopened once the server closes
    it; one entry in `out` per connection the server closed."""
    parts = urllib.parse.urlsplit(url)
    where, source = (parts.hostname, parts.port), (HOSTILE_ADDRESS["idle"], 0)
    sel = selectors.DefaultSelector()
    for _ in range(count):
        sel.register(socket.create_connection(where, source_address=source),
                     selectors.EVENT_READ)
    while time.monotonic() < stop:
        for key, _ in sel.select(timeout=0.5):
            sock = key.fileobj
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                sel.unregister(sock)
                sock.close()
                out.append(1)
                try:
                    sel.register(socket.create_connection(where, source_address=source),
                                 selectors.EVENT_READ)
                except OSError:
                    time.sleep(0.01)
    for key in list(sel.get_map().values()):
        key.fileobj.close()


def leaving(url: str, kind: str, stop: float, out: list) -> None:
    """Whole requests, each followed at once by a close (`abandon`: 4,500 words with the
    parser) or a half-close (`halfclose`: one sentence, then the answer read if any)."""
    parts = urllib.parse.urlsplit(url)
    text = ("word " * 4500 if kind == "abandon" else
            "The company said it would sell the unit to investors .")
    data = json.dumps({"text": text, "tasks": ["psg"] if kind == "abandon" else ["pos"]}
                      ).encode()
    request = (b"POST /tag HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n%s" % (len(data), data))
    while time.monotonic() < stop:
        try:
            with socket.create_connection((parts.hostname, parts.port), source_address=(
                    HOSTILE_ADDRESS[kind], 0)) as s:
                s.sendall(request)
                if kind == "halfclose":
                    s.shutdown(socket.SHUT_WR)
                    s.settimeout(1)
                    while s.recv(4096):
                        pass
        except OSError:
            pass
        out.append(1)
        time.sleep(0.01)


def hostile_clients(url: str, kinds: list[str], stop: float, out: multiprocessing.Queue
                    ) -> None:
    """One thread per hostile client until `stop`; puts ({kind: results}, slowloris's
    seconds) on `out`.  Run in a process of its own, so that the good clients' threads do
    not share an interpreter with them (as they would not share a machine)."""
    results: dict[str, list] = {kind: [] for kind in kinds if kind in HOSTILE}
    held: list[float] = []
    bodies = {kind: HOSTILE[kind]() for kind in results}
    threads = [threading.Thread(target=client, args=(url, lambda i, d=bodies[kind]: d,
                                                     stop, results[kind], False,
                                                     HOSTILE_ADDRESS[kind]))
               for kind in results]
    if "slowloris" in kinds:
        threads.append(threading.Thread(target=slowloris, args=(url, stop, held)))
    counted: dict[str, list] = {kind: [] for kind in kinds if kind in RAW[1:]}
    if "idle" in kinds:
        threads.append(threading.Thread(target=idle, args=(url, stop, counted["idle"])))
    threads += [threading.Thread(target=leaving, args=(url, kind, stop, counted[kind]))
                for kind in ("abandon", "halfclose") if kind in kinds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put((results, held, {kind: len(v) for kind, v in counted.items()}))


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))] if s else float("nan")


def peak_memory_mb(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    kb = next((int(line.split()[1]) for line in status.splitlines()
               if line.startswith("VmHWM:")), None)
    return kb / 1024 if kb is not None else None


def report_hostile(results: dict[str, list], held: list[float] | None,
                   counted: dict[str, int]) -> None:
    print("\n| hostile client | requests | answers (status: count) | p50 (ms) | max (ms) |")
    print("|---|---:|---|---:|---:|")
    for kind, rs in results.items():
        codes = collections.Counter(r[1] for r in rs)
        lat = [r[0] * 1000 for r in rs]
        print(f"| {kind} | {len(rs):,} | "
              f"{', '.join(f'{c}: {n:,}' for c, n in sorted(codes.items()))} | "
              f"{percentile(lat, 50):.1f} | {max(lat, default=float('nan')):.1f} |")
    what = {"idle": "connections closed by the server", "abandon": "requests sent and "
            "abandoned", "halfclose": "requests sent and half-closed"}
    for kind, n in counted.items():
        print(f"| {kind} | {n:,} {what[kind]} | | | |")
    if held is None:
        return
    print(f"| slowloris | {len(held)} connections | closed by the server after "
          f"{', '.join(f'{h:.1f}' for h in held) or '(none closed)'} s | | |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", help="a running server (loopback only); default: start one")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--tasks", default="pos,chunk,ner,pt0,srl")
    p.add_argument("--mixed", action="store_true",
                   help="add hostile clients: huge text, nested JSON, many verbs, slowloris, "
                        "idle connections, abandoned and half-closed requests, an "
                        "expensive in-limit client")
    p.add_argument("--hostile", default=",".join([*HOSTILE, *RAW]),
                   help="which hostile clients --mixed starts (default all)")
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    a = p.parse_args()
    texts = sentences(a.data / "ewt" / "ewt.dev.pos")
    proc = None
    if a.url:
        host = urllib.parse.urlsplit(a.url).hostname or ""
        if not (host == "localhost" or host.startswith("127.") or host == "::1"):
            raise SystemExit("--url must be a loopback address")
        url = a.url
    else:
        proc, url = start_server(a.tasks)
    tasks = a.tasks.split(",")
    try:
        results: list[list] = [[] for _ in range(a.clients)]
        kinds = a.hostile.split(",") if a.mixed else []
        if set(kinds) - {*HOSTILE, *RAW}:
            raise SystemExit(f"--hostile takes {', '.join([*HOSTILE, *RAW])}")
        stop = time.monotonic() + a.seconds
        queue: multiprocessing.Queue = multiprocessing.Queue()
        others = multiprocessing.Process(target=hostile_clients, args=(url, kinds, stop, queue))
        if kinds:
            others.start()

        def good_body(offset: int) -> Callable[[int], str]:
            return lambda i: json.dumps({"text": texts[(offset + i) % len(texts)],
                                         "tasks": tasks})

        threads = [threading.Thread(target=client, args=(url, good_body(i * 97), stop,
                                                         results[i], True, f"127.0.1.{i + 1}"))
                   for i in range(a.clients)]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - started
        hostile, held, counted = queue.get(timeout=60) if kinds else ({}, [], {})
        if kinds:
            others.join()
        stats = json.load(urllib.request.urlopen(url + "/health", timeout=10)).get("tagged")
        memory = peak_memory_mb(proc.pid) if proc is not None else None
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    flat = [r for rs in results for r in rs]
    ok = [r for r in flat if r[1] == 200]
    lat = [r[0] * 1000 for r in ok]
    extra = f" beside {len(kinds)} hostile ({', '.join(kinds)})" if kinds else ""
    print(f"{a.clients} clients{extra}, {wall:.1f} s, tasks {a.tasks}, "
          "EWT dev sentences as text\n")
    print("| requests | failed | requests/s | tokens/s | p50 (ms) | p99 (ms) | max (ms) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {len(flat):,} | {len(flat) - len(ok)} | {len(ok) / wall:,.1f} "
          f"| {sum(r[2] for r in ok) / wall:,.0f} | {percentile(lat, 50):.1f} "
          f"| {percentile(lat, 99):.1f} | {max(lat, default=float('nan')):.1f} |")
    if a.mixed:
        report_hostile(hostile, held if "slowloris" in kinds else None, counted)
    if stats and stats.get("batches"):
        print(f"\nserver: {stats['requests']:,} requests tagged in {stats['batches']:,} "
              f"batches ({stats['requests'] / stats['batches']:.1f} requests per batch)")
    if memory is not None:
        print(f"server peak memory: {memory:,.0f} MB")
    if len(ok) != len(flat):
        sys.exit(1)


if __name__ == "__main__":
    main()
