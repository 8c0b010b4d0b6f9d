"""What tagging long sentences in pieces costs on the dev sets: each shipped model's dev
score through the whole cascade (`Pipeline`, as `senna` tags new text) with sentences cut
at MAX_WORDS words (the default), never cut, and cut at a much shorter length to show what
cutting costs where it happens.

    python bench/pieces.py --data ../shared/data [--short 32] [--tasks pos,chunk,ner,pt0,srl]

SRL is tagged on the gold predicates.  The dev sets are those the models were scored on
(`recorded_dev_set`: EWT dev for POS, PT0 and SRL; CoNLL-2003 eng.testa for NER; the last
10% of CoNLL-2000 train for CHUNK).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from senna.runtime.folders import default_model_dir
from senna.runtime.pipeline import Pipeline
from senna.scoring.inputs import recorded_dev_set
from senna.scoring.predictions import score_predictions
from senna.text.pieces import MAX_WORDS

ROOT = Path(__file__).resolve().parents[1]
NEVER = 10**9


def dev_score(task: str, data: Path, max_words: int) -> tuple[float, int, int]:
    """(dev score, sentences, longest sentence) of the cascade with pieces of max_words."""
    spec, dev = recorded_dev_set(default_model_dir() / task, data)
    pipe = Pipeline(None, [task], max_words=max_words)
    words = [s.words for s in dev]
    preds = [s.predicates for s in dev] if spec.per_predicate else None
    columns, roles = pipe.annotate(words, preds, [s.doc for s in dev])
    if spec.per_predicate:
        predicted = [list(r[p]) for s, r in zip(dev, roles, strict=True) for p in s.predicates]
    else:
        predicted = [c[task] for c in columns]
    return score_predictions(spec, dev, predicted)[0]["score"], len(dev), max(map(len, words))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--short", type=int, default=32, help="the much shorter piece length")
    p.add_argument("--tasks", default="pos,chunk,ner,pt0,srl")
    a = p.parse_args(argv)
    print(f"| task | dev sentences | longest | pieces of {MAX_WORDS} (default) | never cut "
          f"| pieces of {a.short} |")
    print("|---|---:|---:|---:|---:|---:|")
    for task in a.tasks.split(","):
        scores = [dev_score(task, Path(a.data), n) for n in (MAX_WORDS, NEVER, a.short)]
        _, count, longest = scores[0]
        print(f"| {task} | {count:,} | {longest} | "
              + " | ".join(f"{s:.2f}" for s, _, _ in scores) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
