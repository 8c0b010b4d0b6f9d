"""Where the parser's time goes: the CPU seconds of each part of `ParserModel.predict` on
EWT dev (the words, and POS from the shipped POS tagger, as `senna -psg` reads them), one
thread, in µs per token.

    python bench/parser_parts.py --data ../shared/data [--model senna/models/psg] [--rounds 3]

The parts: the parser's own PT0 tagger (the first level's phrases), its level network's
pass over the words (once per sentence: `kernels.sentence_states`), the level network
level after level (`kernels.level_scores`), the rest of the level scorer (the `below`
column's ids, the rows of the sentences still parsed), the level decoder (what is left of
`parse`), the NML tagger, and the trees written as CoNLL cells.  Each round is one pass
over the whole set; the median round counts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.speed import THREAD_VARS  # noqa: E402

os.environ.update({v: "1" for v in THREAD_VARS})   # before NumPy loads its BLAS

from senna.io.conll import read_gold_conll  # noqa: E402
from senna.runtime import kernels  # noqa: E402
from senna.runtime import parser as runtime_parser  # noqa: E402
from senna.runtime.ensemble import load_tagger  # noqa: E402
from senna.runtime.folders import default_model_dir  # noqa: E402
from senna.scoring.inputs import predict_inputs  # noqa: E402


def clocked(f: Callable, into: dict[str, float], part: str) -> Callable:
    """`f`, adding the CPU time of each call to into[part]."""
    def call(*args, **kwargs):
        start = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            into[part] = into.get(part, 0.0) + time.process_time() - start
    return call


@contextmanager
def timed(owner: object, name: str, into: dict[str, float], part: str) -> Iterator[None]:
    """`owner.name` clocked (`clocked`) for the block: a module's function, or an object's
    method (shadowed on the object, then unshadowed)."""
    original: Callable = getattr(owner, name)
    own = name in vars(owner)
    setattr(owner, name, clocked(original, into, part))
    try:
        yield
    finally:
        if own:
            setattr(owner, name, original)
        else:
            delattr(owner, name)


def one_round(parser: runtime_parser.ParserModel, words: list, columns: list
              ) -> dict[str, float]:
    """The CPU seconds of each part of one `predict` over all the sentences."""
    parts: dict[str, float] = {}
    scorer = parser._scorer   # each chunk's level scorer, clocked
    taggers = [(t, part) for t, part in ((parser.first_tagger, "pt0"),
                                         (parser.flattened.get("NML"), "nml")) if t is not None]
    with ExitStack() as stack:
        for owner, name, part in [(kernels, "sentence_states", "words"),
                                  (kernels, "level_scores", "levels"), (parser, "parse", "parse"),
                                  *((t, "predict", part) for t, part in taggers)]:
            stack.enter_context(timed(owner, name, parts, part))
        parser._scorer = lambda *args: clocked(scorer(*args), parts, "scorer")
        stack.callback(delattr, parser, "_scorer")
        start = time.process_time()
        parser.predict(words, columns)
        parts["total"] = time.process_time() - start
    return parts


ROWS = (
    ("the PT0 tagger (first level)", lambda p: p.get("pt0", 0.0)),
    ("level network: the words, once a sentence", lambda p: p["words"]),
    ("level network: level after level", lambda p: p["levels"]),
    ("level scorer: the rest (ids, rows)", lambda p: p["scorer"] - p["words"] - p["levels"]),
    ("level decoder", lambda p: p["parse"] - p["scorer"] - p.get("pt0", 0.0)
     - p.get("nml", 0.0)),
    ("the NML tagger", lambda p: p.get("nml", 0.0)),
    ("trees to CoNLL cells", lambda p: p["total"] - p["parse"]),
    ("all", lambda p: p["total"]),
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--model", default=str(default_model_dir() / "psg"))
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    parser = load_tagger(a.model)
    gold = read_gold_conll(a.data / "ewt" / "ewt.dev.gold_conll")
    inputs = predict_inputs([("pos", str(default_model_dir() / "pos"))], gold, a.model)
    words, columns = [s.words for s in inputs], [{"pos": s.columns["pos"]} for s in inputs]
    tokens = sum(map(len, words))
    rounds = [one_round(parser, words, columns) for _ in range(a.rounds)]
    print(f"{tokens:,} tokens, {len(words):,} sentences, median of {a.rounds} rounds")
    print("| part | s CPU | µs/token | share |")
    print("|---|---:|---:|---:|")
    total = statistics.median(r["total"] for r in rounds)
    for label, part in ROWS:
        seconds = statistics.median(part(r) for r in rounds)
        print(f"| {label} | {seconds:.2f} | {1e6 * seconds / tokens:.0f} | "
              f"{100 * seconds / total:.0f}% |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
