"""All-caps words folded at run time only (`--fold-caps`, senna.features.fold_caps): dev F1
of NER models trained without folding, scored as trained and with folding switched on
(`Featurizer.set_fold_caps`), each sentence in its `-DOCSTART-` document, without and with
the vote for one type per name (as users get it).  What the lookups alone give before a
model is trained with them.

    python bench/fold_caps.py --data ../shared/data [--models DIR ...]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from senna.io.conll import read_conll2003
from senna.runtime.ensemble import EnsembleModel, load_tagger
from senna.runtime.predict import predict_gold_inputs
from senna.scoring import score_predictions
from senna.tasks import TASKS

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--models", nargs="*", default=["senna/models/ner"],
                   help="NER model directories (default: the shipped one)")
    a = p.parse_args()
    task = TASKS["ner"]
    dev = read_conll2003(Path(a.data) / "conll2003" / "eng.testa")
    print("| model | trained with folding | as trained: Viterbi / with the vote "
          "| folded at run time: Viterbi / with the vote |")
    print("|---|---|---|---|")
    for d in a.models:
        model = load_tagger(Path(d))
        members = model.members if isinstance(model, EnsembleModel) else [model]
        trained = members[0].featurizer.fold_caps
        cells = []
        for fold in (trained, True):
            for m in members:
                m.featurizer.set_fold_caps(fold)
            f1 = [score_predictions(task, dev, predict_gold_inputs(model, task, dev,
                                                                   documents=vote))[0]["score"]
                  for vote in (False, True)]
            cells.append(f"{f1[0]:.2f} / {f1[1]:.2f}")
        print(f"| {d} | {'yes' if trained else 'no'} | {cells[0]} | {cells[1]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
