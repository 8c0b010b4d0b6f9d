"""Load on `senna serve` over loopback: N clients POST sentences to
/tag for a fixed time; prints throughput, latency percentiles and failures.

    python bench/serve_load.py [--clients 8] [--seconds 30] [--tasks pos,chunk,ner,pt0,srl]
        [--url http://127.0.0.1:PORT]   # default: start `senna serve` on a free port

Requests are sentences of EWT dev (`--data ../shared/data`, `ewt/ewt.dev.pos`), sent as
text, each client in its own thread with one keep-alive connection (http.client), one
request at a time: closed-loop load, bounded by the number of clients and the duration.
Only loopback addresses are accepted.  A request fails on any status but 200.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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


def client(url: str, texts: list[str], offset: int, stop: float, tasks: list[str],
           out: list) -> None:
    """One closed-loop client: (latency s, ok, tokens) per request until `stop`."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    i = offset
    while time.monotonic() < stop:
        body = json.dumps({"text": texts[i % len(texts)], "tasks": tasks})
        i += 1
        started = time.perf_counter()
        try:
            conn.request("POST", "/tag", body, {"Content-Type": "application/json"})
            reply = conn.getresponse()
            data = reply.read()
            ok = reply.status == 200
            tokens = sum(len(s["tokens"]) for s in json.loads(data)["sentences"]) if ok else 0
        except (OSError, http.client.HTTPException, ValueError):
            ok, tokens = False, 0
            conn.close()
            conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        out.append((time.perf_counter() - started, ok, tokens))
    conn.close()


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", help="a running server (loopback only); default: start one")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--tasks", default="pos,chunk,ner,pt0,srl")
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
    try:
        results: list[list] = [[] for _ in range(a.clients)]
        stop = time.monotonic() + a.seconds
        threads = [threading.Thread(target=client, args=(url, texts, i * 97, stop,
                                                         a.tasks.split(","), results[i]))
                   for i in range(a.clients)]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - started
        stats = json.load(urllib.request.urlopen(url + "/health", timeout=10)).get("tagged")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    flat = [r for rs in results for r in rs]
    ok = [r for r in flat if r[1]]
    lat = [r[0] * 1000 for r in ok]
    print(f"{a.clients} clients, {wall:.1f} s, tasks {a.tasks}, EWT dev sentences as text\n")
    print("| requests | failed | requests/s | tokens/s | p50 (ms) | p99 (ms) | max (ms) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {len(flat):,} | {len(flat) - len(ok)} | {len(ok) / wall:,.1f} "
          f"| {sum(r[2] for r in ok) / wall:,.0f} | {percentile(lat, 50):.1f} "
          f"| {percentile(lat, 99):.1f} | {max(lat):.1f} |")
    if stats and stats.get("batches"):
        print(f"\nserver: {stats['requests']:,} requests tagged in {stats['batches']:,} "
              f"batches ({stats['requests'] / stats['batches']:.1f} requests per batch)")
    if len(ok) != len(flat):
        sys.exit(1)


if __name__ == "__main__":
    main()
