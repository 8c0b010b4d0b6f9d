"""SRL's dev F1 through the cascade with other input taggers: the shipped SRL model reading
the POS and PT0 columns of the taggers named (default: the shipped ones, as `senna` runs
and the regression test's cascade floor scores it), to see what a better input tagger would
give SRL before shipping it in the shared place.

    python bench/srl_inputs.py --data ../shared/data --pt0 senna/models/psg/pt0
"""

from __future__ import annotations

import argparse
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)

from senna.runtime.ensemble import load_tagger
from senna.runtime.folders import default_model_dir
from senna.runtime.model import TaskModel
from senna.runtime.predict import predict_gold_inputs, tag_column
from senna.scoring.inputs import recorded_dev_set
from senna.scoring.predictions import score_predictions


def main() -> int:
    root = default_model_dir()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--srl", default=str(root / "srl"), help="SRL model (default: shipped)")
    ap.add_argument("--pos", default=str(root / "pos"), help="POS tagger (default: shipped)")
    ap.add_argument("--pt0", default=str(root / "pt0"), help="PT0 tagger (default: shipped)")
    a = ap.parse_args()
    spec, dev = recorded_dev_set(Path(a.srl), a.data)
    for column, model in (("pos", a.pos), ("pt0", a.pt0)):   # in cascade order
        tag_column(TaskModel.load(model), dev, column)
    score, _ = score_predictions(spec, dev, predict_gold_inputs(load_tagger(a.srl), spec, dev))
    print(f"SRL {a.srl} reading POS {a.pos}, PT0 {a.pt0}: dev F1 {score['score']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
