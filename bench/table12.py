"""Table 12 of Collobert et al. (2011) on our data: SRL dev F1 when the network also reads the
parse tree's levels, level 0 (PT0, what the shipped SRL reads) up to levels 0-4.

    make table12                                  # the runs (hours on CPU)
    python bench/table12.py --data ../shared/data [--parser senna/models/psg]

Level 0 is the SRL teachers' seed-1 run (`runs/srl-teachers/seed-1`); levels 0-K are
`recipes/srl-levels-K.json`, the same settings with the features '+levels:K', trained on
the gold trees of the data file; `recipes/srl-levels-K-predicted.json` (`make
table12-predicted`) train on the trees of jackknifed parsers instead.  Each run is scored
on EWT dev twice: with gold inputs (POS, PT0 and trees from the files), and as users would
get it, POS and PT0 predicted by the shipped models and the trees by the parser
(`--parser`), itself reading the predicted POS.  A run still training is scored by its best
model so far, marked so.
"""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)

from senna.features.kinds import LevelFeature
from senna.runtime.ensemble import load_tagger
from senna.runtime.predict import predict_gold_inputs, tag_column
from senna.scoring.inputs import recorded_dev_set
from senna.scoring.predictions import score_predictions
from senna.syntax.levels import TREE

ROOT = Path(__file__).resolve().parents[1]
RUNS = {"0 (PT0)": "runs/srl-teachers/seed-1", "0-1": "runs/table12/levels-1",
        "0-2": "runs/table12/levels-2", "0-4": "runs/table12/levels-4",
        "0-1, trained on predicted trees": "runs/table12/levels-1-predicted",
        "0-4, trained on predicted trees": "runs/table12/levels-4-predicted"}


def model_dir(run: Path) -> tuple[Path, str] | None:
    """The SRL model of a run and a note: its best model, marked when the run has not
    ended (the best so far); None before its first epoch."""
    config = run / "srl" / "config.json"
    if not config.is_file():
        return None
    if (run / "history.json").is_file():
        return run / "srl", ""
    epoch = json.loads(config.read_text(encoding="utf-8"))["training"].get("epochs")
    return run / "srl", f" (best so far, epoch {epoch}: still training)"


def predicted(dev: list, models: dict, trees: bool) -> list:
    """Copies of the dev sentences with POS, PT0 (from the predicted POS) and, for a model
    reading levels, the parser's trees (from the predicted POS) as the runtime gives them."""
    out = copy.deepcopy(dev)
    for column in ("pos", "pt0", *((TREE,) if trees else ())):
        tag_column(models[column], out, column)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--models", default=str(ROOT / "senna" / "models"),
                   help="the shipped models whose POS and PT0 tags the predicted column reads")
    p.add_argument("--parser", default=str(ROOT / "senna" / "models" / "psg"),
                   help="the parser giving the predicted trees")
    a = p.parse_args()
    root = Path(a.models)
    models = {"pos": load_tagger(root / "pos"), "pt0": load_tagger(root / "pt0"),
              TREE: load_tagger(a.parser)}
    print("| levels | gold inputs | predicted POS, PT0 and trees | run |")
    print("|---|---|---|---|")
    for label, run in RUNS.items():
        found = model_dir(ROOT / run)
        if found is None:
            target = "table12-predicted" if "predicted" in run else "table12"
            print(f"| {label} | — | — | {run} (not trained: make {target}) |")
            continue
        path, note = found
        model = load_tagger(path)
        task, dev = recorded_dev_set(path, a.data, predicted=False)
        gold, _ = score_predictions(task, dev, predict_gold_inputs(model, task, dev))
        pred_dev = predicted(dev, models, bool(model.featurizer.of_kind(LevelFeature)))
        users, _ = score_predictions(task, pred_dev, predict_gold_inputs(model, task, pred_dev))
        print(f"| {label} | {gold['score']:.2f} | {users['score']:.2f} | {run}{note} |")
    print("\nSRL F1 on EWT dev (srl-eval semantics, the dev set's predicates), one seed per "
          "row.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
