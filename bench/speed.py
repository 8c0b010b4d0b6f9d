"""Tagging speed of the `senna` command beside SENNA v3.0's: tokens per
second for -pos, -chk, -ner, -srl alone and all four together (with a parser model, -psg
alone and all five too), model load time, the time of a one-sentence run and peak RSS, on the
words of CoNLL-2003 eng.testa and the EWT dev set fed with -usrtokens (one sentence per line,
tokens separated by spaces).

    python bench/speed.py [--data ../shared/data] [--model-dir DIR] [--repeat 3]

Every measurement is one `senna` process, single-threaded (OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS and MKL_NUM_THREADS are 1 in its environment), whose stdout goes to
/dev/null.  A timing covers the whole command: process start, imports, model loading and
tagging.  Load time is the same command on an empty input; "excl. load" subtracts it.
The tokens/s rows run with `--preload`: the tagger otherwise builds a large dictionary's
index and finds its word-table rows when the first sentences need them (so that one
sentence starts fast), which an empty input never does, and "excl. load" would count that
loading as tagging.  The one-sentence row runs without it, as a user would.
Each configuration runs `--repeat` times, in rounds that run every configuration once (so a
slow spell of the host weighs on all rows alike), and the median time counts (robust to the
few runs another process slows down on a shared machine).  CPU time (user + system) is reported
too: on a busy machine it is what the process itself spent, while wall time also counts
waiting for a core.

Peak RSS comes from `/usr/bin/time -v` (Debian/Ubuntu: `apt-get install time`, the package
that provides it; the shell builtin `time` does not report memory).  Without it, the
per-child resource usage of `os.wait4` is used: the same counter as
`resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`, but for one child instead of the maximum
over all children so far.

SENNA v3.0's numbers are the reference; the targets are the project's (about five times
SENNA, peak RSS at most 150 MB, a one-sentence run of all four within 0.3 s).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("conll2003/eng.testa", "ewt/ewt.dev.pos")
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
TIME = "/usr/bin/time"

# (row label, senna options, SENNA v3.0 tokens/s, target tokens/s)
ROWS = (
    ("POS", ["-pos"], 46_400, 270_000),
    ("CHK", ["-chk"], 26_400, 140_000),
    ("NER", ["-ner"], 24_600, 130_000),
    ("SRL", ["-srl"], 2_770, 14_000),
    ("all four", [], 2_530, 13_500),
)
# With a parser model: the parser alone, and all five tasks, whose target is half the
# tokens/s of all four (the parser may double the time of a full run).
PARSER_ROWS = (
    ("PSG", ["-psg"], None, None),
    ("all five", ["-pos", "-chk", "-ner", "-srl", "-psg"], None, None),
)
# The other entry points on the same words and tasks (all four, default settings): the
# Python API given each sentence as a list of words (as -usrtokens reads a line), and the
# spaCy component given each sentence's words joined by spaces (spaCy tokenises them).
# The spaCy row's time includes spaCy's own tokenizer and Doc objects; the blank row is that
# alone (no senna), and spaCy's tokenizer splits the words into more tokens than the input
# has (printed in the notes), each of them tagged: what spaCy itself adds to the row.
ENTRY_ROWS = (("all four, API: senna.load().pipe", "api"),
              ("all four, spaCy: nlp.pipe", "spacy"),
              ("spaCy alone: spacy.blank('en').pipe, no senna", "blank"))
NO_GOAL = ("blank",)
ENTRY_GOAL = 0.9   # of the CLI's tokens/s for the same tasks
# Run as `python -c WORKER KIND INPUT RESULT MODEL_DIR PROCESSES`: load, then tag every
# line; writes the seconds (wall, CPU) of each part as JSON to RESULT.
WORKER = """
import json, sys, time
kind, path, result, model_dir, processes = sys.argv[1:]
lines = open(path, encoding="utf-8").read().splitlines()
t0, c0 = time.perf_counter(), time.process_time()
if kind == "api":
    import senna
    tagger = senna.load(model_dir or None)
    tagger.pipeline.preload()   # as the CLI rows' --preload: loading timed as loading
    run = lambda: tagger.pipe([line.split(" ") for line in lines], processes=int(processes))
else:
    import spacy
    nlp = spacy.blank("en")
    if kind == "spacy":
        nlp.add_pipe("senna", config={"model_dir": model_dir or None}).tagger.pipeline.preload()
    run = lambda: nlp.pipe(lines, n_process=int(processes))
t1, c1 = time.perf_counter(), time.process_time()
for doc in run():
    pass
t2, c2 = time.perf_counter(), time.process_time()
json.dump({"load": [t1 - t0, c1 - c0], "tag": [t2 - t1, c2 - c1]}, open(result, "w"))
"""
SENNA_RSS_MB, TARGET_RSS_MB = 192, 150
SENNA_ONE_S, TARGET_ONE_S = 0.2, 0.3     # one sentence, all four: process start to exit


@dataclass
class Run:
    """One command's wall and CPU seconds and peak resident memory."""

    wall: float
    cpu: float
    rss_mb: float


def read_sentences(path: Path) -> list[list[str]]:
    """First column of a CoNLL-style file (blank line between sentences); -DOCSTART- lines
    are document markers, not words."""
    out: list[list[str]] = []
    words: list[str] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] != "-DOCSTART-":
                words.append(parts[0])
            elif words:
                out.append(words)
                words = []
    if words:
        out.append(words)
    return out


def senna_command() -> list[str]:
    """The `senna` command of this checkout (`run_once` puts it first on PYTHONPATH), as
    the API and spaCy rows import it; an installed `senna` script may be another's."""
    return [sys.executable, "-m", "senna.cli.main"]


def run_once(cmd: list[str], stdin: Path) -> Run:
    """Run `cmd` with `stdin` as input; measure it with /usr/bin/time -v when present."""
    env = {**os.environ, **{v: "1" for v in THREAD_VARS},
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    use_time = os.access(TIME, os.X_OK)
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report, open(stdin, "rb") as inp:
        full = [TIME, "-v", "-o", report.name, *cmd] if use_time else cmd
        t0 = time.perf_counter()
        proc = subprocess.Popen(full, stdin=inp, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        assert proc.stderr is not None
        err = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err}")
        if not use_time:
            return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
        text = report.read()
    field = {m[1]: m[2] for m in re.finditer(r"^\s*(.+?): (.+)$", text, re.M)}
    cpu = float(field["User time (seconds)"]) + float(field["System time (seconds)"])
    return Run(wall, cpu, int(field["Maximum resident set size (kbytes)"]) / 1024)


def entry_point_run(kind: str, text: Path, model_dir: str | None, processes: int = 1
                    ) -> tuple[Run, Run]:
    """The API or the spaCy component (`kind`) on `text`'s lines in a fresh process, as
    `run_once` runs the CLI: (the whole process, its tagging alone)."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as result:
        whole = run_once([sys.executable, "-c", WORKER, kind, str(text), result.name,
                          model_dir or "", str(processes)], Path(os.devnull))
        parts = json.load(result)
    return whole, Run(*parts["tag"], whole.rss_mb)


def entry_point_kinds() -> list[tuple[str, str]]:
    """ENTRY_ROWS, the spaCy rows only where spaCy is installed."""
    return [(label, kind) for label, kind in ENTRY_ROWS
            if kind == "api" or importlib.util.find_spec("spacy") is not None]


def spacy_tokens(sentences: list[list[str]]) -> int | None:
    """How many tokens spaCy's English tokenizer makes of the sentences' words joined by
    spaces (what the spaCy row tags); None without spaCy."""
    if importlib.util.find_spec("spacy") is None:
        return None
    import spacy
    nlp = spacy.blank("en")
    return sum(len(doc) for doc in nlp.tokenizer.pipe(" ".join(s) for s in sentences))


def print_entry_rows(rows: list[tuple[str, Run, Run]], four: tuple, tokens: int) -> None:
    """The API and spaCy rows, checked against ENTRY_GOAL of all four's CLI rate."""
    goals = [ENTRY_GOAL * tokens / (four[4].wall - four[3].wall),
             ENTRY_GOAL * tokens / (four[4].cpu - four[3].cpu)]
    kinds = dict((label, kind) for label, kind in ENTRY_ROWS)
    for label, whole, tag in rows:
        if kinds.get(label) in NO_GOAL:
            print(f"| {label} | — | — | {rate(tokens, whole.wall)} | {rate(tokens, tag.wall)} "
                  f"| {rate(tokens, tag.cpu)} | — |")
            continue
        met = " / ".join("yes" if s > 0 and tokens / s >= goal else "no"
                         for s, goal in zip((tag.wall, tag.cpu), goals, strict=True))
        print(f"| {label} | — | ≥ {ENTRY_GOAL:.0%} of CLI | {rate(tokens, whole.wall)} "
              f"| {rate(tokens, tag.wall)} | {rate(tokens, tag.cpu)} | {met} |")


def median(runs: list[Run]) -> Run:
    """Median wall and CPU time and the largest RSS of runs."""
    return Run(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs),
               max(r.rss_mb for r in runs))


def rate(tokens: int, seconds: float) -> str:
    return f"{tokens / seconds:,.0f}" if seconds > 0 else "n/a"


def print_task_rows(results: list[tuple], tokens: int) -> tuple:
    """The CLI's rows of the table, each checked against its target; all four's result."""
    four = next(r for r in results if r[0] == "all four")
    for label, senna, target, load, full in results:
        wall, cpu = full.wall - load.wall, full.cpu - load.cpu
        if label == "all five":   # half of all four's rate, wall and CPU alike
            goals = [tokens / (2 * (four[4].wall - four[3].wall)),
                     tokens / (2 * (four[4].cpu - four[3].cpu))]
        else:
            goals = [target, target]
        met = " / ".join("—" if goal is None else "yes" if s > 0 and tokens / s >= goal
                         else "no" for s, goal in zip((wall, cpu), goals, strict=True))
        shown = "½ all four" if label == "all five" else "—" if target is None else \
            f"≥ {target:,}"
        print(f"| {label} | {'—' if senna is None else f'{senna:,}'} | {shown} "
              f"| {rate(tokens, full.wall)} | {rate(tokens, wall)} | {rate(tokens, cpu)} "
              f"| {met} |")
    return four


def measure(rows: tuple, entries: list[tuple[str, str]], base: list[str],
            sentences: list[list[str]], repeat: int, model_dir: str | None) -> tuple:
    """Every row `repeat` times, round by round: (per CLI row its label, SENNA's rate, target,
    median load and full runs), the one-sentence run, (per entry point row its label, whole
    process and tagging alone)."""
    with tempfile.TemporaryDirectory() as tmp:
        text, empty = Path(tmp) / "input.txt", Path(tmp) / "empty.txt"
        one = Path(tmp) / "one.txt"
        text.write_text("".join(" ".join(s) + "\n" for s in sentences), encoding="utf-8")
        empty.write_text("", encoding="utf-8")
        one.write_text(" ".join(sentences[0]) + "\n", encoding="utf-8")
        # Round-robin: every round runs each row once, so a slow spell of the host (this
        # machine's speed drifts by up to 30% over minutes) weighs on all rows alike.
        runs: dict[tuple[str, str], list[Run]] = {}
        for _ in tqdm(range(repeat), desc="rounds", file=sys.stderr):
            for label, opts, _, _ in rows:
                for kind, stdin in (("load", empty), ("full", text)):
                    runs.setdefault((label, kind), []).append(
                        run_once(base + ["--preload"] + opts, stdin))
            runs.setdefault(("single", ""), []).append(run_once(base, one))
            for label, kind in entries:
                whole, tag = entry_point_run(kind, text, model_dir)
                runs.setdefault((label, "whole"), []).append(whole)
                runs.setdefault((label, "tag"), []).append(tag)
        results = [(label, senna, target, median(runs[label, "load"]),
                    median(runs[label, "full"])) for label, _, senna, target in rows]
        single = median(runs["single", ""])
        entry = [(label, median(runs[label, "whole"]), median(runs[label, "tag"]))
                 for label, _ in entries]
    return results, single, entry


def print_notes(results: list[tuple], base: list[str], tokens: int,
                spacy_count: int | None) -> None:
    """What the table's columns and rows measure."""
    print("\nWhole command: tokens / wall time of the run (process start, imports, model "
          "loading, tagging).  Excl. load: tokens / (that time minus the same command's on an "
          "empty input).  CPU: user + system time, what the process itself spent.  Targets "
          "are checked on the excl.-load columns.  Peak RSS per run (MB): "
          + ", ".join(f"{r[0]} {r[4].rss_mb:.0f}" for r in results)
          + f" ({TIME + ' -v' if os.access(TIME, os.X_OK) else 'os.wait4'}).  Command: "
          + " ".join(base) + " [--preload] [options] < sentences.  API and spaCy rows: a "
          "fresh process loads senna.load() (or spacy.blank('en') with the senna component, "
          "default settings), builds the models' indexes as --preload does, and tags every "
          "line, a list of words (API) or the words joined "
          "by spaces (spaCy, whose tokenizer splits them); excl. load is the tagging alone "
          "as the process timed it, tokens counted as the input's words."
          + ("" if spacy_count is None else
             f"  spaCy's tokenizer makes {spacy_count:,} tokens of the {tokens:,} words "
             f"({spacy_count / tokens - 1:+.1%}), and the component tags every one; the "
             "blank row is spaCy's own tokenizer and Doc objects alone."))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"),
                   help="data root holding conll2003/ and ewt/ (default: ../shared/data "
                        "relative to the repository root)")
    p.add_argument("--model-dir", help="models' root directory, passed to senna -path "
                                       "(default: the shipped models)")
    p.add_argument("--psg", metavar="DIR",
                   help="the parser's model folder, for the PSG and all-five rows (default: "
                        "the models' psg/ when there is one)")
    p.add_argument("--psg-beam", type=int, metavar="N",
                   help="the parser's beam in the PSG and all-five rows (default: senna's)")
    p.add_argument("--repeat", type=int, default=3,
                   help="runs per measurement (the median counts)")
    p.add_argument("--limit", type=int, default=0,
                   help="use only the first N sentences (quick checks; 0: all)")
    a = p.parse_args(argv)

    sentences = [s for src in SOURCES for s in read_sentences(Path(a.data) / src)]
    if a.limit:
        sentences = sentences[: a.limit]
    tokens = sum(len(s) for s in sentences)
    base = senna_command() + ["-usrtokens"] + (["-path", a.model_dir] if a.model_dir else [])
    root = Path(a.model_dir) if a.model_dir else ROOT / "senna" / "models"
    parser = a.psg is not None or (root / "psg" / "config.json").is_file()
    base += ["--model", f"psg={a.psg}"] if a.psg else []
    beam = ["--psg-beam", str(a.psg_beam)] if a.psg_beam else []
    rows = ROWS + (tuple((label, opts + beam, senna, target)
                         for label, opts, senna, target in PARSER_ROWS) if parser else ())
    entries = entry_point_kinds()
    load_before = os.getloadavg()
    results, single, entry = measure(rows, entries, base, sentences, a.repeat, a.model_dir)
    load_after = os.getloadavg()

    print(f"{len(sentences):,} sentences, {tokens:,} tokens ({', '.join(SOURCES)}); "
          f"median of {a.repeat}; one process, one thread; load average "
          f"{load_before[0]:.1f} before, {load_after[0]:.1f} after, on {os.cpu_count()} CPUs\n")
    print("| tokens/s | SENNA v3.0 | target | whole command (wall) | excl. load (wall) "
          "| excl. load (CPU) | target met (excl. load, wall / CPU) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    four = print_task_rows(results, tokens)
    print_entry_rows(entry, four, tokens)
    everything = four
    print(f"| load time, all four (s; empty input, --preload, wall / CPU) | | "
          f"| {everything[3].wall:.2f} / {everything[3].cpu:.2f} | | | |")
    met = " / ".join("yes" if t <= TARGET_ONE_S else "no" for t in (single.wall, single.cpu))
    print(f"| one sentence, all four (s; whole command, wall / CPU) | {SENNA_ONE_S} "
          f"| ≤ {TARGET_ONE_S} | {single.wall:.2f} / {single.cpu:.2f} | | | {met} |")
    rss = max(r[4].rss_mb for r in results)
    print(f"| peak RSS (MB, largest run) | {SENNA_RSS_MB} | ≤ {TARGET_RSS_MB} | {rss:.0f} | | "
          f"| {'yes' if rss <= TARGET_RSS_MB else 'no'} |")
    print_notes(results, base, tokens, spacy_tokens(sentences) if any(
        kind != "api" for _, kind in entries) else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
