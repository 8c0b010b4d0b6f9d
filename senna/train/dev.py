"""Dev scoring during training: the tags of the network in memory, scored as
`senna evaluate` scores a saved model (`senna.scoring`)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from senna.io.saved_model import SavedModel
from senna.nn.networks import Tagger, device_of
from senna.runtime.model import decode_roles, model_decoder
from senna.runtime.predict import document_vote
from senna.scoring.predictions import score_predictions
from senna.scoring.trees import tree_score
from senna.tasks import TaskSpec
from senna.train.data import Example, batches


@torch.no_grad()
def predict_tags(net: Tagger, examples: Sequence[Example], saved: SavedModel,
                 batch_size: int = 64) -> list[list[str]]:
    """Best tags (in the predicted scheme) for every example, in example order."""
    net.eval()
    decoder = model_decoder(saved)
    device = device_of(net)
    out: list[list[str]] = [[] for _ in examples]
    for b in batches(examples, batch_size, None):
        emissions = net(*(torch.from_numpy(a).to(device) for a in (b.ids, b.lengths,
                                                                    b.predicates))).cpu().numpy()
        paths = (decode_roles(decoder, emissions, b.lengths, b.predicates, saved.tags)
                 if saved.task == "srl" else decoder.decode(emissions, b.lengths))
        for i, path in zip(b.index, paths, strict=True):
            out[i] = saved.tags.decode(path)
    return out


def evaluate_model(saved: SavedModel, net: Tagger, task: TaskSpec, sentences: Sequence,
                   examples: Sequence[Example]) -> dict:
    """Dev score, computed as `senna evaluate` computes it: with the vote for one type per
    name in each document (the sentences' `doc`) for the tasks that take it, as users get
    their tags; a parser's, from its whole trees (`senna.scoring.trees.tree_score`)."""
    if task.tree:
        return tree_score(saved, sentences)
    tags = predict_tags(net, examples, saved)
    if not task.per_predicate:
        tags = document_vote(task, [s.words for s in sentences], tags,
                             [s.doc for s in sentences])
    return score_predictions(task, sentences, tags)[0]
