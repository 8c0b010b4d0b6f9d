"""`senna manifest DIR ...`: load each model or embeddings directory with every check, then
write its manifest.json (the size and SHA-256 of each file loading reads).

Why: directories saved by an older senna have no manifest; they load with a warning, and a
file changed in them goes unnoticed.  The sub-models a directory holds (an ensemble's
members, the parser's pt0/ and nml/) are sealed first and recorded in its manifest as they
are now.  Saving (training, `senna compact`, `senna lm
export`, `senna export-embeddings`) writes the manifest itself.
"""

from __future__ import annotations

import argparse
import sys

from senna.cli.args import Parser
from senna.io.manifest import MANIFEST
from senna.runtime.ensemble import seal


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna manifest", description=__doc__.split("\n\n")[0])
    p.add_argument("dirs", nargs="+", metavar="DIR",
                   help="model or embeddings directory (its manifest.json is rewritten)")
    return p


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    for d in a.dirs:
        seal(d)   # an ensemble's members and a parser's own taggers first
        print(f"senna: {d}: {MANIFEST} written", file=sys.stderr)
    return 0
