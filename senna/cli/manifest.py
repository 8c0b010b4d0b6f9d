"""`senna manifest DIR ...`: load each model or embeddings directory with every check, then
write its manifest.json (the size and SHA-256 of each file loading reads).

Why: directories saved by an older senna have no manifest; they load with a warning, and a
file changed in them goes unnoticed.  Saving (training, `senna compact`, `senna lm
export`, `senna export-embeddings`) writes the manifest itself.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from senna.cli.args import Parser
from senna.embeddings import META_FILE, seal_embeddings
from senna.io.checkpoint import seal_model
from senna.io.manifest import MANIFEST


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna manifest", description=__doc__.split("\n\n")[0])
    p.add_argument("dirs", nargs="+", metavar="DIR",
                   help="model or embeddings directory (its manifest.json is rewritten)")
    return p


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    for d in a.dirs:
        (seal_embeddings if (Path(d) / META_FILE).exists() else seal_model)(d)
        print(f"senna: {d}: {MANIFEST} written", file=sys.stderr)
    return 0
