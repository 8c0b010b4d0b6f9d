"""`senna lm prepare|train|export`: the ranking language model of section 4, from raw text to
embeddings that `senna train --embeddings` and `senna neighbors` take; `senna lm clusters`:
the cased word clusters that `senna train --clusters` takes."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from senna.cli.args import Parser, UsageError, add_options, missing_extra
from senna.cli.train import TRAIN_PACKAGES
from senna.features.specs import CLUSTER_SIZES
from senna.lm.config import DEFAULT_STAGES
from senna.settings import read_settings
from senna.text.tokenize import LANGUAGES


def _number(text: str) -> int:
    """'20M', '150k', '5000' -> int, for window counts and dictionary sizes."""
    scale = {"k": 1_000, "m": 1_000_000, "g": 1_000_000_000}.get(text[-1:].lower(), 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def parse_stages(text: str) -> list[list[int]]:
    """'5k:20M,10k:20M' -> [[5000, 20000000], [10000, 20000000]] (dictionary:windows)."""
    try:
        stages = [[_number(a), _number(b)] for a, b in (s.split(":") for s in text.split(","))]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected SIZE:WINDOWS,... (e.g. 5k:20M,10k:20M), "
                                         f"got {text!r}") from None
    if any(s < 3 or w < 1 for s, w in stages) or any(
            b[0] < a[0] for a, b in zip(stages, stages[1:], strict=False)):
        raise argparse.ArgumentTypeError(f"dictionaries must grow and be >= 3 words: {text!r}")
    return stages


def parser() -> argparse.ArgumentParser:
    from senna.lm.config import LMConfig

    p = Parser(prog="senna lm", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True, metavar="{prepare,train,export,clusters}")
    pre = sub.add_parser("prepare", help="tokenise and index unlabeled text (.txt, .xz, .gz)",
                         description="Tokenise and index unlabeled text for `senna lm train`.")
    pre.add_argument("sources", nargs="+", metavar="FILE",
                     help="text files (.txt, .xz, .gz), one paragraph per line")
    pre.add_argument("--out", required=True, help="corpus directory to write")
    pre.add_argument("--language", default="en", choices=LANGUAGES,
                     help="the tokenizer's conventions (those of the tagger's training data "
                          "for that language; default: en)")
    pre.add_argument("--workers", type=int, default=2,
                     help="tokenising processes (default: 2)")
    pre.add_argument("--heldout-every", type=int, default=100,
                     help="every N-th article goes to the held-out slice (default: 100)")
    tr = sub.add_parser("train", help="train (or resume) the ranking language model "
                        "(needs PyTorch)", description="Train the ranking language model "
                        "(needs PyTorch); a second run with the same --out resumes.")
    tr.add_argument("--config", metavar="FILE",
                    help="JSON file of settings (keys as below); options given here override it")
    add_options(tr, LMConfig, skip=("stages",))
    tr.add_argument("--stages", type=parse_stages, default=None, metavar="SIZE:WINDOWS,...",
                    help="curriculum: dictionary size and windows per stage (default: "
                    + ",".join(f"{s // 1000}k:{w // 1_000_000}M" for s, w in DEFAULT_STAGES)
                    + ")")
    ex = sub.add_parser("export", help="write a trained model's embeddings",
                        description="Write a trained language model's embeddings.")
    ex.add_argument("--model", required=True, help="the --out directory of `senna lm train`")
    ex.add_argument("--to", required=True, help="embeddings directory (or .txt with --format text)")
    ex.add_argument("--format", choices=("senna", "text"), default="senna",
                    help="senna: a directory `senna train --embeddings` and `senna neighbors` "
                         "read; text: word2vec/GloVe text (default: senna)")
    ex.add_argument("--dtype", choices=("float16", "float32"), default="float32",
                    help="stored precision of --format senna (default: float32)")
    cl = sub.add_parser("clusters", help="cluster cased words of unlabeled text (needs gensim)",
                        description="Tokenise unlabeled text keeping case, train word2vec "
                        "(gensim) and cluster the vectors of the most frequent words at "
                        "several granularities: the lexicon of `senna train --clusters`.")
    cl.add_argument("sources", nargs="+", metavar="FILE",
                    help="text files (.txt, .xz, .gz), one paragraph per line")
    cl.add_argument("--out", required=True,
                    help="directory to write (text.txt, clusters.lst, clusters.json); "
                         "a text.txt already there is reused")
    cl.add_argument("--sizes", default=",".join(map(str, CLUSTER_SIZES)),
                    help="cluster counts, comma separated (default: %(default)s)")
    cl.add_argument("--words", type=_number, default=150_000,
                    help="the most frequent words to cluster (default: 150k)")
    cl.add_argument("--dim", type=int, default=100, help="word2vec dimensions (default: 100)")
    cl.add_argument("--epochs", type=int, default=5, help="word2vec epochs (default: 5)")
    cl.add_argument("--workers", type=int, default=2,
                    help="tokenising processes and word2vec threads (default: 2)")
    cl.add_argument("--seed", type=int, default=1, help="random seed (default: 1)")
    return p


def clusters(args: argparse.Namespace) -> int:
    """`senna lm clusters`: tokenise (unless done), then word2vec and k-means."""
    from senna.lm.clusters import build, tokenise

    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        raise UsageError(f"--sizes: expected numbers, e.g. 64,512, got {args.sizes!r}",
                         "senna lm clusters") from None
    if any(s < 2 for s in sizes) or args.words < max(sizes):
        raise UsageError("--sizes: each at least 2 and at most --words", "senna lm clusters")
    try:
        import gensim  # noqa: F401
    except ImportError as e:
        raise ValueError(f"word clusters need gensim: pip install gensim ({e})") from None
    # gensim reports word2vec's progress through logging (a line every few seconds)
    logging.basicConfig(format="%(asctime)s %(message)s", level=logging.WARNING)
    logging.getLogger("gensim.models.word2vec").setLevel(logging.INFO)
    text = Path(args.out) / "text.txt"
    if not text.exists():
        for s in args.sources:
            if not Path(s).is_file():
                raise ValueError(f"{s}: no such file")
        text = tokenise(args.sources, args.out, workers=args.workers)
    out = build(text, args.out, sizes=sizes, words=args.words, dim=args.dim,
                epochs=args.epochs, workers=args.workers, seed=args.seed)
    print(f"clusters written to {out / 'clusters.lst'}")
    return 0


def main(argv: list[str]) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.command == "train":
        from senna.lm.config import LMConfig

        settings = dict(vars(args))
        settings.pop("command")
        config = settings.pop("config")
        try:
            merged = read_settings(config) if config else {}
            merged.update({k: v for k, v in settings.items() if v is not None})
            cfg = LMConfig.from_json(json.dumps(merged))
        except ValueError as e:
            raise UsageError(str(e), "senna lm train") from None
    if args.command == "clusters":
        return clusters(args)
    try:
        import torch  # noqa: F401
    except ImportError as e:
        raise missing_extra("the language model needs PyTorch", "train", TRAIN_PACKAGES,
                            e) from None
    if args.command == "prepare":
        from senna.lm.corpus import prepare_corpus

        for s in args.sources:
            if not Path(s).is_file():
                raise ValueError(f"{s}: no such file")
        out = prepare_corpus(args.sources, args.out, workers=args.workers,
                             heldout_every=args.heldout_every, language=args.language)
        print(json.dumps(json.loads((out / "corpus.json").read_text())["words"]))
        return 0
    if args.command == "train":
        from senna.lm.train import launch

        launch(cfg)
        return 0
    from senna.lm.export import export

    path = export(args.model, args.to, fmt=args.format, dtype=args.dtype)
    print(f"embeddings written to {path}")
    return 0
