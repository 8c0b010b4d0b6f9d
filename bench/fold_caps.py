"""All-caps words folded (`--fold-caps`, senna.features.fold_caps) on CoNLL-2003 eng.testa:
what the cased lists miss in all-caps (headline) sentences, where the first model's type
errors are, and the dev F1 of each model scored as trained and with folding switched on at
run time (`Featurizer.set_fold_caps`), each sentence in its `-DOCSTART-` document, without
and with the vote for one type per name (as users get it).

    python bench/fold_caps.py --data ../shared/data [--models DIR ...]

The first two tables read the first model's cluster lexicon and gazetteer.  A sentence is
all-caps when more than 80% of its letters are capitals; a word starts a sentence when it is
first or follows an opening quote, a dash, a colon or a bracket.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import numpy as np

from senna.features import fold_caps
from senna.io.conll import read_conll2003
from senna.runtime.ensemble import EnsembleModel, load_tagger
from senna.runtime.predict import predict_gold_inputs
from senna.scoring import score_predictions
from senna.tasks import TASKS

ROOT = Path(__file__).resolve().parents[1]
OPENERS = ('"', "``", "-", ":", "(")


def all_caps(words: list[str]) -> bool:
    letters = [c for c in "".join(words) if c.isalpha()]
    return bool(letters) and sum(c.isupper() for c in letters) / len(letters) > 0.8


def coverage(model, dev: list) -> None:
    """Share of words outside the lexicon, and of name words the gazetteer flags."""
    fz = model.featurizer
    caps = [s for s in dev if all_caps(s.words)]
    rest = [s for s in dev if not all_caps(s.words)]
    print("| eng.testa | words | as written | folded |")
    print("|---|---:|---:|---:|")
    if fz.lexicon is not None:
        size = fz.lexicon.sizes[0]
        for name, part in (("all-caps sentences", caps), ("other sentences", rest)):
            words = [w for s in part for w in s.words if any(c.isalpha() for c in w)]
            out = [float((fz.lexicon.lookup(list(words), size, fold) < 0).mean())
                   for fold in (False, True)]
            print(f"| outside the cluster lexicon, {name} | {len(words):,} "
                  f"| {out[0]:.1%} | {out[1]:.1%} |")
    if fz.gazetteer is not None:
        names = np.array([t != "O" for s in caps for t in s.columns["ner"]])
        plain = fz.gazetteer.match([s.words for s in caps]).any(1)
        folded = plain | fz.gazetteer.match([[fold_caps(w) for w in s.words]
                                             for s in caps]).any(1)
        print(f"| name words of all-caps sentences the gazetteer flags | {names.sum():,} "
              f"| {plain[names].mean():.1%} | {folded[names].mean():.1%} |")
    print()


def errors(model, dev: list) -> None:
    """Words whose entity type (PER, LOC, ORG, MISC or none) the model gets wrong."""
    task = TASKS["ner"]
    tags = predict_gold_inputs(model, task, dev, documents=True)
    words, wrong = Counter(), Counter()
    for s, predicted in zip(dev, tags, strict=True):
        caps = all_caps(s.words)
        for i, (gold, got) in enumerate(zip(s.columns["ner"], predicted, strict=True)):
            where = ("all-caps sentences" if caps else "sentence starts"
                     if i == 0 or s.words[i - 1] in OPENERS else "elsewhere")
            words[where] += 1
            wrong[where] += gold.split("-")[-1] != got.split("-")[-1]
    print("| words of eng.testa | words | type wrong |")
    print("|---|---:|---:|")
    for where in ("all-caps sentences", "sentence starts", "elsewhere"):
        print(f"| {where} | {words[where]:,} | {wrong[where] / words[where]:.1%} |")
    print()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--models", nargs="*", default=["senna/models/ner"],
                   help="NER model directories (default: the shipped one)")
    a = p.parse_args()
    task = TASKS["ner"]
    dev = read_conll2003(Path(a.data) / "conll2003" / "eng.testa")
    models = [load_tagger(Path(d)) for d in a.models]
    first = models[0].members[0] if isinstance(models[0], EnsembleModel) else models[0]
    coverage(first, dev)
    errors(models[0], dev)
    print("| model | trained with folding | as trained: Viterbi / with the vote "
          "| folded at run time: Viterbi / with the vote |")
    print("|---|---|---|---|")
    for d, model in zip(a.models, models, strict=True):
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
