"""`senna train`: options generated from the settings dataclasses (senna.train.config's
TrainConfig, senna.train.joint_config's JointConfig: one source of truth), parsed into one
call of the library's training (senna.train.runner.run); --help and bad settings are
answered without importing PyTorch.

`--tasks a,b,...` (or a config with a "tasks" entry) trains one model jointly on several tasks
(senna.train.joint): each task's settings come from `--recipes DIR/<task>.json` (default:
the repository's recipes/) unless the config gives them, and the joint options
(`--share-l1`, `--sampling`, `--epochs`, ...) apply to all.
"""

from __future__ import annotations

import argparse
from dataclasses import fields

from senna.cli.args import Parser, UsageError, add_options, missing_extra
from senna.train.config import SECTIONS, TrainConfig
from senna.train.joint_config import JOINT_OPTIONS, JointConfig
from senna.train.plan import JOINED_HELP, RECIPES_HELP, SEEDS_HELP, make_plan

TRAIN_PACKAGES = "torch tqdm matplotlib"   # the `train` extra, for missing_extra
JOINT_TITLE = "multi-task learning (one model trained on several tasks)"


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna train", usage="senna train [--config FILE] [OPTION ...]",
               description="Train a tagger on CoNLL data (needs PyTorch). "
               "A second run with the same --out resumes from its checkpoint.")
    p.add_argument("--config", metavar="FILE",
                   help="JSON file of settings (keys as below, e.g. batch_size); options given "
                        "on the command line override it")
    joint = p.add_argument_group(JOINT_TITLE)
    tasks = next(f for f in fields(JointConfig) if f.name == "tasks")
    joint.add_argument("--tasks", metavar="TASKS", help=tasks.metadata["help"])
    joint.add_argument("--recipes", metavar="DIR", default=None, help=RECIPES_HELP)
    add_options(joint, JointConfig, sections={},
                skip=tuple(f.name for f in fields(JointConfig) if f.name not in JOINT_OPTIONS))
    ensemble = p.add_argument_group("ensembles (section 6.1)")
    ensemble.add_argument("--seeds", metavar="S1,S2,...", help=SEEDS_HELP)
    ensemble.add_argument("--joined-epochs", dest="joined_epochs", type=int, default=None,
                          help=JOINED_HELP)
    add_options(p, TrainConfig, sections=SECTIONS)
    return p


def main(argv: list[str]) -> int:
    args = vars(parser().parse_args(argv))
    try:
        plan = make_plan(args.pop("config"), **args)
    except ValueError as e:
        raise UsageError(str(e), "senna train") from None
    print(_import("senna.train.runner", "execute")(plan).summary())
    return 0


def _import(module: str, name: str):
    """A training entry point; a clear error without PyTorch."""
    import importlib

    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as e:
        raise missing_extra("training needs PyTorch", "train", TRAIN_PACKAGES, e) from None
