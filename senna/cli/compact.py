"""`senna compact MODEL_DIR --rows float16`: store the word-table rows a model keeps beside its
embeddings (those training changed) in half precision, as the shipped embeddings are stored,
and its dictionaries (vocab/*.lst) gzip-compressed, a third of their size; `--weights
float16` stores the layers' matrices in half precision too (a BiLSTM's are half its size).

Why: a tagger trained jointly with the language model (the shipped SRL) changes most rows of
its word table and stores them all; in float16 they take half the space, and the model its
share of the 60 MB the project allows.  The rows are rounded once; the runtime reads them
back as float32, and the network computes as before.  The model's config records the
precision and this command, and its card says so.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from senna.cli.args import Parser
from senna.io.checkpoint import load_model, save_model
from senna.io.saved_model import ModelError
from senna.train.card import write_card


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna compact", description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="model directory (rewritten in place)")
    p.add_argument("--rows", choices=("float16", "float32"), required=True,
                   help="precision of the word-table rows stored beside the embeddings")
    p.add_argument("--weights", choices=("float16", "float32"), default=None,
                   help="precision of the layers' weight matrices (default: as they are; "
                        "biases and transition scores stay float32)")
    p.add_argument("--vocab", choices=("gzip", "text"), default="gzip",
                   help="dictionaries as vocab/NAME.lst.gz (default) or plain text "
                        "vocab/NAME.lst (the same entries)")
    return p


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    model = load_model(a.model)
    if "word_base" not in model.info and a.weights is None:
        raise ModelError(f"{a.model}: its word table is not stored as rows over embeddings "
                         "(nothing to compact)")
    before = model.info.get("rows_dtype", "float32")
    model.info["rows_dtype"] = a.rows
    if a.weights is not None:
        model.info["weights_dtype"] = a.weights
    model.info["vocab"] = a.vocab
    model.info["compacted"] = shlex.join(["senna", "compact", *argv])
    save_model(a.model, model)
    write_card(a.model)
    print(f"senna: {a.model}: word-table rows {before} -> {a.rows}"
          + (f", weight matrices {a.weights}" if a.weights else ""), file=sys.stderr)
    return 0
