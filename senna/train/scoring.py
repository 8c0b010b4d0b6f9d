"""Dev scoring during training: predict with the network in memory, score with
senna.scoring (the CoNLL scripts' semantics)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from senna.datasets import level_zero
from senna.io.saved_model import SavedModel
from senna.nn.networks import Tagger, device_of
from senna.runtime.model import decode_roles, model_decoder
from senna.runtime.parser import ParserModel
from senna.runtime.predict import document_vote
from senna.scoring import score_predictions
from senna.syntax.levels import TREE, levels_to_tree, lowest_label, unchain
from senna.syntax.score import bracket_scores
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
    their tags; a parser's, from its whole trees (`tree_score`)."""
    if task.tree:
        return tree_score(saved, sentences)
    tags = predict_tags(net, examples, saved)
    if not task.per_predicate:
        tags = document_vote(task, [s.words for s in sentences], tags,
                             [s.doc for s in sentences])
    return score_predictions(task, sentences, tags)[0]


def tree_score(saved: SavedModel, sentences: Sequence) -> dict:
    """A parser's dev score: labelled bracket F1 (`senna.syntax.score`) of the trees it
    parses level after level (greedy, without the runtime's beam), from the gold POS and,
    for a parser whose first level keeps PT0's phrases, the gold level 0 as PT0 names it.
    Why not the span F1
    of single levels, each read with the gold levels below it: a parser also trained on its
    own mistakes (`--explore`) scores lower there while its trees get better.

    `sentences`: the dev set as level sentences (`senna.io.treebank.read_levels`), each tree's
    levels in a row from level 0 (`below` all `O`); `saved.weights` the network's."""
    trees: list[tuple[list[str], list[str], list[list[str]]]] = []   # words, POS, levels
    for s in sentences:
        if level_zero(s):
            trees.append((s.words, s.columns["pos"], []))
        trees[-1][2].append(s.columns[TREE])
    gold = [unchain(levels_to_tree(levels, len(words))) for words, _, levels in trees]
    columns = [{"pos": pos, "pt0": [lowest_label(t) for t in levels[0]]}
               for _, pos, levels in trees]
    parser = ParserModel(saved)
    parser.beam = 1   # greedy: half the time, and the score the shipped parsers were kept by
    parsed = parser.parse([words for words, _, _ in trees], columns)
    r = bracket_scores(gold, [unchain(t) for t in parsed], [pos for _, pos, _ in trees])
    return {"score": r.f1, "precision": r.precision, "recall": r.recall}
