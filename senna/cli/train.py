"""`senna train`: options generated from senna.train.loop.TrainConfig (one source of truth)."""

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
    settings.update({k: v for k, v in args.items() if v is not None})
    if "task" not in settings or "train" not in settings:
        raise ValueError("senna train needs --task and --train")
    state = train(TrainConfig.from_dict(settings))
    print(f"best dev score {state['best']:.2f} at epoch {state.get('best_epoch')} "
          f"({state['seconds'] / 60:.1f} min); model in {settings.get('out', 'runs/model')}")
    return 0
