"""`senna train`: options generated from senna.train.loop.TrainConfig (one source of truth).

`--tasks a,b,...` (or a config with a "tasks" entry) trains one model jointly on several tasks
(senna.train.joint): each task's settings come from `--recipes DIR/<task>.json` (default:
the repository's recipes/) unless the config gives them, and the joint options
(`--share-l1`, `--sampling`, `--epochs`, ...) apply to all.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import MISSING, fields


def _flag(text: str) -> bool:
    if text.lower() not in ("1", "0", "true", "false", "yes", "no"):
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return text.lower() in ("1", "true", "yes")


def parser() -> argparse.ArgumentParser:
    from senna.train.loop import TrainConfig

    p = argparse.ArgumentParser(prog="senna train", description="Train a tagger on CoNLL data.")
    p.add_argument("--config", help="JSON file of settings; command-line options override it")
    p.add_argument("--tasks", help="train one model jointly on these tasks, e.g. "
                   "pos,chunk,ner,pt0 (multi-task learning)")
    p.add_argument("--recipes", default="recipes",
                   help="with --tasks: directory of per-task settings <task>.json")
    p.add_argument("--share-l1", dest="share_l1", type=_flag, default=None,
                   help="with --tasks: window tasks share the first layer (default: true)")
    p.add_argument("--sampling", choices=("proportional", "uniform"), default=None,
                   help="with --tasks: how the next task is picked (default: proportional)")
    for f in fields(TrainConfig):
        kind = {"int": int, "float": float, "bool": _flag}.get(str(f.type).split(" ")[0], str)
        default = None if f.default is MISSING else f.default
        p.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=kind, default=None,
                       help=f"(default: {default})")
    return p


def main(argv: list[str]) -> int:
    try:
        from senna.train.loop import TrainConfig, train
    except ImportError as e:
        raise ValueError(f"training needs PyTorch: pip install 'senna[train]' ({e})") from None
    args = vars(parser().parse_args(argv))
    settings = json.load(open(args.pop("config"))) if args.get("config") else {}
    args.pop("config", None)
    recipes = args.pop("recipes")
    if args.get("tasks") or "tasks" in settings:
        return joint(settings, args, recipes)
    for key in ("tasks", "share_l1", "sampling"):
        args.pop(key)
    settings.update({k: v for k, v in args.items() if v is not None})
    if "task" not in settings or "train" not in settings:
        raise ValueError("senna train needs --task and --train")
    state = train(TrainConfig.from_dict(settings))
    print(f"best dev score {state['best']:.2f} at epoch {state.get('best_epoch')} "
          f"({state['seconds'] / 60:.1f} min); model in {settings.get('out', 'runs/model')}")
    return 0


def joint(settings: dict, args: dict, recipes: str) -> int:
    """Multi-task training: per-task settings from the config or from the recipes."""
    from pathlib import Path

    from senna.tasks import normalize_tasks
    from senna.train.joint import JointConfig, train_joint

    names = args.pop("tasks")
    if names:
        given = settings.get("tasks", {})
        settings["tasks"] = {t: given.get(t, f"{t}.json") for t in normalize_tasks(names)}
    joint_keys = {f.name for f in fields(JointConfig)}
    ignored = sorted(k for k, v in args.items() if v is not None and k not in joint_keys)
    if ignored:
        raise ValueError(f"with --tasks, set {', '.join(ignored)} in the per-task settings "
                         "(recipes or the config's \"tasks\" entry)")
    settings.update({k: v for k, v in args.items() if v is not None})
    cfg = JointConfig.from_dict(settings, Path(recipes))
    state = train_joint(cfg)
    best = ", ".join(f"{t} {b['score']:.2f} (epoch {b['epoch']})"
                     for t, b in state["best"].items())
    print(f"best dev scores: {best}; models in {cfg.out}/<task>")
    return 0
