"""NER in documents (senna.decode.documents): dev F1 of each model given, each sentence
tagged alone (without and with the vote for one type per name, which then only sees the
sentence), then in its `-DOCSTART-` document without and with the vote.  Tokens/s: tagging
eng.testa
in-process, one thread (CPU time, after a first warming pass), sentences alone against in
documents with the vote.

    python bench/documents.py --data ../shared/data [--models DIR ...]

By default the shipped NER model and the NER models under runs/ that the recipes and
experiments leave there (the silver data's teachers, earlier students), so the gain is seen
on more than the one model it was tried on first.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from senna.document import Sentence
from senna.io.conll import read_conll2003
from senna.runtime.ensemble import folder_config, load_tagger
from senna.runtime.predict import predict_gold_inputs
from senna.scoring.predictions import score_predictions
from senna.tasks import TASKS

ROOT = Path(__file__).resolve().parents[1]
RUNS = ("runs/ner-teachers/seed3", "runs/ner-teachers/seed3-average",
        "runs/ner-teachers/seed2-lr", "runs/s11/ner16k-seed2", "runs/s11/ner16k-seed3",
        "runs/s17/ner-doc-d2", "runs/s17/ner-doc-d5", "runs/s17/ner-doc-d2-s3")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--models", nargs="*", default=None,
                   help="NER model directories (default: the shipped one and those of RUNS "
                        "that exist)")
    a = p.parse_args()
    dirs = a.models or ["senna/models/ner", *(r for r in RUNS if (ROOT / r).is_dir())]
    task = TASKS["ner"]
    dev = read_conll2003(Path(a.data) / "conll2003" / "eng.testa")
    print(f"NER dev (eng.testa): {len(dev)} sentences in {len({s.doc for s in dev})} "
          "documents\n")
    print("| model | sentences alone | alone, with the vote | in documents, "
          "no vote | in documents and the vote (as users get it) | gain | tokens/s alone / "
          "in documents |")
    print("|---|---|---|---|---|---|---|")
    tokens = sum(len(s.words) for s in dev)
    gains = []
    alone = [Sentence(s.words, s.columns, doc=i) for i, s in enumerate(dev)]
    for d in dirs:
        path = Path(d) if Path(d).is_absolute() else ROOT / d
        if folder_config(path).get("task") != "ner":
            continue
        model = load_tagger(path)

        def f1(sentences: list, vote: bool, model=model) -> tuple[float, float]:
            """(F1, tokens per CPU second of tagging)."""
            t0 = time.process_time()
            tags = predict_gold_inputs(model, task, sentences, documents=vote)
            rate = tokens / (time.process_time() - t0)
            return score_predictions(task, dev, tags)[0]["score"], rate

        f1(alone, False)   # warm: every word's character vector computed once
        (first, fast), (voted, _) = f1(alone, False), f1(alone, True)
        (docs, _), (both, slow) = f1(dev, False), f1(dev, True)
        gains.append(both - first)
        print(f"| {d} | {first:.2f} | {voted:.2f} | {docs:.2f} | {both:.2f} "
              f"| {both - first:+.2f} | {fast:,.0f} / {slow:,.0f} |")
    if gains:
        print(f"\nMean gain over {len(gains)} models: {sum(gains) / len(gains):+.2f} F1 "
              "(in documents with the vote, against sentences alone)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
