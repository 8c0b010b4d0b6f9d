"""The lever table: each lever's dev gain per task, with its training time and tagging
speed.  Lever 1, character-level word vectors (CharWNN, senna.nn.chars): each task's shipped
recipe (shipped embeddings, its features, epochs) against the same recipe with `--features
<its preset>+chars` (50 filters) or `+chars:30` (30 filters), nothing else changed.

    python bench/levers.py --out runs/levers --jobs 2 --seeds 1,2
    python bench/levers.py --out runs/s25/levers --tasks ner --seeds 1,2,3,4 \
        --base stack --levers stack-clusters     # NER's network, with and without clusters

Run from the repository root (the recipes name ../shared/data/...).  Every run is an
ordinary `senna train` command, listed under the table; finished runs are not trained again
and interrupted ones resume from their checkpoints.  Each run is given its seed (over a
recipe's own `seed` setting).  With several `--seeds`, scores are given per seed with
their mean, the gain is the mean over seeds of the difference with the recipe's run of the
same seed, and minutes are means.

Tagging speed (the first seed's models) is the NumPy runtime on the task's dev sentences
(`TaskModel.predict`, batches of 256 sentences) in a fresh single-threaded process per
model, freshly loaded for each of `--repeat` passes, so the character vectors of every
distinct word are computed inside the timing, as for a user's first text; the best pass
counts, in tokens per CPU second of the process, which on a shared machine is steadier than
wall time.  "warm" is the same model tagging the same sentences again (a long-running
tagger: every word's features, characters included, already known).  "load" is the model's
first loading time in the process (wall).  Under the table: what computing the character
vectors of every distinct training word would cost (the runtime computes a word's vector
when it first meets the word instead).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.common import recipe_runs_parser, run_all  # noqa: E402
from bench.common import result as record  # noqa: E402

TASKS = ("pos", "ner", "chunk")
SILVER_OPTIONS = "<the task's silver options>"   # placeholder in LEVERS, replaced by SILVER's
CLUSTERS = "runs/clusters/clusters.lst"   # written by `make clusters`
# run suffix -> (addition to the recipe's features, other training options, row title)
LEVERS = {"base": ("", [], "shipped recipe"),
          "chars": ("+chars", [], "+ characters (50 filters)"),
          "chars30": ("+chars:30", [], "+ characters, 30 filters"),
          "dropout": ("", ["--dropout-hidden", "0.3"], "+ dropout 0.3 on the hidden layer"),
          "chars30-dropout": ("+chars:30", ["--dropout-hidden", "0.3"],
                              "+ characters (30 filters) and dropout 0.3"),
          # lever 3's rest, on the recipes as they are now (characters and dropout in)
          "dropin": ("", ["--dropout-input", "0.1"], "+ dropout 0.1 on the looked-up features"),
          "dropin2": ("", ["--dropout-input", "0.2"], "+ dropout 0.2 on the looked-up features"),
          "nosuffix": ("", ["--features", "basic+chars:30"],
                       "characters without the suffix feature (basic+chars:30; POS)"),
          # what the first layer's width and Viterbi cost against what they give
          "hidden200": ("", ["--hidden", "200"], "hidden layer of 200 units instead of 300"),
          "hidden150": ("", ["--hidden", "150"], "hidden layer of 150 units"),
          "hidden100": ("", ["--hidden", "100"], "hidden layer of 100 units"),
          "wll": ("", ["--criterion", "wll"], "word-level log-likelihood (no Viterbi)"),
          "wll-hidden200": ("", ["--criterion", "wll", "--hidden", "200"],
                            "word-level log-likelihood, 200 units"),
          "wll-hidden150": ("", ["--criterion", "wll", "--hidden", "150"],
                            "word-level log-likelihood, 150 units"),
          # context, step size, the average of the weights SGD visits
          "window7": ("", ["--window", "7"], "window of 7 words instead of 5"),
          "lr2": ("", ["--lr", "0.1"], "learning rate 0.1 instead of 0.05"),
          "lrhalf": ("", ["--lr", "0.025"], "learning rate 0.025"),
          "average": ("", ["--average", "0.9997"],
                      "weight averaging (moving average, decay 0.9997 per step)"),
          "lr2-average": ("", ["--lr", "0.1", "--average", "0.9997"],
                          "learning rate 0.1 and weight averaging"),
          "patience12": ("", ["--patience", "12"],
                         "early stopping after 12 epochs without a better dev score, not 6"),
          # gold sentences plus silver ones (SILVER: written by `make pos-silver` etc.)
          "silver": ("", [SILVER_OPTIONS],
                     "+ silver sentences (unlabeled text tagged by 3 taggers' vote)"),
          "silver-patience12": ("", [SILVER_OPTIONS, "--patience", "12"],
                                "+ silver sentences and patience 12"),
          # cased word clusters from unlabeled text (`senna lm clusters`, written
          # by `make clusters`), alone and over NER's shipped network (100 units, stack 3)
          "clusters": ("+clusters", ["--clusters", CLUSTERS],
                       "+ word clusters (64, 512, 4096; cased word2vec, k-means)"),
          "stack": ("", ["--hidden", "100", "--stack", "3"],
                    "100 hidden units and a second layer over 3 neighbours"),
          "stack-clusters": ("+clusters", ["--hidden", "100", "--stack", "3",
                                           "--clusters", CLUSTERS],
                             "100 units, the second layer and word clusters")}
# Each task's silver data (`make ner`, `make pos-silver`, `make chunk-silver`): 8,000
# sentences of Reuters-21578 (NER, CHUNK) or Wikipedia (POS, enwiki_c) tagged by a vote of
# three recipe runs, after the gold sentences in one training file, or (CHUNK, whose dev is
# cut from its training file) apart.
SILVER = {"ner": ["--train", "runs/ner-silver/train.conll"],
          "pos": ["--train", "runs/pos-silver/train.pos"],
          "chunk": ["--extra-train", "runs/chunk-silver/silver.txt"]}
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

SPEED = """
import json, sys, time
from senna.datasets import load_splits
from senna.features.kinds import CharsFeature
from senna.runtime.model import TaskModel
from senna.tasks import get_task
from senna.train.config import TrainConfig

path, repeat = sys.argv[1], int(sys.argv[2])
t0 = time.perf_counter()
model = TaskModel.load(path)
load = time.perf_counter() - t0   # the first load reads the shared embeddings too
cfg = TrainConfig.from_dict(model.saved.info["training"]["config"])
_, dev = load_splits(cfg, get_task(model.task))
words = [s.words for s in dev if s.words]
tokens = sum(map(len, words))
best = float("inf")
for _ in range(repeat):
    model = TaskModel.load(path)   # a fresh model: no character vector computed yet
    c0 = time.process_time()
    for i in range(0, len(words), 256):
        model.predict(words[i : i + 256])
    best = min(best, time.process_time() - c0)
warm = float("inf")
for _ in range(repeat):  # the same model again: every word's features are known
    c0 = time.process_time()
    for i in range(0, len(words), 256):
        model.predict(words[i : i + 256])
    warm = min(warm, time.process_time() - c0)
out = {"tokens": tokens, "cpu": best, "warm_cpu": warm, "load": load}
chars = [j for j, k in enumerate(model.featurizer.kinds) if isinstance(k, CharsFeature)]
if chars:  # what computing the vectors of every training word at load would cost
    train, _ = load_splits(cfg, get_task(model.task))
    distinct = sorted({w for s in train for w in s.words})
    model = TaskModel.load(path)
    ids = model.featurizer.encode(distinct)
    c0 = time.process_time()
    for j in chars:
        model.w[f"emb.tables.{j}.weight"][ids[:, j]]
    out |= {"train_words": len(distinct), "train_words_cpu": time.process_time() - c0}
print(json.dumps(out))
"""


def run_name(task: str, lever: str, seed: int) -> str:
    """Seed 1's runs carry no suffix."""
    return f"{task}-{lever}" + (f"-seed{seed}" if seed != 1 else "")


def commands(out: Path, recipes: Path, tasks: tuple[str, ...], seeds: list[int],
             levers: list[str]) -> dict[str, list[str]]:
    cmds = {}
    for seed in seeds:
        for task in tasks:
            recipe = recipes / f"{task}.json"
            base = ["senna", "train", "--config", str(recipe), "--threads", "1"]
            base += ["--seed", str(seed)]   # also over a recipe's own seed
            features = json.loads(recipe.read_text())["features"]
            for lever in levers:
                addition, extra, _ = LEVERS[lever]
                extra = [y for x in extra for y in (SILVER[task] if x == SILVER_OPTIONS
                                                     else [x])]
                options = (["--features", features + addition] if addition else []) + extra
                name = run_name(task, lever, seed)
                cmds[name] = [*base, *options, "--out", str(out / name)]
    return cmds


def speed(out: Path, name: str, repeat: int) -> dict | None:
    """Tagging speed of a finished run's model (cached in <run>/speed.json)."""
    cache = out / name / "speed.json"
    if cache.exists():
        return json.loads(cache.read_text())
    if record(out, name) is None:
        return None
    env = {**os.environ, **dict.fromkeys(THREAD_VARS, "1")}
    done = subprocess.run([sys.executable, "-c", SPEED, str(out / name), str(repeat)],
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"speed of {name} failed:\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    cache.write_text(json.dumps(result))
    return result


def table(out: Path, cmds: dict[str, list[str]], tasks: tuple[str, ...], seeds: list[int],
          levers: list[str], repeat: int) -> str:
    """Gains and speeds against the first of `levers` (the recipe's run unless --base)."""
    first = levers[0]
    lines = ["| task (dev) | lever | dev score (best epoch), per seed | mean | gain "
             "| minutes to best / total | tagging tokens/s | speed | warm tokens/s | load s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for task in tasks:
        base = {s: record(out, run_name(task, first, s)) for s in seeds}
        base_speed = speed(out, run_name(task, first, seeds[0]), repeat)
        for lever in levers:
            runs = {s: r for s in seeds if (r := record(out, run_name(task, lever, s)))}
            s = speed(out, run_name(task, lever, seeds[0]), repeat)
            title = LEVERS[lever][2]
            if not runs:
                lines.append(f"| {task.upper()} | {title} | — | | | | | | | |")
                continue
            mean = sum(r["score"] for r in runs.values()) / len(runs)
            paired = [r["score"] - base[k]["score"] for k, r in runs.items() if base[k]]
            gain = f"{sum(paired) / len(paired):+.2f}" if lever != first and paired else ""
            rate = s["tokens"] / s["cpu"] if s else None
            ratio = f"{rate / (base_speed['tokens'] / base_speed['cpu']):.2f}×" \
                if lever != first and rate and base_speed else ""
            scores = ", ".join(f"{r['score']:.2f} ({r['epoch']})" for r in runs.values())
            to_best = sum(r["to_best"] for r in runs.values()) / len(runs) / 60
            total = sum(r["total"] for r in runs.values()) / len(runs) / 60
            rate_text = f"{rate:,.0f}" if rate else "—"
            warm = f"{s['tokens'] / s['warm_cpu']:,.0f}" if s and "warm_cpu" in s else "—"
            load = f"{s['load']:.2f}" if s else "—"
            lines.append(f"| {task.upper()} | {title} | {scores} | {mean:.2f} | {gain} "
                         f"| {to_best:.1f} / {total:.1f} | {rate_text} | {ratio} | {warm} "
                         f"| {load} |")
    for task in tasks:
        s = speed(out, run_name(task, "chars", seeds[0]), repeat)
        if s and "train_words" in s:
            lines.append(f"\n{task.upper()}: the character vectors of all {s['train_words']:,} "
                         f"distinct training words take {s['train_words_cpu']:.2f} CPU s "
                         f"({1e6 * s['train_words_cpu'] / s['train_words']:.0f} µs a word).")
    lines += ["", "Commands (one per run):", ""]
    lines += [f"    {shlex.join(c)}" for c in cmds.values()]
    return "\n".join(lines)


def main() -> int:
    p = recipe_runs_parser(__doc__, "runs/levers")
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--seeds", default="1", help="comma-separated seeds")
    p.add_argument("--levers", default=",".join(LEVERS), help="comma-separated rows")
    p.add_argument("--repeat", type=int, default=3, help="tagging passes per model (best)")
    p.add_argument("--base", default="base", help="the lever the others are measured against "
                   "(default: base, the recipe itself)")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    tasks = tuple(a.tasks.split(","))
    seeds = [int(x) for x in a.seeds.split(",")]
    levers = [a.base, *(x for x in a.levers.split(",") if x != a.base)]
    unknown = set(levers) - set(LEVERS)
    if unknown:
        p.error(f"unknown levers {sorted(unknown)}; known: {', '.join(LEVERS)}")
    cmds = commands(out, Path(a.recipes), tasks, seeds, levers)
    if not a.table_only:
        run_all(cmds, [n for n in cmds if record(out, n) is None], a.jobs, out)
    print(table(out, cmds, tasks, seeds, levers, a.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
