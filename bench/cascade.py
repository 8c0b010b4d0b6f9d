"""Task features revisited (lever 4 of docs/lab/levers.md).  A model reading another
task's column (CHUNK, PT0 and the verb detector read POS, SRL reads PT0) trained on gold
columns against the same recipe trained on predicted ones (`--predicted-columns`,
jackknifed on EWT where the input models were trained on the same sentences: the shipped
models' recipes), both scored on
dev with the inputs the runtime gives them: the columns predicted by the shipped models,
in cascade order.

    python bench/cascade.py --out runs/cascade --jobs 2

Run from the repository root after the shipped POS and PT0 models exist (the recipes name
them and ../shared/data).  Every run is an ordinary `senna train` command listed under the
table; finished runs are not trained again.  The "basic" row of CHUNK is its old recipe (no
POS feature: POS trained on the file's gold (Brill) tags hurt with our tagger's tags).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.common import recipe_runs_parser, run_all, state  # noqa: E402
from senna.datasets import parse_spec  # noqa: E402
from senna.runtime.model import TaskModel  # noqa: E402
from senna.runtime.predict import (
    predict_gold_inputs,  # noqa: E402
    tag_column,  # noqa: E402
)
from senna.scoring.inputs import recorded_dev_set  # noqa: E402
from senna.scoring.predictions import score_predictions  # noqa: E402

# row -> (task, options added to the task's recipe).  "-gold" rows switch the prediction off;
# the "predicted inputs" column is the "-predicted" row where there is one, else the shipped
# model, trained by the recipe itself.  CHUNK's recipe reads no POS (see docs/lab/levers.md,
# "Task features revisited"): both of its rows add the POS feature to it.  SRL's rows are
# trained alone (the shipped SRL is trained with the language model, on gold PT0,
# recipes/srl-lm.json).
GOLD = ["--predicted-columns", "", "--jackknife", "0"]
CHUNK_POS = ["--features", "senna+chars:30"]
RUNS = {
    "chunk-basic": ("chunk", GOLD + ["--features", "basic", "--dropout-hidden", "0"]),
    "chunk-gold": ("chunk", CHUNK_POS + GOLD),
    "chunk-predicted": ("chunk", CHUNK_POS + ["--predicted-columns", "pos=senna/models/pos"]),
    "pt0-gold": ("pt0", GOLD),
    "vbs-gold": ("vbs", GOLD),
    "srl-gold": ("srl", GOLD),
    "srl-predicted": ("srl", ["--predicted-columns", "pos=senna/models/pos,pt0=senna/models/pt0",
                              "--jackknife", "5"]),
}
SHIPPED = Path(__file__).resolve().parents[1] / "senna" / "models"


def commands(out: Path, recipes: Path) -> dict[str, list[str]]:
    return {name: ["senna", "train", "--config", str(recipes / f"{task}.json"),
                   "--out", str(out / name), *extra] for name, (task, extra) in RUNS.items()}


def cascade_score(model_dir: Path, inputs: str, data: Path) -> float:
    """Dev score with the input columns predicted by `inputs` (COLUMN=MODEL,...)."""
    task, dev = recorded_dev_set(model_dir, data, predicted=False)
    for column, path in parse_spec(inputs):
        tag_column(TaskModel.load(path), dev, column)
    found = predict_gold_inputs(TaskModel.load(model_dir), task, dev)
    return score_predictions(task, dev, found)[0]["score"]


def table(out: Path, recipes: Path, data: Path, cmds: dict[str, list[str]]) -> str:
    lines = ["| task (dev, predicted inputs) | inputs | trained on gold inputs | trained on "
             "predicted inputs | gain |", "|---|---|---|---|---|"]
    for task in dict.fromkeys(t for t, _ in RUNS.values()):
        trained = out / f"{task}-predicted" if f"{task}-predicted" in RUNS else SHIPPED / task
        if not (trained / "config.json").exists():
            continue
        recipe = json.loads((trained / "config.json").read_text())["training"]["config"]
        inputs = recipe.get("predicted_columns") or ""
        scores = {kind: cascade_score(path, inputs, data)
                  if (state(path.parent, path.name) or {}).get("finished") else None
                  for kind, path in (("gold", out / f"{task}-gold"), ("predicted", trained))}
        cells = [f"{v:.2f}" if v is not None else "—" for v in scores.values()]
        gain = (f"{scores['predicted'] - scores['gold']:+.2f}"
                if None not in scores.values() else "—")
        names = ", ".join(c.upper() for c, _ in parse_spec(inputs))
        jack = f", jackknifed {recipe['jackknife']}-fold" if recipe.get("jackknife") else ""
        lines.append(f"| {task.upper()} | {names}{jack} | {cells[0]} | {cells[1]} | {gain} |")
    for name, what in (("chunk-basic", "the recipe shipped before: words and caps"),
                       ("", "the shipped recipe: words, caps, characters, dropout")):
        path = out / name if name else SHIPPED / "chunk"
        if (state(path.parent, path.name) or {}).get("finished"):
            lines.append(f"\nCHUNK without the POS feature ({what}): "
                         f"{cascade_score(path, '', data):.2f}.")
    lines += ["", "Commands:", ""] + [f"    {shlex.join(c)}" for c in cmds.values()]
    return "\n".join(lines)


def main() -> int:
    p = recipe_runs_parser(__doc__, "runs/cascade")
    p.add_argument("--data", default="../shared/data")
    p.add_argument("--only", help="comma-separated run names to train (default: all)")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cmds = commands(out, Path(a.recipes))
    if not a.table_only:
        wanted = a.only.split(",") if a.only else list(cmds)
        todo = [n for n in wanted if not (state(out, n) or {}).get("finished")]
        run_all(cmds, todo, a.jobs, out)
    print(table(out, Path(a.recipes), Path(a.data), cmds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
