"""Training files for the parser's NML tagger, from the EWT trees.

    python recipes/nml_data.py [--data ../shared/data] [--out runs/nml]

The parser's levels flatten `NML` nodes (`senna.syntax.levels.FLATTENED`), so a tagger of
its own puts them back (`insert_phrases`).  This writes, for EWT train and dev, one word a
line: the word, its gold POS and the IOBES tag of the outermost NML node over it
(`flattened_spans`; `O` elsewhere), a blank line between sentences: the files of a user's
task (`senna train --task nml --columns word,pos,nml`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from senna.io.conll import read_gold_conll
from senna.syntax.levels import GOLD_TREE, flattened_spans
from senna.syntax.tree import conll_to_tree
from senna.tags import spans_to_tags


def write(source: Path, target: Path, label: str = "NML") -> int:
    """One split -> its column file; -> the number of spans written."""
    count = 0
    with target.open("w", encoding="utf-8") as out:
        for s in read_gold_conll(str(source)):
            spans = flattened_spans(conll_to_tree(s.columns[GOLD_TREE]), label)
            count += len(spans)
            tags = spans_to_tags(spans, len(s.words), "iobes")
            for word, pos, tag in zip(s.words, s.columns["pos"], tags, strict=True):
                out.write(f"{word}\t{pos}\t{tag}\n")
            out.write("\n")
    return count


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="../shared/data", help="the shared data folder")
    p.add_argument("--out", default="runs/nml", help="where the two files go")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for split in ("train", "dev"):
        target = out / f"ewt.{split}.nml"
        n = write(Path(a.data) / "ewt" / f"ewt.{split}.gold_conll", target)
        print(f"{target}: {n} NML spans")


if __name__ == "__main__":
    main()
