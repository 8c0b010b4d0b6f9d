"""`senna train`: options generated from senna.train.config.TrainConfig (one source of
truth); --help and bad settings are answered without importing PyTorch."""

from __future__ import annotations

import argparse

from senna.cli.args import Parser, UsageError, add_options
from senna.settings import read_settings
from senna.train.config import TrainConfig

INSTALL_HINT = ("pip install '.[train]' in a checkout of senna (it is not on PyPI), or "
                "pip install torch tqdm matplotlib")


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna train", description="Train a tagger on CoNLL data (needs PyTorch). "
               "A second run with the same --out resumes from its checkpoint.")
    p.add_argument("--config", metavar="FILE",
                   help="JSON file of settings (keys as below, e.g. batch_size); options given "
                        "on the command line override it")
    add_options(p, TrainConfig)
    return p


def main(argv: list[str]) -> int:
    args = vars(parser().parse_args(argv))
    path = args.pop("config")
    try:
        settings = read_settings(path) if path else {}
        settings.update({k: v for k, v in args.items() if v is not None})
        cfg = TrainConfig.from_dict(settings, path or "")
    except ValueError as e:
        raise UsageError(str(e), "senna train") from None
    try:
        from senna.train.loop import train
    except ImportError as e:
        raise ValueError(f"training needs PyTorch: {INSTALL_HINT} ({e})") from None
    state = train(cfg)
    print(f"best dev score {state['best']:.2f} at epoch {state.get('best_epoch')} "
          f"({state['seconds'] / 60:.1f} min); model in {cfg.out}")
    return 0
