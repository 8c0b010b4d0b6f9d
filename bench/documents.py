"""One type per name in a document (senna.decode.documents): NER dev F1 of each model given,
decoded by Viterbi alone, with the vote inside each sentence (what `senna` gives a line of
one sentence), and inside each `-DOCSTART-` document (what a whole story gives).

    python bench/documents.py --data ../shared/data [--models DIR ...]

By default the shipped NER model and the NER models under runs/ that the recipes leave
there (the silver data's teachers, earlier students), so the gain is seen on more than the
one model it was tried on first.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from senna.datasets import model_config
from senna.document import Sentence
from senna.io.conll import read_conll2003
from senna.runtime.ensemble import load_tagger
from senna.runtime.predict import predict_gold_inputs
from senna.scoring import score_predictions
from senna.tasks import TASKS

ROOT = Path(__file__).resolve().parents[1]
RUNS = ("runs/ner-teachers/seed3", "runs/ner-teachers/seed3-average",
        "runs/ner-teachers/seed2-lr", "runs/s11/ner16k-seed2", "runs/s11/ner16k-seed3")


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
    print("| model | Viterbi | one type per name in a sentence | in a document | gain |")
    print("|---|---|---|---|---|")
    gains = []
    for d in dirs:
        path = Path(d) if Path(d).is_absolute() else ROOT / d
        if model_config(path).get("task") != "ner":
            continue
        model = load_tagger(path)
        raw = predict_gold_inputs(model, task, dev, documents=False)
        plain = score_predictions(task, dev, raw)[0]["score"]
        alone = [Sentence(s.words, s.columns, doc=i) for i, s in enumerate(dev)]
        sent = score_predictions(task, dev, predict_gold_inputs(model, task, alone))[0]["score"]
        docs = score_predictions(task, dev, predict_gold_inputs(model, task, dev))[0]["score"]
        gains.append(docs - plain)
        print(f"| {d} | {plain:.2f} | {sent:.2f} | {docs:.2f} | {docs - plain:+.2f} |")
    if gains:
        print(f"\nMean gain over {len(gains)} models: {sum(gains) / len(gains):+.2f} F1")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
