"""The language-model lever's second question: do 100-dimensional embeddings, or a larger
dictionary, pay for their tagging-speed cost?

    python bench/lm_dims.py --corpus runs/lm/corpus --data ../shared/data --out runs/lm_dims

Dimension: two language models trained alike from scratch on the prepared corpus (`senna lm
prepare`), 50 and 100 dimensions, by a short curriculum (`--stages`, 100M windows: a CPU
budget; the shipped 50-d model saw 450M), then the NER tagger of Table 8 (words + caps,
NN+SLL) trained from each, with the embeddings fine-tuned and kept fixed.  Equal windows
for both sizes, so the comparison is of the size at equal training, not of the best model
either could become.  Dictionary: the same NER tagger from the shipped embeddings with a
dictionary of 100,000 words (`--max-words`, the default) and 130,000 (every word the
language model has).  Every tagger's speed is measured as in bench/levers.py (the NumPy
runtime on the dev sentences, one thread, tokens per CPU second) with its model size.

Every run is an ordinary `senna lm train` / `senna train` command, listed under the table;
finished runs are not trained again, interrupted ones resume.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.common import cell, command, minutes, result, run_all  # noqa: E402
from bench.levers import speed  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
STAGES = "5k:5M,10k:10M,30k:15M,50k:15M,100k:25M,130k:30M"


def lm_commands(corpus: str, out: Path, dims: list[int], stages: str) -> dict[int, list[list[str]]]:
    """dim -> [train, export] commands of that language model."""
    return {d: [["senna", "lm", "train", "--corpus", corpus, "--out", str(out / f"lm-d{d}"),
                 "--dim", str(d), "--stages", stages, "--threads", "1", "--seed", "1"],
                ["senna", "lm", "export", "--model", str(out / f"lm-d{d}"),
                 "--to", str(out / f"emb-d{d}"), "--dtype", "float16"]] for d in dims}


def tagger_runs(data: Path, out: Path, dims: list[int], shipped: str
                ) -> dict[str, tuple[str, list[str]]]:
    """run name -> (row title, `senna train` command)."""
    runs = {}
    for d in dims:
        emb = str((out / f"emb-d{d}").resolve())
        base = ["--epochs", "40", "--embeddings", emb, "--word-dim", str(d)]
        runs[f"ner-d{d}"] = (f"{d}-d LM, fine-tuned", base)
        runs[f"ner-d{d}-fixed"] = (f"{d}-d LM, fixed", base + ["--fixed-embeddings", "true"])
    for words in (100_000, 130_000):
        runs[f"ner-shipped-{words // 1000}k"] = (
            f"shipped 50-d LM, dictionary {words:,}",
            ["--epochs", "40", "--embeddings", shipped, "--max-words", str(words)])
    return {n: (title, command(data, out, n, "ner", "sll", extra))
            for n, (title, extra) in runs.items()}


def size_mb(path: Path) -> str:
    files = [f for f in path.rglob("*") if f.is_file() and "checkpoint" not in f.parts]
    return f"{sum(f.stat().st_size for f in files) / 1e6:.1f}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default="runs/lm/corpus", help="`senna lm prepare`'s --out")
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--out", default="runs/lm_dims")
    p.add_argument("--dims", default="50,100")
    p.add_argument("--stages", default=STAGES, help="the language models' curriculum")
    p.add_argument("--embeddings", default=str(ROOT / "senna" / "models" / "embeddings"),
                   help="the shipped embeddings (dictionary rows)")
    p.add_argument("--jobs", type=int, default=1, help="taggers trained at a time")
    p.add_argument("--repeat", type=int, default=3, help="tagging passes per model (best)")
    p.add_argument("--table-only", action="store_true")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    dims = [int(d) for d in a.dims.split(",")]
    lms = lm_commands(a.corpus, out, dims, a.stages)
    runs = tagger_runs(Path(a.data).resolve(), out, dims, str(Path(a.embeddings).resolve()))
    if not a.table_only:
        for d, (train, export) in lms.items():
            if not (out / f"emb-d{d}" / "vectors.npz").exists():
                for cmd in (train, export):
                    subprocess.run(cmd, check=True)
        run_all({n: c for n, (_, c) in runs.items()},
                [n for n in runs if result(out, n) is None], a.jobs, out)
    lines = ["| NER tagger (eng.testa F1) | dev F1 | minutes to best (epoch) / total "
             "| model MB | tagging tokens/s |", "|---|---|---|---|---|"]
    for name, (title, _) in runs.items():
        r = result(out, name, False)
        s = speed(out, name, a.repeat) if r and not r["partial"] else None
        rate = f"{s['tokens'] / s['cpu']:,.0f}" if s else "—"
        lines.append(f"| {title} | {cell(r)} | {minutes(r)} "
                     f"| {size_mb(out / name) if r else '—'} | {rate} |")
    lines += ["", "Commands:", ""]
    lines += [f"    {shlex.join(c)}" for cmds in lms.values() for c in cmds]
    lines += [f"    {shlex.join(c)}" for _, c in runs.values()]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
