"""`senna.train.run`: training as one library call, doing what `senna train` does (the
command only parses its options into the same call).

A plan (senna.train.plan) is one of four runs: one task (senna.train.loop.train), several
tasks in one model (senna.train.joint), or either once per seed and then their ensemble
(senna.train.ensemble).
"""

from __future__ import annotations

from typing import Any

from senna.train.ensemble import train_ensemble
from senna.train.joint import train_joint, train_joint_seeds
from senna.train.joint_config import JointConfig
from senna.train.loop import train
from senna.train.plan import Config, Plan, TrainResult, make_plan
from senna.train.prepare import prepare


def run(config: Config = None, **options: Any) -> TrainResult:
    """Train as `senna train --config CONFIG --OPTION VALUE ...` does, e.g.
    `run("recipes/pos.json", out="runs/pos", epochs=5)` or `run({"task": "ner", "train":
    FILE}, seeds="1,2,3")`: `config` a settings file or dict, `options` override it (keys
    as the options' names with '_', e.g. batch_size; see senna.train.plan.make_plan).
    ValueError for settings that cannot train; -> what was trained and its dev scores."""
    return execute(make_plan(config, **options))


def execute(plan: Plan) -> TrainResult:
    """Train what `plan` says; -> its result."""
    cfg = plan.config
    if isinstance(cfg, JointConfig):
        if plan.seeds:
            return TrainResult(plan, ensembles=train_joint_seeds(cfg, list(plan.seeds)))
        return TrainResult(plan, state=train_joint(cfg))
    if plan.seeds:
        spec = train_ensemble(cfg, list(plan.seeds), plan.joined_epochs)
        return TrainResult(plan, ensembles={cfg.task: spec})
    return TrainResult(plan, state=train(cfg, prepare(cfg)))
