"""The measurement behind `--explore`: the parser recipe (on the gold levels) trained also
on the level states that the three Table 12 jackknife parsers
(`runs/jackknife/psg-fold{1,2,3}of3-*`, each trained without a third of the SRL training
sentences) reach on the training trees of the third they never saw, reading the shipped
POS and PT0 taggers' tags as at run time.

    python bench/parser_explore.py --out runs/psg/explore-s1 [--seed 1]
    senna evaluate --model runs/psg/explore-s1 --data ../shared/data/ewt/ewt.dev.gold_conll

`senna train --explore 3` does the same with fold parsers of its own (gold POS and level 0);
this script reuses the folds the Table 12 runs left (`make table12-predicted`).

With `--config`, the seeds of an exploring recipe share one seed's fold parsers (trained
once, cached), so that three seeds cost one set of folds (run it as a module: the fold
parsers train in processes of their own, which import it by name):

    python -m bench.parser_explore --config recipes/psg.json --folds-seed 1 \
        --seed 2 --out runs/psg/explore-s2
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)

from senna.datasets import read_data
from senna.io.conll import read_gold_conll
from senna.runtime.ensemble import load_tagger
from senna.train.config import TrainConfig
from senna.train.explore import explored, off_path
from senna.train.folds import folds
from senna.train.joint import JointConfig
from senna.train.loop import train
from senna.train.prepare import prepare

ROOT = Path(__file__).resolve().parents[1]


def run_config(settings: dict, out: str, seed: int) -> TrainConfig:
    """The run's settings: the recipe's, its states explored here rather than by folds of
    its own."""
    return TrainConfig.from_dict({**settings, "out": out, "seed": seed, "explore": 0,
                                  "explore_epochs": 0})


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="runs/psg/explore-s1")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--config", help="an exploring recipe (--explore K): its fold parsers "
                   "trained with --folds-seed, the run with --seed")
    p.add_argument("--folds-seed", type=int, default=1)
    a = p.parse_args()
    if a.config:
        settings = json.loads(Path(a.config).read_text())
        folds_cfg = TrainConfig.from_dict({**settings, "seed": a.folds_seed})
        cfg = run_config(settings, a.out, a.seed)
        data = prepare(cfg)
        data.train = data.train + explored(folds_cfg, data)
        train(cfg, data)
        return 0
    srl_cfg = JointConfig.from_dict(json.loads((ROOT / "recipes/srl-levels-1-predicted.json")
                                               .read_text()), base=ROOT / "recipes")
    srl = read_data(srl_cfg.task_config("srl")).train      # the Table 12 folds' sentences
    helds = [{tuple(srl[i].words) for i in part} for part in folds(len(srl), 3)]
    settings = json.loads((ROOT / "recipes/psg.json").read_text())
    cfg = run_config(settings, a.out, a.seed)
    trees = [s for s in read_gold_conll(cfg.train) if s.words]
    pos, pt0 = load_tagger(ROOT / "senna/models/pos"), load_tagger(ROOT / "senna/models/pt0")
    extra = []
    for k, held in enumerate(helds):
        part = [s for s in trees if tuple(s.words) in held]
        columns = [{"pos": tags} for tags in pos.predict([s.words for s in part])]
        for c, tags in zip(columns, pt0.predict([s.words for s in part], columns), strict=True):
            c["pt0"] = tags
        parser = load_tagger(next(Path(cfg.jackknife_dir).glob(f"psg-fold{k + 1}of3-*")))
        extra += off_path(parser, part, columns)
    data = prepare(cfg)
    print(f"{len(data.train)} gold level sentences + {len(extra)} explored states")
    data.train = data.train + extra
    train(cfg, data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
