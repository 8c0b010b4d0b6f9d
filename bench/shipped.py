"""Dev scores of the shipped models, as the runtime computes them: with gold input columns
and through the cascade (POS and PT0 predicted by the shipped POS and PT0 models, as `senna`
runs them on new text), then where they stand against the project's accuracy targets.

    python bench/shipped.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path

from senna.runtime.ensemble import folder_config, load_tagger
from senna.runtime.model import TaskModel
from senna.runtime.predict import predict_gold_inputs, tag_column
from senna.scoring.inputs import recorded_dev_set
from senna.scoring.predictions import score_predictions

ROOT = Path(__file__).resolve().parents[1]
# The project's dev targets (SRL: with predicted PT0, with gold PT0).
TARGETS = {"pos": 96.0, "chunk": 96.5, "ner": 95.0, "pt0": 92.0, "srl": (74.0, 76.0),
           "es/ner": 82.0, "nl/ner": 83.0, "psg": 84.0}
# The shipped models of other languages (senna/models/<lang>/<task>), where present.
OTHER_LANGUAGES = ("es/ner", "nl/ner")


def with_predicted(sentences: list, models: dict[str, TaskModel], names: list[str]) -> list:
    """Copies of the sentences whose input columns `names` come from the shipped models (PT0
    predicted from the predicted POS, as the runtime does)."""
    out = copy.deepcopy(sentences)
    for column in ("pos", "pt0"):
        if column in names or (column == "pos" and "pt0" in names):
            tag_column(models[column], out, column)
    return out


def to_go(target: float, now: float) -> str:
    """What is left to reach a target, or "met" (a negative gap reads as a miss)."""
    return "met" if now >= target else f"{target - now:.2f}"


def parser_row(root: Path, data: Path) -> tuple[float, float]:
    """The parser's row: labelled bracket F1 on EWT dev trees, from the file's POS tags and
    from the shipped POS tagger's (as `senna -psg` parses); a parser whose first level keeps
    PT0's phrases reads its own PT0 tagger's (else the shipped one's), from those POS tags."""
    from senna.runtime.parser import own_first_level, own_flattened
    from senna.scoring.trees import tree_scores
    from senna.tasks import get_task

    feats = ", ".join(f["name"] for f in folder_config(root / "psg")["features"])
    t0 = time.perf_counter()
    gold_file = str(data / "ewt" / "ewt.dev.gold_conll")
    gold, pred = (tree_scores(get_task("psg"), gold_file, str(root / "psg"), gold_inputs=g).f1
                  for g in (True, False))
    first = folder_config(root / "psg").get("first_level")
    if first:
        whose = "its own " if own_first_level(root / "psg", first) else ""
        feats += f"; {whose}{first.upper()} tagger's phrases"
    feats += "".join(f", its {label} tagger's" for label, _ in own_flattened(root / "psg"))
    print(f"| PSG | {feats} | ewt.dev.gold_conll (bracket F1) | {gold:.2f} "
          f"| {pred:.2f} (predicted POS) | {time.perf_counter() - t0:.1f} |")
    return pred, gold


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--models", default=str(ROOT / "senna" / "models"))
    a = p.parse_args()
    data, root = Path(a.data), Path(a.models)
    models = {t: load_tagger(root / t) for t in ("pos", "chunk", "ner", "pt0", "vbs", "srl")}
    models |= {t: load_tagger(root / t) for t in OTHER_LANGUAGES if (root / t).is_dir()}
    print("| model | features | dev set | gold inputs | predicted inputs (cascade) | seconds |")
    print("|---|---|---|---|---|---|")
    users: dict[str, tuple[float, float]] = {}   # task -> (what users get, gold inputs)
    for name, model in models.items():
        task, dev = recorded_dev_set(root / name, data, predicted=False)
        t0 = time.perf_counter()
        gold, _ = score_predictions(task, dev, predict_gold_inputs(model, task, dev))
        reads = [s.arg for s in model.featurizer.specs if s.kind == "column"]
        cascade = "—"
        if reads:
            pred_dev = with_predicted(dev, models, reads)
            score, _ = score_predictions(task, pred_dev,
                                         predict_gold_inputs(model, task, pred_dev))
            cascade = f"{score['score']:.2f} (predicted {', '.join(reads).upper()})"
        users[name] = (score["score"] if reads else gold["score"], gold["score"])
        feats = ", ".join(s.name for s in model.featurizer.specs)
        cfg = folder_config(root / name)["training"]["config"]
        dev_name = Path(cfg["dev"]).name if cfg.get("dev") else "last 10% of train"
        print(f"| {name.upper()} | {feats} | {dev_name} | {gold['score']:.2f} | {cascade} "
              f"| {time.perf_counter() - t0:.1f} |")
    if (root / "psg" / "config.json").is_file():
        users["psg"] = parser_row(root, data)
    print("\nPOS: token accuracy; others: F1 (conlleval / srl-eval semantics). SRL uses the gold "
          "predicates of the dev set.")
    print("\nAccuracy targets (dev; PT0 with predicted POS, SRL with predicted / gold PT0):\n")
    print("| task | target | shipped now | to go |")
    print("|---|---|---|---|")
    for name, target in TARGETS.items():
        if name not in users:
            continue
        now, gold = users[name]
        if name == "srl":
            print(f"| SRL | {target[0]} / {target[1]} | {now:.2f} / {gold:.2f} "
                  f"| {to_go(target[0], now)} / {to_go(target[1], gold)} |")
        else:
            print(f"| {name.upper()} | {target} | {now:.2f} | {to_go(target, now)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
