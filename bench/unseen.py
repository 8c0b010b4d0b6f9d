"""Where the shipped window taggers err, by how often the word was seen in training, and
whether the words they never trained on would do better mapped into the trained space.

Fine-tuning moves the word vectors of the training words (about 14k of the 130k-word
dictionary) and leaves the others as the language model made them, while the layers above
learn to read the moved ones.  The second table fits a linear map (least squares, bias
included) from each trained word's initial vector to its trained one and applies it to the
words never trained (Madhyastha et al. 2016 learn such a map), then scores dev again.

    python bench/unseen.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

from senna.datasets import rebase, split_train_dev
from senna.features.kinds import WordFeature
from senna.io.checkpoint import load_model, save_model
from senna.io.formats import read_dataset
from senna.io.word_base import base_table
from senna.runtime.ensemble import folder_config
from senna.runtime.model import TaskModel
from senna.runtime.predict import predict_gold_inputs
from senna.scoring.inputs import recorded_dev_set
from senna.scoring.predictions import gold_tags, score_predictions
from senna.tags import convert
from senna.text.normalize import normalize_word

ROOT = Path(__file__).resolve().parents[1]
BUCKETS = ((0, 0, "unseen"), (1, 2, "1-2"), (3, 10, "3-10"), (11, None, "> 10"))


def training_counts(model_dir: Path, task, data: Path, train: str | None) -> Counter:
    """Normalised word -> times seen in the model's training sentences (its recorded training
    file, or `train`; without a dev file, less the share held out as dev, as training did)."""
    settings = folder_config(model_dir)["training"]["config"]
    sentences = read_dataset(train or rebase(settings["train"], data), task.fmt)
    if not settings.get("dev"):
        sentences = split_train_dev(sentences, settings.get("dev_fraction", 0.1))[0]
    return Counter(normalize_word(w) for s in sentences for w in s.words)


def by_frequency(task, dev: list, predicted: list, counts: Counter) -> list[tuple]:
    """(bucket, tokens, share %, tag accuracy %, errors) per training-count bucket (chunk
    tasks' tags in the data's scheme, as scored)."""
    if task.metric == "chunk":
        predicted = [convert(p, task.source_scheme) for p in predicted]
    seen, right = Counter(), Counter()
    for words, gold, pred in zip((s.words for s in dev), gold_tags(task, dev), predicted,
                                 strict=True):
        for w, g, p in zip(words, gold, pred, strict=True):
            n = counts[normalize_word(w)]
            name = next(b for lo, hi, b in BUCKETS if n >= lo and (hi is None or n <= hi))
            seen[name] += 1
            right[name] += g == p
    total = sum(seen.values())
    return [(b, seen[b], 100 * seen[b] / total, 100 * right[b] / max(seen[b], 1),
             seen[b] - right[b]) for _, _, b in BUCKETS]


def mapped_score(model_dir: Path, task, dev: list) -> tuple[int, float]:
    """(words mapped, dev score) with the never-trained words' vectors mapped linearly."""
    saved = load_model(model_dir)
    base = saved.info["word_base"]
    j = saved.featurizer.index(WordFeature)
    vocab = saved.featurizer.vocabs[saved.featurizer.specs[j].name]
    start, found = base_table(base, vocab, model_dir)
    key = f"emb.tables.{j}.weight"
    table = np.asarray(saved.weights[key], dtype=np.float32)
    trained = found & (table != start).any(1)
    rest = found & ~trained
    x = np.hstack([start[trained], np.ones((trained.sum(), 1), np.float32)])
    m = np.linalg.lstsq(x, table[trained], rcond=None)[0]
    table = table.copy()
    table[rest] = np.hstack([start[rest], np.ones((rest.sum(), 1), np.float32)]) @ m
    saved.weights[key] = table
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model"
        shutil.copytree(model_dir, out)
        save_model(out, saved)
        predicted = predict_gold_inputs(TaskModel.load(out), task, dev)
    return int(rest.sum()), score_predictions(task, dev, predicted)[0]["score"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--tasks", default="pos,chunk,ner,pt0",
                   help="shipped window models to study (senna/models/<task>)")
    p.add_argument("--ner-train", default=None,
                   help="NER's training file for the counts (default: the gold "
                        "conll2003/eng.train: the shipped model's silver file is a run's)")
    a = p.parse_args(argv)
    data = Path(a.data)
    rows, lever = [], []
    for name in a.tasks.split(","):
        model_dir = ROOT / "senna" / "models" / name
        task, dev = recorded_dev_set(model_dir, data)
        train = (a.ner_train or str(data / "conll2003" / "eng.train")) if name == "ner" else None
        counts = training_counts(model_dir, task, data, train)
        predicted = predict_gold_inputs(TaskModel.load(model_dir), task, dev)
        rows += [(name, *r) for r in by_frequency(task, dev, predicted, counts)]
        mapped, score = mapped_score(model_dir, task, dev)
        lever.append((name, score_predictions(task, dev, predicted)[0]["score"], score, mapped))
    print("| task | word seen in training | dev tokens | share | tag accuracy | errors |")
    print("|---|---|---:|---:|---:|---:|")
    for name, bucket, n, share, acc, errors in rows:
        print(f"| {name} | {bucket} | {n:,} | {share:.1f}% | {acc:.2f} | {errors:,} |")
    print("\n| task | dev as shipped | never-trained words mapped | gain | words mapped |")
    print("|---|---:|---:|---:|---:|")
    for name, before, after, mapped in lever:
        print(f"| {name} | {before:.2f} | {after:.2f} | {after - before:+.2f} | {mapped:,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
