"""Dev scoring during training: predict with the network in memory, score like the CoNLL
scripts (senna.evaluate)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from senna.decode.viterbi import decode
from senna.evaluate import accuracy, chunk_scores, srl_scores
from senna.io.checkpoint import SavedModel
from senna.nn.networks import Tagger
from senna.tags import convert, tags_to_brackets
from senna.tasks import TaskSpec
from senna.train.data import Example, batches


@torch.no_grad()
def predict_tags(net: Tagger, examples: Sequence[Example], saved: SavedModel,
                 batch_size: int = 64) -> list[list[str]]:
    """Best tags (in the predicted scheme) for every example, in example order."""
    net.eval()
    trans = saved.weights.get("transitions")
    start = saved.weights.get("start")
    out: list[list[str]] = [[] for _ in examples]
    for b in batches(examples, batch_size, None):
        emissions = net(torch.from_numpy(b.ids), torch.from_numpy(b.lengths),
                        torch.from_numpy(b.predicates)).numpy()
        for i, path in zip(b.index, decode(emissions, b.lengths, trans, start), strict=True):
            out[i] = saved.tags.decode(path)
    return out


def score_predictions(task: TaskSpec, sentences: Sequence, predicted: list[list[str]]) -> dict:
    """Main score under "score" (accuracy or F1, in %), plus precision/recall where defined."""
    if task.metric == "accuracy":
        gold = [s.columns[task.target] for s in sentences]
        return {"score": 100 * accuracy(gold, predicted)}
    if task.metric == "chunk":
        gold = [s.columns[task.target] for s in sentences]
        pred = [convert(p, task.source_scheme) for p in predicted]
        r = chunk_scores(gold, pred)
        return {"score": r.f1, "precision": r.precision, "recall": r.recall}
    gold_cols, pred_cols, k = [], [], 0
    for s in sentences:
        n = len(s.predicates)
        gold_cols.append(s.args)
        pred_cols.append([tags_to_brackets(p) for p in predicted[k : k + n]])
        k += n
    r = srl_scores(gold_cols, pred_cols)
    return {"score": r.f1, "precision": r.precision, "recall": r.recall}


def evaluate_model(saved: SavedModel, net: Tagger, task: TaskSpec, sentences: Sequence,
                   examples: Sequence[Example]) -> dict:
    return score_predictions(task, sentences, predict_tags(net, examples, saved))
