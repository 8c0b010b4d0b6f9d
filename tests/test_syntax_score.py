"""The evalb bracket scorer (senna.scoring.evalb) on hand-made trees with known scores."""

from __future__ import annotations

import pytest

from senna.scoring.evalb import COLLINS_PUNCTUATION, bracket_scores, evalb_brackets
from senna.syntax.tree import brackets_to_tree


def _score(gold: str, test: str, **kw) -> tuple[float, float, float, int, int, int]:
    g, _, tags = brackets_to_tree(gold)
    t, _, _ = brackets_to_tree(test)
    r = bracket_scores([g], [t], [tags], **kw)
    return (round(r.precision, 2), round(r.recall, 2), round(r.f1, 2), r.gold_brackets,
            r.test_brackets, r.matched)


SENT = "(TOP (S (NP (DT The) (NN dog)) (VP (VBZ barks) (ADVP (RB loudly))) (. .)))"


@pytest.mark.parametrize("gold, test, expected", [
    # identical: S NP VP ADVP, all matched
    (SENT, SENT, (100.0, 100.0, 100.0, 4, 4, 4)),
    # totally wrong: no test bracket has a gold span and label
    (SENT, "(TOP (FRAG (X (DT The)) (X (NN dog) (VBZ barks)) (X (RB loudly) (. .))))",
     (0.0, 0.0, 0.0, 4, 4, 0)),
    # punctuation at a phrase's edge does not count; a phrase of punctuation only is dropped
    (SENT, "(TOP (S (NP (DT The) (NN dog)) (VP (VBZ barks) (ADVP (RB loudly) (. .)))))",
     (100.0, 100.0, 100.0, 4, 4, 4)),
    (SENT, "(TOP (S (NP (DT The) (NN dog)) (VP (VBZ barks) (ADVP (RB loudly))) (X (. .))))",
     (100.0, 100.0, 100.0, 4, 4, 4)),
    # a unary chain S -> VP is two brackets; the test finds one: P 2/2, R 2/3, F 80
    ("(TOP (S (VP (VB Go) (ADVP (RB home)))))", "(TOP (S (VB Go) (ADVP (RB home))))",
     (100.0, 66.67, 80.0, 3, 2, 2)),
    # NP -> NP (NP , ) over one span once punctuation is gone: two NP brackets, one found
    ("(TOP (NP (NP (DT the) (NN dog)) (, ,)))", "(TOP (NP (DT the) (NN dog) (, ,)))",
     (100.0, 50.0, 66.67, 2, 1, 1)),
    # PRT = ADVP and NP-SBJ = NP match; the VP span is wrong: S NP ADVP of 4 each
    ("(TOP (S (NP-SBJ (PRP I)) (VP (VBD gave) (PRT (RP up)))))",
     "(TOP (S (NP (PRP I)) (VP (VBD gave)) (ADVP (RP up))))",
     (75.0, 75.0, 75.0, 4, 4, 3)),
])
def test_known_scores(gold: str, test: str, expected: tuple) -> None:
    assert _score(gold, test) == expected


def test_hyph_is_punctuation_unless_collins_set() -> None:
    gold = "(TOP (NP (NP (NN e)) (HYPH -) (NP (NN mail))))"
    test = "(TOP (NP (NP (NN e) (HYPH -)) (NP (NN mail))))"
    assert _score(gold, test)[:3] == (100.0, 100.0, 100.0)
    assert _score(gold, test, punctuation=COLLINS_PUNCTUATION)[:3] == (66.67, 66.67, 66.67)


def test_corpus_scores_are_micro_averaged() -> None:
    """Sentence 1: 4 of 4; sentence 2: 2 gold, 1 test, 1 matched -> P 5/5, R 5/6."""
    g1, _, t1 = brackets_to_tree(SENT)
    g2, _, t2 = brackets_to_tree("(TOP (NP (NP (DT the) (NN dog)) (, ,)))")
    p2, _, _ = brackets_to_tree("(TOP (NP (DT the) (NN dog) (, ,)))")
    r = bracket_scores([g1, g2], [g1, p2], [t1, t2])
    assert (r.matched, r.gold_brackets, r.test_brackets, r.sentences, r.exact) == (5, 6, 5, 2, 1)
    assert r.precision == 100.0 and r.recall == pytest.approx(500 / 6)


def test_brackets_evalb_counts() -> None:
    tree, _, tags = brackets_to_tree("(TOP (S (NP (PRP He)) (, ,) (VP (VBD left))))")
    assert evalb_brackets(tree, tags) == {("S", 0, 2): 1, ("NP", 0, 1): 1, ("VP", 1, 2): 1}


def test_misaligned_input() -> None:
    g, _, tags = brackets_to_tree(SENT)
    short, _, _ = brackets_to_tree("(TOP (S (NN a)))")
    with pytest.raises(ValueError, match="sentence 0: test tree covers words 0..1"):
        bracket_scores([g], [short], [tags])
    with pytest.raises(ValueError, match="as many test trees"):
        bracket_scores([g], [], [tags])
    with pytest.raises(ValueError, match="POS tags"):
        evalb_brackets(g, tags[:2])
