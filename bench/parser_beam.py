"""Whole-tree bracket F1 on EWT dev, and the parse's CPU time, of a parser decoded with
each beam width given (`ParserModel.beam`: partial parses kept per sentence; 1 is greedy,
level by level; `senna.syntax.decode`, module doc).

    python bench/parser_beam.py --data ../shared/data senna/models/psg --beam 1 2 4

Several parsers (the seeds of a recipe, say) are scored in one call, each with every beam,
on the same predicted POS; the last line gives their mean and range per beam.

POS comes from the shipped POS tagger and the first level's phrases from the parser's own
PT0 tagger, as `senna -psg` parses (`senna evaluate --model DIR --data ewt.dev.gold_conll`
prints the same F1 for the runtime's beam); its own NML tagger puts its nodes back.  The
time is that of `ParserModel.parse` alone, its PT0 and NML taggers included, on one thread.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)

from bench.speed import THREAD_VARS  # noqa: E402

os.environ.update({v: "1" for v in THREAD_VARS})   # one thread: before NumPy loads its BLAS

from senna.io.conll import read_gold_conll
from senna.runtime.ensemble import load_tagger
from senna.runtime.folders import default_model_dir
from senna.scoring.evalb import bracket_scores
from senna.scoring.inputs import predict_inputs
from senna.syntax.levels import unchain
from senna.syntax.tree import conll_to_tree


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--beam", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--sentences", type=int, default=0, help="the first N dev sentences only")
    ap.add_argument("--taggers", type=Path,
                    help="a parser folder whose own first-level and flattened-label taggers "
                         "(pt0/, nml/) the parser uses (a new level network scored as the "
                         "shipped parser is: --taggers senna/models/psg)")
    ap.add_argument("--without", action="append", choices=["pt0", "nml"], default=[],
                    help="parse without the parser's own PT0 tagger (its level network then "
                         "tags the first level too) or NML tagger (repeatable): what each "
                         "one adds")
    ap.add_argument("parsers", nargs="+", metavar="parser")
    a = ap.parse_args()
    gold = read_gold_conll(a.data / "ewt" / "ewt.dev.gold_conll")
    gold = gold[: a.sentences] if a.sentences else gold
    inputs = predict_inputs([("pos", str(default_model_dir() / "pos"))], gold, a.parsers[0])
    f1s: dict[int, list[float]] = {beam: [] for beam in a.beam}
    for path in a.parsers:
        parser = load_tagger(path)
        if a.taggers:
            parser.use_taggers(a.taggers, load_tagger)
        if "pt0" in a.without:
            parser.first_tagger = parser.first_level = None
        if "nml" in a.without:
            parser.flattened.pop("NML", None)
        for beam in a.beam:
            parser.beam = beam
            start = time.process_time()
            trees = parser.parse([s.words for s in inputs], [s.columns for s in inputs])
            seconds = time.process_time() - start
            score = bracket_scores([conll_to_tree(s.columns["parse"]) for s in gold],
                                   [unchain(t) for t in trees], [s.columns["pos"] for s in gold])
            f1s[beam].append(score.f1)
            print(f"{path}, beam {beam}: bracket F1 {score.f1:.2f} (P {score.precision:.2f}, "
                  f"R {score.recall:.2f}), {len(gold)} sentences, parse {seconds:.1f} s CPU",
                  flush=True)
    if len(a.parsers) > 1:
        print("; ".join(f"beam {beam}: mean {statistics.mean(v):.2f} (range "
                        f"{max(v) - min(v):.2f})" for beam, v in f1s.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
