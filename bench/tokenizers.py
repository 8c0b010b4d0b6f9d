"""Compare sentence splitters + PTB-style tokenisers on raw EWT dev text.

Why: `senna.text.tokenize` must turn raw text into the token stream the taggers
were trained on (PTB/EWT conventions), so the library behind it is chosen by
measuring it against EWT gold tokens instead of by reputation.

The raw text of each EWT dev document is rebuilt by joining its sentences'
``# text =`` comments with single spaces; gold token spans come from the FORM
column aligned to that text. Each candidate is scored on
  * token F1: exact character-offset spans,
  * sentence-boundary F1: end offsets of all sentences but the last of a document,
  * throughput: gold tokens per second (best of a few runs, split + tokenise).

Usage: python bench/tokenizers.py [DATA_DIR]   (default: ../shared/data from the repo root)
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path: this checkout's senna)

Span = tuple[int, int]
Splitter = Callable[[str], list[list[Span]]]

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Doc:
    """One EWT document: its raw text, gold token spans and sentence end offsets."""

    text: str
    tokens: list[Span] = field(default_factory=list)
    sent_ends: list[int] = field(default_factory=list)


def _align(text: str, pos: int, form: str) -> int:
    """Start of `form` in `text` at/after `pos` (skipping whitespace); -1 if absent."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if text.startswith(form, pos):
        return pos
    return text.find(form, pos)


def read_ewt(path: Path) -> tuple[list[Doc], int]:
    """Rebuild documents from a CoNLL-U file; returns docs and #unaligned tokens."""
    docs: list[Doc] = []
    sents: list[tuple[str, list[tuple[str, list[str]]]]] = []  # text, [(surface, words)]
    unaligned = 0

    def flush() -> None:
        nonlocal unaligned
        if not sents:
            return
        doc = Doc(" ".join(s for s, _ in sents))
        base = 0
        for stext, units in sents:
            pos = base
            for surface, words in units:
                start = _align(doc.text, pos, surface)
                if start < 0 or start >= base + len(stext):
                    unaligned += 1
                    continue
                if len(words) > 1 and "".join(words) == surface:
                    for w in words:  # multi-word token whose parts spell the surface
                        doc.tokens.append((start, start + len(w)))
                        start += len(w)
                    pos = start
                else:
                    doc.tokens.append((start, start + len(surface)))
                    pos = start + len(surface)
            doc.sent_ends.append(base + len(stext.rstrip()))
            base += len(stext) + 1
        docs.append(doc)
        sents.clear()

    text = ""
    units: list[tuple[str, list[str]]] = []
    mwt_end = 0
    with path.open(encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# newdoc"):
                flush()
            elif line.startswith("# text = "):
                text = line[len("# text = ") :]
            elif not line:
                if units:
                    sents.append((text, units))
                units, mwt_end = [], 0
            elif not line.startswith("#"):
                cols = line.split("\t")
                tid, form = cols[0], cols[1]
                if "." in tid:
                    continue  # empty node
                if "-" in tid:
                    _, hi = map(int, tid.split("-"))
                    units.append((form, []))
                    mwt_end = hi
                    continue
                if int(tid) <= mwt_end:
                    units[-1][1].append(form)
                else:
                    units.append((form, [form]))
    if units:
        sents.append((text, units))
    flush()
    return docs, unaligned


# --- candidates ---------------------------------------------------------------


def syntok_split(text: str) -> list[list[Span]]:
    """syntok segmenter, tokenizer keeping hyphens and 'n't' (offset-preserving mode)."""
    from syntok import segmenter
    from syntok.tokenizer import Tokenizer

    tok = Tokenizer(emit_hyphen_or_underscore_sep=True, replace_not_contraction=False)
    out: list[list[Span]] = []
    for offset, para in segmenter.preprocess_with_offsets(text):
        for sent in segmenter.segment(tok.tokenize(para, offset)):
            out.append([(t.offset, t.offset + len(t.value)) for t in sent if t.value])
    return out


def blingfire_split(text: str) -> list[list[Span]]:
    """blingfire sentence splitter, then its word tokenizer inside each sentence."""
    import blingfire

    out: list[list[Span]] = []
    _, sents = blingfire.text_to_sentences_and_offsets(text)
    for s0, s1 in sents:
        _, words = blingfire.text_to_words_with_offsets(text[s0:s1])
        out.append([(s0 + a, s0 + b) for a, b in words])
    return out


def nltk_split(text: str) -> list[list[Span]]:
    """Untrained Punkt sentence splitter + NLTKWordTokenizer.span_tokenize per sentence."""
    from nltk.tokenize import NLTKWordTokenizer, PunktSentenceTokenizer

    word = NLTKWordTokenizer()
    out: list[list[Span]] = []
    for s0, s1 in PunktSentenceTokenizer().span_tokenize(text):
        out.append([(s0 + a, s0 + b) for a, b in word.span_tokenize(text[s0:s1])])
    return out


def senna_split(text: str) -> list[list[Span]]:
    """The project's wrapper (chosen library + PTB/robustness fix-ups)."""
    from senna.text.tokenize import tokenize

    return [[(t.start, t.end) for t in sent] for sent in tokenize(text)]


CANDIDATES: dict[str, Splitter] = {
    "syntok 1.4": syntok_split,
    "blingfire 0.1": blingfire_split,
    "nltk 3 (punkt untrained + NLTKWordTokenizer)": nltk_split,
    "senna.text.tokenize (syntok + fix-ups)": senna_split,
}


# --- scoring ------------------------------------------------------------------


def f1(tp: int, n_pred: int, n_gold: int) -> float:
    """Harmonic mean of precision and recall, 0 when undefined."""
    if tp == 0:
        return 0.0
    p, r = tp / n_pred, tp / n_gold
    return 2 * p * r / (p + r)


def score(fn: Splitter, docs: list[Doc], repeats: int = 3) -> dict[str, float]:
    """Token F1, sentence-boundary F1 and throughput of one candidate."""
    preds = [fn(d.text) for d in docs]  # warm-up + the outputs that are scored
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for d in docs:
            fn(d.text)
        best = min(best, time.perf_counter() - t0)
    tp = n_pred = n_gold = 0
    btp = bn_pred = bn_gold = 0
    for d, sents in zip(docs, preds, strict=True):
        gold = set(d.tokens)
        pred = [s for sent in sents for s in sent]
        tp += len(gold.intersection(pred))
        n_pred += len(pred)
        n_gold += len(gold)
        gb = set(d.sent_ends[:-1])
        pb = {sent[-1][1] for sent in sents[:-1] if sent}
        btp += len(gb & pb)
        bn_pred += len(pb)
        bn_gold += len(gb)
    n_tokens = sum(len(d.tokens) for d in docs)
    return {
        "tok_p": tp / max(n_pred, 1),
        "tok_r": tp / max(n_gold, 1),
        "tok_f1": f1(tp, n_pred, n_gold),
        "sent_f1": f1(btp, bn_pred, bn_gold),
        "tok_per_s": n_tokens / best,
    }


def main(argv: list[str] | None = None) -> int:
    """Score every importable candidate and print a markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="?", type=Path, default=REPO / ".." / "shared" / "data")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    path = args.data / "ewt" / "en_ewt-ud-dev.conllu"
    docs, unaligned = read_ewt(path)
    n_tok = sum(len(d.tokens) for d in docs)
    n_sent = sum(len(d.sent_ends) for d in docs)
    print(f"EWT dev: {len(docs)} documents, {n_sent} sentences, {n_tok} gold tokens "
          f"({unaligned} unaligned and skipped)\n")
    print("| candidate | token P | token R | token F1 | sentence-boundary F1 | tokens/s |")
    print("|---|---|---|---|---|---|")
    for name, fn in CANDIDATES.items():
        try:
            r = score(fn, docs, args.repeats)
        except ImportError as e:
            print(f"| {name} | not installed ({e.name}) | | | | |")
            continue
        print(f"| {name} | {r['tok_p']:.4f} | {r['tok_r']:.4f} | {r['tok_f1']:.4f} "
              f"| {r['sent_f1']:.4f} | {r['tok_per_s']:,.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
