"""`senna lm prepare|train|export`: the ranking language model of section 4, from raw text to
embeddings that `senna train --embeddings` and `senna neighbors` take."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields
from pathlib import Path


def _number(text: str) -> int:
    """'20M', '150k', '5000' -> int, for window counts and dictionary sizes."""
    scale = {"k": 1_000, "m": 1_000_000, "g": 1_000_000_000}.get(text[-1:].lower(), 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def parse_stages(text: str) -> list[list[int]]:
    """'5k:20M,10k:20M' -> [[5000, 20000000], [10000, 20000000]] (dictionary:windows)."""
    try:
        stages = [[_number(a), _number(b)] for a, b in (s.split(":") for s in text.split(","))]
    except ValueError:
        raise ValueError(f"--stages: expected SIZE:WINDOWS,... (e.g. 5k:20M,10k:20M), got "
                         f"{text!r}") from None
    if any(s < 3 or w < 1 for s, w in stages) or any(
            b[0] < a[0] for a, b in zip(stages, stages[1:], strict=False)):
        raise ValueError(f"--stages: dictionaries must grow and be >= 3 words: {text!r}")
    return stages


def parser() -> argparse.ArgumentParser:
    from senna.lm.train import LMConfig

    p = argparse.ArgumentParser(prog="senna lm", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    pre = sub.add_parser("prepare", help="tokenise and index unlabeled text (.txt, .xz, .gz)")
    pre.add_argument("sources", nargs="+")
    pre.add_argument("--out", required=True, help="corpus directory to write")
    pre.add_argument("--workers", type=int, default=2)
    pre.add_argument("--heldout-every", type=int, default=100,
                     help="every N-th article goes to the held-out slice (default: 100)")
    tr = sub.add_parser("train", help="train (or resume) the ranking language model")
    tr.add_argument("--config", help="JSON file of settings; options below override it")
    defaults = LMConfig()
    for f in fields(LMConfig):
        if f.name == "stages":
            continue
        value = getattr(defaults, f.name)
        tr.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=type(value),
                        default=None, help=f"(default: {value})")
    tr.add_argument("--stages", type=parse_stages, default=None,
                    help="curriculum as SIZE:WINDOWS,... (default: "
                    + ",".join(f"{s // 1000}k:{w // 1_000_000}M" for s, w in defaults.stages)
                    + ")")
    ex = sub.add_parser("export", help="write a trained model's embeddings")
    ex.add_argument("--model", required=True, help="the --out directory of `senna lm train`")
    ex.add_argument("--to", required=True, help="embeddings directory (or .txt with --format text)")
    ex.add_argument("--format", choices=("senna", "text"), default="senna")
    ex.add_argument("--dtype", choices=("float16", "float32"), default="float32")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError as e:
        raise ValueError(f"the language model needs PyTorch: pip install 'senna[train]' ({e})"
                         ) from None
    if args.command == "prepare":
        from senna.lm.corpus import prepare_corpus

        for s in args.sources:
            if not Path(s).is_file():
                raise ValueError(f"{s}: no such file")
        out = prepare_corpus(args.sources, args.out, workers=args.workers,
                             heldout_every=args.heldout_every)
        print(json.dumps(json.loads((out / "corpus.json").read_text())["words"]))
        return 0
    if args.command == "train":
        from senna.lm.train import LMConfig, launch

        settings = vars(args)
        settings.pop("command")
        config = settings.pop("config")
        merged = json.loads(Path(config).read_text()) if config else {}
        merged.update({k: v for k, v in settings.items() if v is not None})
        launch(LMConfig.from_json(json.dumps(merged)))
        return 0
    from senna.lm.export import export

    path = export(args.model, args.to, fmt=args.format, dtype=args.dtype)
    print(f"embeddings written to {path}")
    return 0
