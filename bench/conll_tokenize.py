"""How often raw text rebuilt from CoNLL gold tokens tokenises back to those tokens.

Why: the NER data of CoNLL-2002 (Spanish, Dutch) and CoNLL-2003 (English) gives words but
no raw text; a model trained on them meets `senna.text.tokenize`'s tokens at run time, so
its agreement with the gold tokens is measured on text written back from them.

Each sentence's words are joined as a writer would type them: no space before
``, . ; : ? ! ) ] } %`` and closing quotes, none after ``( [ { ¿ ¡`` and opening quotes
(straight double quotes alternate, opening first, within a sentence); with --spaced, single
spaces between all words.  Up to --doc-size sentences in a row of one document (a
-DOCSTART- block; Spanish has none) are joined by spaces and tokenised as one text.

Scores: token precision / recall / F1 on exact character spans; the share of gold
sentences whose tokens all come back exactly (nothing else inside them); sentence-boundary
F1 on the ends of all sentences but a document's last.  --dump FILE writes each gold
sentence's tokenisation as one line (tokens joined by spaces, "|" where the tokeniser
starts a sentence inside it), so two versions of the tokeniser can be diffed line by line.

Usage: python bench/conll_tokenize.py FILE... [--language L] [--format F] [--spaced]
       [--doc-size N] [--dump OUT]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path: this checkout's senna)

from senna.io.formats import read_dataset
from senna.io.lines import DataFormatError
from senna.text.tokenize import LANGUAGES, tokenize

Span = tuple[int, int]

NO_SPACE_BEFORE = frozenset(",.;:?!)]}%»”’") | {"...", "…", "'s", "n't"}
NO_SPACE_AFTER = frozenset("([{¿¡«“‘")


@dataclass
class Doc:
    """Text rebuilt from gold sentences, with their token spans and (start, end) ranges."""

    text: str = ""
    tokens: list[Span] = field(default_factory=list)
    sents: list[Span] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)  # gold tokens per sentence


def join_words(words: list[str], spaced: bool) -> tuple[str, list[Span]]:
    """One sentence's words as text, and each word's span in it."""
    text, spans, glue, quotes = "", [], False, 0
    for w in words:
        closing = w == '"' and quotes % 2 == 1
        if text and not glue and not spaced and not (w in NO_SPACE_BEFORE or closing):
            text += " "
        elif text and spaced:
            text += " "
        spans.append((len(text), len(text) + len(w)))
        text += w
        glue = w in NO_SPACE_AFTER or (w == '"' and not closing)
        quotes += w == '"'
    return text, spans


def build_docs(paths: list[Path], fmt: str | None, spaced: bool, doc_size: int) -> list[Doc]:
    """The files' sentences as documents of rebuilt text."""
    docs: list[Doc] = []
    for path in paths:
        last = None
        for sent in read_dataset(path, fmt):
            if sent.doc != last or len(docs[-1].sents) == doc_size:
                docs.append(Doc())
                last = sent.doc
            doc = docs[-1]
            text, spans = join_words(sent.words, spaced)
            base = len(doc.text) + (1 if doc.text else 0)
            doc.text += (" " if doc.text else "") + text
            doc.tokens.extend((base + s, base + e) for s, e in spans)
            doc.sents.append((base, base + len(text)))
            doc.sizes.append(len(spans))
    return docs


def f1(tp: int, n_pred: int, n_gold: int) -> float:
    """Harmonic mean of precision and recall, 0 when undefined."""
    return 2 * tp / (n_pred + n_gold) if tp else 0.0


def score(docs: list[Doc], language: str) -> tuple[dict[str, float], list[str]]:
    """Scores over all documents, and each gold sentence's tokenisation as a line."""
    tp = n_pred = n_gold = exact = n_sents = 0
    btp = bn_pred = bn_gold = 0
    lines: list[str] = []
    for doc in docs:
        sents = [[(t.start, t.end) for t in s] for s in tokenize(doc.text, language)]
        starts = {s[0][0] for s in sents[1:]}
        pred = [sp for s in sents for sp in s]
        gold = set(doc.tokens)
        tp += len(gold.intersection(pred))
        n_pred, n_gold = n_pred + len(pred), n_gold + len(gold)
        gb = {e for _, e in doc.sents[:-1]}
        pb = {s[-1][1] for s in sents[:-1]}
        btp, bn_pred, bn_gold = btp + len(gb & pb), bn_pred + len(pb), bn_gold + len(gb)
        k = 0
        for (lo, hi), size in zip(doc.sents, doc.sizes, strict=True):
            while k < len(pred) and pred[k][0] < lo:
                k += 1
            inside = []
            while k < len(pred) and pred[k][0] < hi:
                inside.append(pred[k])
                k += 1
            n_sents += 1
            exact += len(inside) == size and all(sp in gold for sp in inside)
            lines.append(" ".join(("| " if s in starts and s != lo else "") + doc.text[s:e]
                                  for s, e in inside))
    return {"sentences": n_sents, "tokens": n_gold, "tok_p": tp / max(n_pred, 1),
            "tok_r": tp / max(n_gold, 1), "tok_f1": f1(tp, n_pred, n_gold),
            "sent_exact": exact / max(n_sents, 1),
            "sent_f1": f1(btp, bn_pred, bn_gold)}, lines


def main(argv: list[str] | None = None) -> int:
    """Score the files and print one markdown table row (and write --dump)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--format", default=None, help="reader format (default: guessed)")
    ap.add_argument("--language", default="en", choices=LANGUAGES,
                    help="the tokeniser's conventions (senna.text.tokenize)")
    ap.add_argument("--spaced", action="store_true", help="join all words by single spaces")
    ap.add_argument("--doc-size", type=int, default=20,
                    help="sentences per text at most (0: a whole -DOCSTART- block)")
    ap.add_argument("--dump", type=Path, help="write each gold sentence's tokenisation here")
    args = ap.parse_args(argv)
    try:
        docs = build_docs(args.files, args.format, args.spaced, args.doc_size)
    except (DataFormatError, OSError) as e:
        ap.error(str(e))
    r, lines = score(docs, args.language)
    print("| files | sentences | gold tokens | token P | token R | token F1 "
          "| sentences exact | sentence-boundary F1 |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {' '.join(p.name for p in args.files)} | {r['sentences']} | {r['tokens']} "
          f"| {r['tok_p']:.4f} | {r['tok_r']:.4f} | {r['tok_f1']:.4f} "
          f"| {r['sent_exact']:.4f} | {r['sent_f1']:.4f} |")
    if args.dump:
        args.dump.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
