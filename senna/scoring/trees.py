"""A parser scored by its whole trees (labelled brackets, `senna.scoring.evalb`): on a file
of trees as `senna evaluate` scores it (POS and PT0 predicted as at run time), and on its
dev set as training scores it (from the gold POS and level 0)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from senna.datasets import level_zero
from senna.io.checkpoint import read_config
from senna.io.saved_model import SavedModel
from senna.io.treebank import bracketed, read_treebank
from senna.runtime.ensemble import load_tagger
from senna.runtime.folders import default_model_dir
from senna.runtime.parser import BEAM, ParserModel, own_first_level, own_flattened
from senna.scoring.evalb import BracketScore, bracket_scores
from senna.scoring.files import check_words, model_task, written
from senna.scoring.inputs import predict_inputs, runtime_inputs
from senna.syntax.levels import TREE, levels_to_tree, lowest_label, unchain
from senna.syntax.tree import conll_to_tree, tree_to_brackets, tree_to_conll
from senna.tasks import TaskSpec


def write_parse_column(gold_path: str, gold: Sequence, trees: Sequence, out: str) -> None:
    """A `.gold_conll` file written again, line for line, with each sentence's parse cells
    (its sixth column) those of `trees` (one per sentence, in order); a file of bracketed
    trees (`gold`: its sentences) written as one bracketed tree a line."""
    if bracketed(gold_path):
        with open(out, "w", encoding="utf-8") as f:
            for tree, s in zip(trees, gold, strict=True):
                f.write(tree_to_brackets(tree, s.words, s.columns["pos"]) + "\n")
        return
    cells = iter([c for tree in trees for c in tree_to_conll(tree)])
    lines = Path(gold_path).read_text(encoding="utf-8").splitlines()
    with open(out, "w", encoding="utf-8") as f:
        for line in lines:
            if line.strip():
                fields = line.split("\t")
                fields[5] = next(cells)
                line = "\t".join(fields)
            f.write(line + "\n")


def parsed_trees(task: TaskSpec, gold: list, model: str, gold_inputs: bool,
                 beam: int | None) -> list:
    """The trees the parser in `model` gives the gold sentences' words (chains split), its
    POS predicted as at run time unless `gold_inputs`, its first level's phrases from its
    own PT0 tagger, else the shipped one."""
    parser = load_tagger(model)
    model_task(task.name, parser, model)
    if beam is not None:
        parser.beam = beam
    inputs = gold if gold_inputs else runtime_inputs(parser, task, gold, model)
    if parser.first_level and parser.first_tagger is None:
        inputs = predict_inputs([(parser.first_level,
                                  str(default_model_dir() / parser.first_level))],
                                inputs, model)
    return [unchain(t) for t in parser.parse([s.words for s in inputs],
                                             [s.columns for s in inputs])]


def tree_scores(task: TaskSpec, gold_path: str, model: str | None = None,
                pred: str | None = None, gold_inputs: bool = False, out: str | None = None,
                beam: int | None = None) -> BracketScore:
    """The parser's labelled bracket scores (evalb's COLLINS.prm) on a file of trees
    (`read_treebank`: OntoNotes .gold_conll or bracketed): the trees of `model` from the
    file's words (`parsed_trees`), or those of `pred`, a predicted file of the same
    sentences.  `out`: the gold file written again with the model's trees in its parse
    column (a file `pred` can score).  `beam`: the partial parses the parser keeps per
    sentence (default its own)."""
    gold = read_treebank(gold_path)
    if pred:
        predicted = read_treebank(pred)
        check_words(gold, predicted, pred)
        test = [conll_to_tree(s.columns["parse"]) for s in predicted]
    else:
        test = parsed_trees(task, gold, model or "", gold_inputs, beam)
        if out:
            written(out, lambda: write_parse_column(gold_path, gold, test, out))
    return bracket_scores([conll_to_tree(s.columns["parse"]) for s in gold], test,
                          [s.columns["pos"] for s in gold])


def parse_note(model: str, gold_inputs: bool, beam: int | None) -> str:
    """How `tree_scores` parsed with `model`: from which POS tags, which tagger's phrases
    its first level kept, which nodes its own taggers put back, the beam."""
    first = read_config(Path(model)).get("first_level")
    whose = "parser's own" if own_first_level(model, first) else "shipped"
    beam = beam or BEAM
    return (f"parsed from {'the file' if gold_inputs else 'predicted'} POS tags"
            + ("" if gold_inputs else " (as at run time; --gold-inputs: the file's)")
            + (f", the first level keeping the phrases of the {whose} {first.upper()} "
               "tagger" if first else "")
            + "".join(f", {label} nodes put back by its own tagger"
                      for label, _ in own_flattened(model))
            + f", {beam} partial parse{'s' if beam > 1 else ''} kept per sentence "
            "(--psg-beam)")


def tree_score(saved: SavedModel, sentences: Sequence) -> dict:
    """A parser's dev score: labelled bracket F1 of the trees it parses level after level
    (greedy, without the runtime's beam), from the gold POS and, for a parser whose first
    level keeps PT0's phrases, the gold level 0 as PT0 names it.  Why not the span F1 of
    single levels, each read with the gold levels below it: a parser also trained on its
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
