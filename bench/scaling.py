"""Cost of one long line against the same words as ordinary sentences: CPU time per token and
peak RSS, all five tasks, through the CLI and the API, for lines of 1,000, 10,000 and 50,000
tokens (and 362,000, a 2 MB line, with --huge).

    python bench/scaling.py [--data ../shared/data] [--lengths 1000,10000,50000] [--huge]
                            [--repeat 1] [--unpunctuated]

The words are those of bench/speed.py (CoNLL-2003 eng.testa, then the EWT dev set, again
from the start when N needs more): the first N tokens' sentences, once as they are, one
sentence per line ("ordinary"), and once joined into one line ("one line"); inputs shorter
than --min-tokens repeat that text (20 copies of a 1,000-token line), so that timings are
not lost in the noise of process start-up.  With --unpunctuated the punctuation tokens are
dropped and "ordinary" is the remaining words as sentences of 20 (text without punctuation,
dense with verbs, gives the pieces no boundary to cut at).  Every case runs in a fresh
single-threaded process, measured with /usr/bin/time:

* CLI: `python -m senna -usrtokens --tasks pos,chk,ner,pt0,srl < input > file`, CPU time
  (user + system) minus that of the same command on an empty input, peak RSS, output size;
* API: `senna.load()` then `Tagger.pipe(lines, batch_size=512)` (the CLI's batch with SRL),
  each document dropped when done; CPU time of the tagging alone, peak RSS.

Targets: a long line costs at most 2x the time per token and 2x the peak memory of the same
words as ordinary sentences (sentences beyond senna.text.pieces.MAX_WORDS words are tagged
and written in pieces).  CPU time, not wall time: on a shared machine wall time also counts
waiting for a core.  The median of --repeat runs counts (the largest RSS).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import cycle
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.speed import ROOT, SOURCES, THREAD_VARS, read_sentences  # noqa: E402

TASKS = "pos,chk,ner,pt0,srl"
HUGE = 362_000
WORKER = """
import sys, time
from senna.api import load
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
tagger = load(None, sys.argv[2].split(","))
t0 = time.process_time()
tokens = predicates = 0
for doc in tagger.pipe([line.split(" ") for line in lines], batch_size=512):
    tokens += sum(len(s.words) for s in doc.sentences)
    predicates += sum(len(s.predicates) for s in doc.sentences)
print(time.process_time() - t0, tokens, predicates)
"""


def first_tokens(sentences: list[list[str]], n: int) -> list[list[str]]:
    """The first sentences holding at least n tokens in all (from the start again when the
    sentences hold fewer)."""
    out, total = [], 0
    for s in cycle(sentences):
        if total >= n:
            break
        out.append(s)
        total += len(s)
    return out


def unpunctuated(sentences: list[list[str]], size: int = 20) -> list[list[str]]:
    """The words that are not punctuation, as sentences of `size`."""
    words = [w for s in sentences for w in s if any(c.isalnum() for c in w)]
    return [words[i : i + size] for i in range(0, len(words), size)]


def measured(cmd: list[str], stdin: Path | None) -> tuple[float, float, str, int]:
    """(CPU seconds, peak RSS MB, stdout, stdout bytes) of one fresh process; the output
    goes to a file, counted and dropped."""
    env = {**os.environ, **{v: "1" for v in THREAD_VARS}, "PYTHONPATH": str(ROOT)}
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report, \
            tempfile.TemporaryFile() as out, open(stdin or os.devnull, "rb") as inp:
        res = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", report.name, *cmd],
                             stdin=inp, stdout=out, stderr=subprocess.PIPE, env=env)
        if res.returncode:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr.decode()}")
        user, system, rss = report.read().split()[-3:]
        size = out.seek(0, os.SEEK_END)
        out.seek(0)
        text = out.read(4096).decode("utf-8", "replace") if size < 4096 else ""
    return float(user) + float(system), int(rss) / 1024, text, size


def median_run(fn, repeat: int) -> tuple:
    runs = [fn() for _ in range(repeat)]
    return tuple(statistics.median(r[i] for r in runs) if i != 1 else max(r[1] for r in runs)
                 for i in range(len(runs[0])))


def cli_case(path: Path, base: float) -> tuple[float, float, int]:
    secs, rss, _, size = measured([sys.executable, "-m", "senna", "-usrtokens", "--tasks",
                                   TASKS], path)
    return secs - base, rss, size


def api_case(path: Path) -> tuple[float, float, int]:
    _, rss, text, _ = measured([sys.executable, "-c", WORKER, str(path),
                                "pos,chunk,ner,pt0,srl"], None)
    secs, _, preds = text.split()
    return float(secs), rss, int(preds)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--lengths", default="1000,10000,50000",
                   help="comma-separated line lengths in tokens")
    p.add_argument("--huge", action="store_true",
                   help=f"also a line of {HUGE:,} tokens (about 2 MB; minutes)")
    p.add_argument("--repeat", type=int, default=1, help="runs per measurement (median)")
    p.add_argument("--min-tokens", type=int, default=20000,
                   help="repeat shorter inputs up to this many tokens")
    p.add_argument("--unpunctuated", action="store_true",
                   help="drop punctuation; ordinary = sentences of 20 of the other words")
    a = p.parse_args(argv)
    if not os.access("/usr/bin/time", os.X_OK):
        raise SystemExit("needs /usr/bin/time for peak RSS (apt-get install time)")
    sentences = [s for src in SOURCES for s in read_sentences(Path(a.data) / src)]
    if a.unpunctuated:
        sentences = unpunctuated(sentences)
    lengths = [int(x) for x in a.lengths.split(",")] + ([HUGE] if a.huge else [])
    load_before = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.txt"
        empty.write_text("", encoding="utf-8")
        base = statistics.median(measured([sys.executable, "-m", "senna", "-usrtokens",
                                           "--tasks", TASKS], empty)[0]
                                 for _ in range(a.repeat))
        for n in lengths:
            chosen = first_tokens(sentences, n)
            length = sum(map(len, chosen))
            copies = max(1, a.min_tokens // length)
            files = {"ordinary": Path(tmp) / f"ordinary{n}.txt",
                     "one line": Path(tmp) / f"long{n}.txt"}
            files["ordinary"].write_text("".join(" ".join(s) + "\n" for s in chosen) * copies)
            files["one line"].write_text((" ".join(w for s in chosen for w in s) + "\n")
                                         * copies)
            result = {}
            for shape, path in files.items():
                print(f"{n} {shape} ...", file=sys.stderr, flush=True)
                cli = median_run(lambda path=path: cli_case(path, base), a.repeat)
                api = median_run(lambda path=path: api_case(path), a.repeat)
                result[shape] = (cli, api)
            rows.append((length, length * copies, result))
    bare = " without punctuation" if a.unpunctuated else ""
    print(f"Words of {', '.join(SOURCES)}{bare}; all five tasks ({TASKS}); one thread; median of "
          f"{a.repeat}; load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} "
          f"after, on {os.cpu_count()} CPUs\n")
    print("| N | shape | tokens (copies) | predicates | CLI tokens/s | CLI time/token vs "
          "ordinary | CLI peak RSS (MB) | CLI RSS vs ordinary | output (MB) | API tokens/s "
          "| API time/token vs ordinary | API peak RSS (MB) | API RSS vs ordinary |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for length, tokens, result in rows:
        (bcli, bapi) = result["ordinary"]
        for shape, (cli, api) in result.items():
            print(f"| {length:,} | {shape} | {tokens:,} ({tokens // length}) | {api[2]:,} "
                  f"| {tokens / cli[0]:,.0f} | {cli[0] / bcli[0]:.2f}x | {cli[1]:.0f} "
                  f"| {cli[1] / bcli[1]:.2f}x | {cli[2] / 1e6:.1f} "
                  f"| {tokens / api[0]:,.0f} | {api[0] / bapi[0]:.2f}x | {api[1]:.0f} "
                  f"| {api[1] / bapi[1]:.2f}x |")
    print(f"\nCLI: `python -m senna -usrtokens --tasks {TASKS} < input > file`, CPU time "
          f"minus that of the same command on an empty input ({base:.2f} s).  API: "
          "`senna.load()` and `Tagger.pipe(batch_size=512)`, CPU time of the tagging only.  "
          "Peak RSS: /usr/bin/time, whole process (models included).")
    return 0


if __name__ == "__main__":
    t = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - t:.0f} s)", file=sys.stderr)
    sys.exit(code)
