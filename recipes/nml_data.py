"""Training files for the parser's NML tagger, from the EWT trees or any other file of
trees (`.gold_conll` or bracketed, `read_treebank`).

    python recipes/nml_data.py [--data ../shared/data] [--out runs/nml]
    python recipes/nml_data.py --out runs/my-nml my/train.mrg my/dev.mrg

The parser's levels flatten `NML` nodes (`senna.syntax.levels.FLATTENED`), so a tagger of
its own puts them back (`insert_phrases`).  This writes, for EWT train and dev, one word a
line: the word, its gold POS and the IOBES tag of the outermost NML node over it
(`flattened_spans`; `O` elsewhere), a blank line between sentences: the files of a user's
task (`senna train --task nml --columns word,pos,nml`).  Files of trees given by name are
written to `--out` under their own names, `.nml` in place of their extension.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from senna.io.treebank import read_treebank
from senna.syntax.levels import GOLD_TREE, flattened_spans
from senna.syntax.tree import conll_to_tree
from senna.tags import spans_to_tags


def write(source: Path, target: Path, label: str = "NML") -> int:
    """One split -> its column file; -> the number of spans written."""
    count = 0
    with target.open("w", encoding="utf-8") as out:
        for s in read_treebank(str(source)):
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
    p.add_argument("--out", default="runs/nml", help="where the files go")
    p.add_argument("trees", nargs="*", help="files of trees (default: EWT train and dev)")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    sources = [Path(t) for t in a.trees] or \
        [Path(a.data) / "ewt" / f"ewt.{split}.gold_conll" for split in ("train", "dev")]
    for source in sources:
        target = out / source.with_suffix(".nml").name
        n = write(source, target)
        print(f"{target}: {n} NML spans")


if __name__ == "__main__":
    main()
