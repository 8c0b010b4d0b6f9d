"""Dev scoring during training: predict with the network in memory, score with
senna.scoring (the CoNLL scripts' semantics)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from senna.io.checkpoint import SavedModel
from senna.nn.networks import Tagger
from senna.runtime.model import decode_roles, model_decoder
from senna.runtime.predict import document_vote
from senna.scoring import score_predictions
from senna.tasks import TaskSpec
from senna.train.data import Example, batches


@torch.no_grad()
def predict_tags(net: Tagger, examples: Sequence[Example], saved: SavedModel,
                 batch_size: int = 64) -> list[list[str]]:
    """Best tags (in the predicted scheme) for every example, in example order."""
    net.eval()
    decoder = model_decoder(saved)
    out: list[list[str]] = [[] for _ in examples]
    for b in batches(examples, batch_size, None):
        emissions = net(torch.from_numpy(b.ids), torch.from_numpy(b.lengths),
                        torch.from_numpy(b.predicates)).numpy()
        paths = (decode_roles(decoder, emissions, b.lengths, b.predicates, saved.tags)
                 if saved.task == "srl" else decoder.decode(emissions, b.lengths))
        for i, path in zip(b.index, paths, strict=True):
            out[i] = saved.tags.decode(path)
    return out


def evaluate_model(saved: SavedModel, net: Tagger, task: TaskSpec, sentences: Sequence,
                   examples: Sequence[Example]) -> dict:
    """Dev score, computed as `senna evaluate` computes it: with the vote for one type per
    name in each document (the sentences' `doc`) for the tasks that take it, as users get
    their tags."""
    tags = predict_tags(net, examples, saved)
    if not task.per_predicate:
        tags = document_vote(task, [s.words for s in sentences], tags,
                             [s.doc for s in sentences])
    return score_predictions(task, sentences, tags)[0]
