"""`senna models [DIR]`: the models a folder holds (default: the shipped ones), each with its
task, language, training data, dev score and the terms of use that follow from its data and
its embeddings, as `spacy info` lists spaCy's."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from senna.cli.args import Parser
from senna.runtime.catalog import catalog
from senna.runtime.folders import default_model_dir


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna models", description=__doc__.split("\n\n")[0])
    p.add_argument("dir", nargs="?", metavar="DIR",
                   help="a folder of models (default: the shipped models)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per model, with each licence in full")
    return p


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    root = Path(a.dir) if a.dir else default_model_dir()
    if not root.is_dir():
        print(f"senna models: error: {root} is not a directory", file=sys.stderr)
        return 1
    try:
        models = catalog(root)
    except (OSError, ValueError) as e:   # a folder that is not a model (ModelError, ...)
        print(f"senna models: error: {e}", file=sys.stderr)
        return 1
    if a.json:
        for m in models:
            print(json.dumps(m.to_dict(), ensure_ascii=False))
        return 0
    rows = [("model", "task", "lang", "trained on", "dev", "terms")] + [
        (m.name, m.task, m.language, m.data, m.dev, m.terms) for m in models]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[5])
    print(f"\n{root}: details and each licence in full: senna models --json, or each "
          "folder's MODEL_CARD.md")
    return 0
