"""Agreement of the POS tagger with WSJ-convention tags before and after `senna.tagset`'s
mapping (docs/cli.md, "POS tags: Penn Treebank (WSJ) conventions").

    python bench/tagset.py [--data ../shared/data] [--model-dir DIR]

The POS model tags the words of CoNLL-2000's train.txt (WSJ text) as pre-tokenised
sentences; its EWT tags ("before") and their WSJ mapping ("after", what `senna` prints by
default) are compared with the file's POS column.  That column was tagged automatically (the
Brill tagger) with WSJ conventions, so the figures are agreement, not accuracy.

The file's words carry Penn Treebank escapes: -LRB- -RRB- -LCB- -RCB- for brackets, \\/ and
\\* for / and *, `` and '' for the straight double quote.  "raw" feeds the words with the
escapes undone (the text as written, as a user's input would be); "ptb" feeds them as in the
file (what PTB tokenisers such as NLTK's word_tokenize emit for quotes).

Rows group tokens by their WSJ tag in the file (or word), so each row's count is the same
for every column; the second table groups tokens by the EWT-only tag the tagger gave them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)

ROOT = Path(__file__).resolve().parent.parent
from senna.io.conll import read_conll2000  # noqa: E402
from senna.runtime.pipeline import Pipeline  # noqa: E402
from senna.tagset import EWT_TAGS, WSJ_TAGS, to_wsj  # noqa: E402

UNESCAPE = {"-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}", "-LSB-": "[",
            "-RSB-": "]", "``": '"', "''": '"'}
FORMS: dict[str, Callable[[str], str]] = {
    "raw": lambda w: UNESCAPE.get(w, w.replace("\\/", "/").replace("\\*", "*")),
    "ptb": lambda w: w,
}
EWT_ONLY = sorted(EWT_TAGS - WSJ_TAGS)
_NAMED = frozenset(": `` '' ( ) # SYM , .".split())
#: (row label, test on (word as in the file, WSJ tag in the file)).
ROWS: list[tuple[str, Callable[[str, str], bool]]] = [
    ("all tokens", lambda w, g: True),
    ('the word "to" (any case)', lambda w, g: w.lower() == "to"),
    ("WSJ `:` (; -- - ... :)", lambda w, g: g == ":"),
    ("WSJ opening and closing quotes", lambda w, g: g in ("``", "''")),
    ("WSJ ( and )", lambda w, g: g in ("(", ")")),
    ("WSJ # and SYM", lambda w, g: g in ("#", "SYM")),
    ("WSJ `,`", lambda w, g: g == ","),
    ("WSJ `.`", lambda w, g: g == "."),
    ("every other WSJ tag", lambda w, g: not (w.lower() == "to" or g in _NAMED)),
]


def tag_form(pipe: Pipeline, words: list[list[str]], form: str) -> tuple[list, list]:
    """EWT tags and their WSJ mapping for every sentence, the words fed in `form`."""
    fed = [[FORMS[form](w) for w in sent] for sent in words]
    ewt = [cols["pos"] for cols in pipe.annotate(fed)[0]]
    return ewt, [to_wsj(w, t) for w, t in zip(fed, ewt, strict=True)]


def pct(hits: int, n: int) -> str:
    return f"{100 * hits / n:.2f}" if n else "—"


def agreement(test: Callable[[str, str], bool], words: list[list[str]], gold: list[list[str]],
              tags: Sequence[list[str]]) -> tuple[int, int]:
    """(tokens passing `test`, those whose tag equals the file's)."""
    n = hits = 0
    for ws, gs, ts in zip(words, gold, tags, strict=True):
        for w, g, t in zip(ws, gs, ts, strict=True):
            if test(w, g):
                n += 1
                hits += t == g
    return n, hits


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--model-dir", help="models' root directory (default: the shipped ones)")
    a = p.parse_args()
    path = Path(a.data) / "conll2000" / "train.txt"
    sents = read_conll2000(path)
    words = [s.words for s in sents]
    gold = [s.columns["pos"] for s in sents]
    pipe = Pipeline(a.model_dir, ["pos"])
    tagged = {form: tag_form(pipe, words, form) for form in FORMS}

    print(f"POS agreement (%) with the WSJ-convention tags of {path.name} "
          f"({len(sents):,} sentences); EWT = as the tagger predicts, WSJ = mapped\n")
    print("| tokens (by the file's word / WSJ tag) | count | raw: EWT | raw: WSJ "
          "| ptb: EWT | ptb: WSJ |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, test in ROWS:
        cells, count = [], 0
        for form in FORMS:
            for tags in tagged[form]:
                count, hits = agreement(test, words, gold, tags)
                cells.append(pct(hits, count))
        print(f"| {label} | {count:,} | " + " | ".join(cells) + " |")

    print("\n| tokens the tagger gave an EWT-only tag | raw: count | raw: WSJ agrees "
          "| ptb: count | ptb: WSJ agrees |")
    print("|---|---:|---:|---:|---:|")
    for tag in EWT_ONLY:
        cells = []
        for form in FORMS:
            ewt, wsj = tagged[form]
            pairs = [(m, g) for es, ms, gs in zip(ewt, wsj, gold, strict=True)
                     for e, m, g in zip(es, ms, gs, strict=True) if e == tag]
            cells += [f"{len(pairs):,}", pct(sum(m == g for m, g in pairs), len(pairs))]
        print(f"| {tag} | " + " | ".join(cells) + " |")
    outside = {form: sorted({t for ts in tagged[form][1] for t in ts} - WSJ_TAGS)
               for form in FORMS}
    print("\nMapped tags outside the 45 WSJ tags: " + ", ".join(
        f"{form} {' '.join(tags) or 'none'}" for form, tags in outside.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
