"""Cost of one long sentence against the same words as ordinary sentences:
tokens per second and peak RSS, all tasks, for lines of 1,000, 10,000 and 50,000 tokens.

    python bench/scaling.py [--data ../shared/data] [--lengths 1000,10000,50000] [--repeat 3]

The words are those of bench/speed.py (CoNLL-2003 eng.testa, then the EWT dev set): the
first N tokens' sentences, once as they are ("ordinary") and once joined into one line
("one line"); inputs shorter than --min-tokens repeat that text (20 copies of a 1,000-token
line), so that timings are not lost in the noise of process start-up.  Two measurements,
each in a fresh single-threaded process:

* tagger: `senna.load()` then `tag_documents` on the pre-tokenised input, the CPU time of
  that call alone (load excluded) and the process's peak RSS;
* CLI: `senna -usrtokens < input > /dev/null`, its CPU time (user + system) minus that of
  the same command on an empty input;
  this includes writing the output, whose SRL part has one column per predicate on every
  line, so a line of N words with P predicates prints N x P fields (quadratic in N: for
  50,000 words about 280 million fields, 3 GB), which no tagger can write in time
  proportional to N; lengths above --cli-max are therefore not run through the CLI.

CPU time, not wall time: on a shared machine wall time also counts waiting for a core.  The
median of --repeat runs counts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.speed import ROOT, SOURCES, THREAD_VARS, read_sentences, run_once, senna_command  # noqa: E402

WORKER = """
import sys, time
from senna.api import load, pretokenized_document
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
tagger = load(None, ("pos", "chunk", "ner", "srl"))
docs = [pretokenized_document(line) for line in lines]
t0 = time.process_time()
tagged = tagger.tag_documents(docs)
print(time.process_time() - t0, sum(len(s.predicates) for d in tagged for s in d.sentences))
"""


def first_tokens(sentences: list[list[str]], n: int) -> list[list[str]]:
    """The first sentences holding at least n tokens in all."""
    out, total = [], 0
    for s in sentences:
        if total >= n:
            break
        out.append(s)
        total += len(s)
    return out


def tagger_run(path: Path) -> tuple[float, int, float]:
    """(seconds tagging, predicates, peak RSS MB) of one worker process on a file."""
    env = {**os.environ, **{v: "1" for v in THREAD_VARS}, "PYTHONPATH": str(ROOT)}
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        res = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, sys.executable,
                              "-c", WORKER, str(path)], env=env, capture_output=True, text=True)
        if res.returncode:
            raise RuntimeError(res.stderr)
        rss = int(report.read().split()[-1]) / 1024
    seconds, preds = res.stdout.split()
    return float(seconds), int(preds), rss


def median_run(fn, repeat: int):
    runs = [fn() for _ in range(repeat)]
    return [statistics.median(r[i] for r in runs) for i in range(len(runs[0]))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--lengths", default="1000,10000,50000",
                   help="comma-separated sentence lengths in tokens")
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    p.add_argument("--min-tokens", type=int, default=20000,
                   help="repeat shorter inputs up to this many tokens")
    p.add_argument("--srl-train", default=None,
                   help="SRL training file whose arguments are counted against the window "
                        "(default: ewt/ewt.train.verbs-args.conll under --data)")
    p.add_argument("--cli-max", type=int, default=10000,
                   help="longest line run through the CLI (its output grows as N x P)")
    a = p.parse_args(argv)
    if not os.access("/usr/bin/time", os.X_OK):
        raise SystemExit("needs /usr/bin/time for peak RSS (apt-get install time)")
    sentences = [s for src in SOURCES for s in read_sentences(Path(a.data) / src)]
    rows = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.txt"
        empty.write_text("", encoding="utf-8")
        base = senna_command() + ["-usrtokens"]
        load = statistics.median(run_once(base, empty).cpu for _ in range(a.repeat))
        for n in (int(x) for x in a.lengths.split(",")):
            chosen = first_tokens(sentences, n)
            length = sum(map(len, chosen))
            copies = max(1, a.min_tokens // length)
            tokens = length * copies
            files = {"ordinary": Path(tmp) / f"ordinary{n}.txt",
                     "one line": Path(tmp) / f"long{n}.txt"}
            files["ordinary"].write_text("".join(" ".join(s) + "\n" for s in chosen) * copies)
            files["one line"].write_text((" ".join(w for s in chosen for w in s) + "\n")
                                         * copies)
            result = {}
            for shape, path in files.items():
                print(f"{n} {shape} ...", file=sys.stderr, flush=True)
                secs, preds, rss = median_run(lambda path=path: tagger_run(path), a.repeat)
                cli = None
                if n <= a.cli_max:
                    wall, out_rss = median_run(
                        lambda path=path: _cli(base, path), a.repeat)
                    cli = (wall - load, out_rss, _output_bytes(base, path))
                result[shape] = (secs, int(preds), rss, cli)
            rows.append((length, tokens, result))
    print(arguments_beyond(Path(a.srl_train or Path(a.data) / "ewt/ewt.train.verbs-args.conll")))
    print(f"Words of {', '.join(SOURCES)}; all four tasks (POS, CHK, NER, SRL); one thread; "
          f"median of {a.repeat}; load average {load_before:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs (shared machine)\n")
    print("| N | shape | tokens (copies) | predicates | tagger tokens/s "
          "| time per token vs ordinary "
          "| tagger peak RSS (MB) | CLI tokens/s (excl. load) | CLI vs ordinary "
          "| CLI peak RSS (MB) | output (MB) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for length, tokens, result in rows:
        base_secs, _, _, base_cli = result["ordinary"]
        for shape, (secs, preds, rss, cli) in result.items():
            ratio = secs / base_secs
            cells = ["—"] * 4
            if cli is not None:
                cells = [f"{tokens / cli[0]:,.0f}", f"{cli[0] / base_cli[0]:.2f}x",
                         f"{cli[1]:.0f}", f"{cli[2] / 1e6:.1f}"]
            print(f"| {length:,} | {shape} | {tokens:,} ({tokens // length}) | {preds:,} "
                  f"| {tokens / secs:,.0f} | {ratio:.2f}x "
                  f"| {rss:.0f} | {' | '.join(cells)} |")
    print("\nTagger: `senna.load()` and `Tagger.tag_documents` on the pre-tokenised lines, "
          "CPU time of the tagging call only.  CLI: `" + " ".join(senna_command()) +
          " -usrtokens < input > /dev/null`, CPU time minus that of the same command on an "
          f"empty input ({load:.2f} s).  Peak RSS: /usr/bin/time, whole process (models "
          "included).")
    return 0


def arguments_beyond(path: Path) -> str:
    """How many gold arguments (V spans excepted) reach further from their predicate than the
    window SRL uses in long sentences, and how many sentences are long enough to use it."""
    from senna.io.conll import read_srl
    from senna.runtime.model import SRL_EXACT, SRL_RADIUS
    from senna.tags import brackets_to_spans

    sentences = read_srl(path)
    far = total = 0
    for s in sentences:
        for p, column in zip(s.predicates, s.roles, strict=True):
            for label, start, end in brackets_to_spans(column):
                if label != "V":
                    total += 1
                    far += max(p - start, end - 1 - p) > SRL_RADIUS
    long = sum(len(s.words) > SRL_EXACT for s in sentences)
    return (f"{path.name}: {far:,} of {total:,} arguments ({100 * far / total:.1f}%) reach "
            f"more than SRL_RADIUS = {SRL_RADIUS} words from their predicate; {long} of "
            f"{len(sentences):,} sentences are longer than SRL_EXACT = {SRL_EXACT} words\n")


def _cli(base: list[str], path: Path) -> tuple[float, float]:
    run = run_once(base, path)
    return run.cpu, run.rss_mb


def _output_bytes(base: list[str], path: Path) -> int:
    """Size of the CLI's output for this input (counted, not kept)."""
    env = {**os.environ, **{v: "1" for v in THREAD_VARS}}
    with open(path, "rb") as inp:
        proc = subprocess.Popen(base, stdin=inp, stdout=subprocess.PIPE, env=env)
        assert proc.stdout is not None
        size = sum(len(chunk) for chunk in iter(lambda: proc.stdout.read(1 << 20), b""))
        proc.wait()
    return size


if __name__ == "__main__":
    t = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - t:.0f} s)", file=sys.stderr)
    sys.exit(code)
