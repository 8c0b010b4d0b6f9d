"""Trees, levels and level features (senna.syntax.tree, senna.syntax.levels) on hand-made
trees, and on the whole EWT data where it is present."""

from __future__ import annotations

import re

import pytest
from conftest import FIX
from hypothesis import given, settings
from hypothesis import strategies as st

from senna.io.conll import read_gold_conll, read_pt0
from senna.io.lines import DataFormatError
from senna.syntax.levels import (
    collapse,
    flattened_spans,
    insert_phrases,
    leaf_phrases,
    level_features,
    levels_to_tree,
    lowest_label,
    normalise,
    phrases_tree,
    tree_to_levels,
    unchain,
)
from senna.syntax.oracle import next_level, units_of
from senna.syntax.tree import (
    brackets_to_tree,
    conll_to_tree,
    escape_word,
    node,
    tree_to_brackets,
    tree_to_conll,
    unescape_word,
)
from senna.tags import tags_to_spans

SAW = ("(TOP (S (NP (PRP He)) (VP (VBD saw) (NP (NP (DT the) (NN man)) "
       "(PP (IN with) (NP (DT a) (NN hat))))) (. .)))")
SAW_LEVELS = [
    ["S-NP", "O", "B-NP", "E-NP", "O", "B-NP", "E-NP", "O"],
    ["O", "O", "O", "O", "B-PP", "I-PP", "E-PP", "O"],
    ["O", "O", "B-NP", "I-NP", "I-NP", "I-NP", "E-NP", "O"],
    ["O", "B-VP", "I-VP", "I-VP", "I-VP", "I-VP", "E-VP", "O"],
    ["B-S", "I-S", "I-S", "I-S", "I-S", "I-S", "I-S", "E-S"],
]


def test_bracket_string_round_trip_and_conll_column() -> None:
    tree, words, tags = brackets_to_tree(SAW)
    assert words[:3] == ["He", "saw", "the"] and tags[-1] == "."
    assert tree_to_brackets(tree, words, tags) == SAW
    column = tree_to_conll(tree)
    assert column[:3] == ["(TOP(S(NP*)", "(VP*", "(NP(NP*"] and column[-1] == "*))"
    assert conll_to_tree(column) == tree


def test_bracket_reader_conventions() -> None:
    """An empty root label is TOP, -NONE- leaves go with the phrases they empty, and
    brackets in words are escaped."""
    text = "( (S (NP (-NONE- *T*)) (NP (-LRB- -LRB-) (NN x:-RRB-))) )"
    tree, words, tags = brackets_to_tree(text)
    assert tree == node("TOP", [node("S", [node("NP", [0, 1])])])
    assert words == ["(", "x:)"] and tags == ["-LRB-", "NN"]
    assert tree_to_brackets(tree, words, tags) == "(TOP (S (NP (-LRB- -LRB-) (NN x:-RRB-))))"
    # the tagger's WSJ-style tags name brackets as themselves: written the Treebank's way
    assert tree_to_brackets(tree, words, ["(", "NN"]) == tree_to_brackets(tree, words, tags)


# Tokens made of what bracket strings and NLTK treat specially: brackets, backslashes (NLTK
# reads `\\)` as an escaped bracket), Unicode spaces, the PTB's own escapes and their parts.
ODD = st.lists(st.sampled_from(["(", ")", "\\", "\u00a0", "\u2009", "\u3000", " ", "\t",
                                "-LRB-", "-RRB-", "-", "LRB", "RRB", "B", "\\u0041", "\\u",
                                "u", "a", "10", "\u00e9", "\U0001f600", "*", "/"]),
               min_size=1, max_size=6).map("".join)


def _tree_over(n: int, cut: int) -> object:
    """S over the words, with an NP over the first `cut` of them (when 0 < cut < n)."""
    if 0 < cut < n:
        return node("TOP", [node("S", [node("NP", list(range(cut))), *range(cut, n)])])
    return node("TOP", [node("S", list(range(n)))])


@settings(max_examples=300, deadline=None)
@given(st.lists(ODD, min_size=1, max_size=8), st.integers(0, 8))
def test_every_tree_reads_back_as_exactly_its_words(words: list[str], cut: int) -> None:
    from senna.document import Sentence

    tree = _tree_over(len(words), cut)
    tags = ["NN"] * len(words)
    text = tree_to_brackets(tree, words, tags)
    assert brackets_to_tree(text) == (tree, words, tags)
    assert [unescape_word(escape_word(w)) for w in words] == words
    sentence = Sentence(words, {"pos": tags, "psg": tree_to_conll(tree)})
    assert brackets_to_tree(sentence.tree)[1] == words
    nltk = pytest.importorskip("nltk")
    leaves = nltk.Tree.fromstring(sentence.tree).leaves()
    assert leaves == [escape_word(w) for w in words]
    assert [unescape_word(leaf) for leaf in sentence.nltk_tree().leaves()] == words


def test_words_are_escaped_as_the_penn_treebank_does() -> None:
    tree = node("TOP", [node("S", [0, 1, 2, 3])])
    words = ["(", "a\\", "10\u00a0000", "-LRB-"]
    assert tree_to_brackets(tree, words, ["-LRB-", "SYM", "CD", "NN"]) == (
        "(TOP (S (-LRB- -LRB-) (SYM a\\u005c) (CD 10\\u00a0000) (NN \\u002dLRB-)))")


@pytest.mark.parametrize("text, message", [
    ("(S (NN a)", "expected ')'"),
    ("(S (NN a)) (NN b)", "the end after the tree"),
    ("(NN a)", "no phrase"),
    ("", "expected '('"),
])
def test_bad_bracket_strings(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        brackets_to_tree(text)


@pytest.mark.parametrize("column, message", [
    (["(S*", "*"], "unbalanced"),
    (["(S*)", "*"], "outside the tree"),
    (["*", "(S*)"], "outside the tree"),
    (["(S*))"], "never opened"),
    (["(S(NP"], "bad parse cell"),
])
def test_bad_conll_columns(column: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        conll_to_tree(column)


def test_read_gold_conll(tmp_path) -> None:
    good = "d\t0\t0\tHi\tUH\t(TOP(INTJ*)\t-\t-\nd\t0\t1\t!\t.\t*)\t-\t-\n\n"
    (tmp_path / "a.gold_conll").write_text(good)
    [s] = read_gold_conll(tmp_path / "a.gold_conll")
    assert s.words == ["Hi", "!"] and s.columns == {"pos": ["UH", "."],
                                                   "parse": ["(TOP(INTJ*)", "*)"]}
    (tmp_path / "b.gold_conll").write_text(good + good.replace("*)\t", "*\t"))
    with pytest.raises(DataFormatError, match=r"b.gold_conll:4: parse column: unbalanced"):
        read_gold_conll(tmp_path / "b.gold_conll")
    (tmp_path / "c.gold_conll").write_text("d\t0\t0\tHi\t(TOP*)\n")
    with pytest.raises(DataFormatError, match=r"c.gold_conll:1: wrong number of columns"):
        read_gold_conll(tmp_path / "c.gold_conll")


def test_levels_of_a_tree_and_back() -> None:
    tree, words, _ = brackets_to_tree(SAW)
    assert normalise(tree) == tree                       # no chains, no NML
    assert tree_to_levels(tree) == SAW_LEVELS
    assert levels_to_tree(SAW_LEVELS, len(words)) == tree
    assert _phrases_tree(SAW_LEVELS, len(words)) == tree


def test_unary_chains_nml_and_several_root_children() -> None:
    tree, _, _ = brackets_to_tree(
        "(TOP (S (VP (VB Go) (NP (NML (NN ice) (NN cream)) (NN shop)))) (NP (NP (NN now))))")
    norm = normalise(tree)
    assert [t.label for t in norm.nodes()] == ["TOP", "S#VP", "NP", "NP#NP"]
    assert tree_to_levels(norm) == [["O", "B-NP", "I-NP", "E-NP", "S-NP#NP"],
                                    ["B-S#VP", "I-S#VP", "I-S#VP", "E-S#VP", "O"]]
    assert levels_to_tree(tree_to_levels(norm), 5) == norm
    assert _phrases_tree(tree_to_levels(norm), 5) == norm
    flat_nml = "(TOP (S (VP (VB Go) (NP (NN ice) (NN cream) (NN shop)))) (NP (NP (NN now))))"
    assert unchain(norm) == brackets_to_tree(flat_nml)[0]


def test_nml_nodes_flattened_and_put_back() -> None:
    tree, _, _ = brackets_to_tree(
        "(TOP (S (VP (VB Go) (NP (NML (NN ice) (NN cream)) (NN shop)))) (NP (NP (NN now))))")
    spans = flattened_spans(tree, "NML")
    assert spans == [("NML", 1, 3)]
    assert insert_phrases(unchain(normalise(tree)), spans) == tree
    flat = unchain(normalise(tree))
    assert insert_phrases(flat, []) == flat
    # left out: cutting through the NP, covering all of the root's children
    for span in [("NML", 0, 2), ("NML", 0, 5)]:
        assert insert_phrases(flat, [span]) == flat
    assert insert_phrases(flat, [("NML", 2, 4)]) == brackets_to_tree(
        "(TOP (S (VP (VB Go) (NP (NN ice) (NML (NN cream) (NN shop))))) (NP (NP (NN now))))")[0]
    # one child phrase gets a unary node over it (the highest of a chain); one word a node
    assert insert_phrases(flat, [("NML", 4, 5)]) == \
        brackets_to_tree("(TOP (S (VP (VB Go) (NP (NN ice) (NN cream) (NN shop)))) "
                         "(NML (NP (NP (NN now)))))")[0]
    assert ("NML", 3, 4) in insert_phrases(flat, [("NML", 3, 4)]).brackets()


def test_nested_nml_nodes_keep_the_outermost() -> None:
    tree, _, _ = brackets_to_tree("(TOP (NP (NML (NML (NNP New) (NNP York)) (NNP State)) "
                                  "(NN law)))")
    assert flattened_spans(tree, "NML") == [("NML", 0, 3)]
    back = insert_phrases(unchain(normalise(tree)), flattened_spans(tree, "NML"))
    assert back.brackets() == [("TOP", 0, 4), ("NP", 0, 4), ("NML", 0, 3)]


@pytest.mark.parametrize("levels, message", [
    ([["B-NP", "E-NP", "O"], ["O", "B-VP", "E-VP"]], "cuts through"),
    ([["B-NP", "E-NP", "O"], ["B-S", "E-S", "O"]], "only wraps the phrase 'NP'"),
    ([["O", "O", "O"]], "finds no phrase"),
    ([["O", "S-NP"]], "2 tags for 3 words"),
])
def test_levels_that_make_no_tree(levels: list[list[str]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        levels_to_tree(levels, 3)


def _phrases_tree(levels: list[list[str]], n_words: int):
    """The tree of the levels' phrases built in one pass (`phrases_tree`, as the parser
    builds its trees), to compare with `levels_to_tree`, which collapses level by level."""
    return phrases_tree([p for tags in levels for p in tags_to_spans(tags)], n_words)


def test_phrases_tree_puts_words_between_and_after_phrases() -> None:
    tree = phrases_tree([("NP", 1, 3), ("VP", 0, 4), ("ADVP", 5, 6)], 7)
    assert tree == node("TOP", [node("VP", [0, node("NP", [1, 2]), 3]), 4,
                                node("ADVP", [5]), 6])
    assert phrases_tree([], 2) == node("TOP", [0, 1])
    with pytest.raises(ValueError, match="crosses"):
        phrases_tree([("NP", 0, 3), ("VP", 2, 5)], 5)
    with pytest.raises(ValueError, match="leaves"):
        phrases_tree([("NP", 1, 3)], 2)


def test_collapse_groups_whole_units() -> None:
    np_ = node("NP", [1, 2])
    assert collapse([0, np_, 3], [("VP", 0, 3)]) == [node("VP", [0, np_]), 3]


def test_level_features_show_the_highest_phrase_so_far() -> None:
    assert level_features([], 3) == ["O", "O", "O"]
    assert level_features(SAW_LEVELS[:2], 8) == ["S-NP", "O", "B-NP", "E-NP",
                                                 "B-PP", "I-PP", "E-PP", "O"]
    assert level_features(SAW_LEVELS, 8) == SAW_LEVELS[-1]


def _trees(path):
    return [conll_to_tree(s.columns["parse"]) for s in read_gold_conll(path)]


def test_leaf_phrases_are_level_zero_named_by_the_lowest_label() -> None:
    """PT0 of a tree: level 0, a unary chain (`NP#NP`) named by its lowest label; a tree
    with no phrase over words alone is all `O`."""
    tree, _, _ = brackets_to_tree(
        "(TOP (S (VP (VB Go) (NP (NML (NN ice) (NN cream)) (NN shop)))) (NP (NP (NN now))))")
    assert leaf_phrases(tree_to_conll(tree)) == ["O", "B-NP", "I-NP", "E-NP", "S-NP"]
    assert leaf_phrases(["(TOP*", "*)"]) == ["O", "O"]
    assert lowest_label("B-S#VP") == "B-VP" and lowest_label("O") == "O"


@pytest.mark.parametrize("split", ["dev", "train"])
def test_the_leaf_phrases_of_the_ewt_trees_are_its_pt0_files(data_dir, split: str) -> None:
    """Level 0 labels a unary chain by all its labels, PT0 by the lowest: otherwise equal,
    so a PT0 tagger trains on any treebank's trees (`--task pt0 --format trees`) as on the
    .pt0 files."""
    ewt = data_dir / "ewt"
    pt0 = read_pt0(ewt / f"ewt.{split}.pt0")
    gold = read_gold_conll(ewt / f"ewt.{split}.gold_conll")
    for tree, sentence in zip(gold, pt0, strict=True):
        assert tree.words == sentence.words
        assert leaf_phrases(tree.columns["parse"]) == sentence.columns["pt0"]


def test_nml_nodes_put_back_on_ewt_train(data_dir) -> None:
    """Every training tree whose NML nodes are all outermost is rebuilt from its levels
    and those nodes (one is not: an NML over all of an NP's children)."""
    rebuilt = differ = 0
    for tree in _trees(data_dir / "ewt" / "ewt.train.gold_conll"):
        spans = flattened_spans(tree, "NML")
        if spans and len(spans) == sum(t.label == "NML" for t in tree.nodes()):
            back = insert_phrases(unchain(normalise(tree)), spans)
            rebuilt, differ = rebuilt + (back == tree), differ + (back != tree)
    assert rebuilt > 1000 and differ <= 1


def test_levels_round_trip_on_ewt_train(data_dir) -> None:
    for tree in _trees(data_dir / "ewt" / "ewt.train.gold_conll"):
        norm = normalise(tree)
        levels = tree_to_levels(norm)
        back = levels_to_tree(levels, tree.end)
        assert back == norm and tree_to_levels(back) == levels
        assert _phrases_tree(levels, tree.end) == norm
        assert tree_to_conll(unchain(normalise(tree, drop=()))) == tree_to_conll(tree)


def test_a_recorded_dev_set_with_gold_inputs_keeps_the_data_files_trees(models, tmp_path
                                                                       ) -> None:
    """A model trained on the parser's trees (`predicted_columns` psg=...) scored with gold
    inputs reads the data file's parse column: no parser runs (this one does not exist)."""
    import json
    import shutil

    from senna.io.manifest import MANIFEST
    from senna.scoring.inputs import recorded_dev_set

    data = FIX / "ewt_sample.verbs-args.conll"
    shutil.copytree(models / "srl", tmp_path, dirs_exist_ok=True)
    (tmp_path / MANIFEST).unlink(missing_ok=True)
    config = json.loads((tmp_path / "config.json").read_text())
    config["training"] = {"config": {
        "task": "srl", "dev": str(data), "format": None, "extra_columns": None,
        "predicted_columns": "psg=/no/such/parser"}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    _, dev = recorded_dev_set(tmp_path, FIX, predicted=False)
    assert dev and all("psg" not in s.columns and "parse" in s.columns for s in dev)
    with pytest.raises(Exception, match="no/such/parser"):
        recorded_dev_set(tmp_path, FIX, predicted=True)


def _gold_spans(levels: list[list[str]]) -> list:
    return [span for tags in levels for span in tags_to_spans(tags)]


def test_the_oracle_follows_the_gold_levels_from_gold_states() -> None:
    """From the state after gold levels 0..k-1 the oracle builds gold level k (k >= 1: level
    0 may hold one-word phrases, which later levels never do), and nothing at the end."""
    trees = [*_trees(FIX / "ewt_sample.gold_conll"), brackets_to_tree(SAW)[0]]
    for tree in trees:
        levels = tree_to_levels(normalise(tree))
        gold = _gold_spans(levels)
        for k in range(1, len(levels) + 1):
            state = level_features(levels[:k], tree.end)
            want = tags_to_spans(levels[k]) if k < len(levels) else []
            assert next_level(state, gold) == want


def test_the_oracle_recovers_from_a_wrong_phrase() -> None:
    """Level 0 joined 'man with' wrongly: the gold NP 'the man' and PP 'with a hat' cut
    through it and can never be built; the lowest gold phrase over whole units left is the
    NP 'the man with a hat'; then the VP, then the S."""
    levels = tree_to_levels(normalise(brackets_to_tree(SAW)[0]))
    gold = _gold_spans(levels)
    state = level_features([["S-NP", "O", "O", "B-X", "E-X", "B-NP", "E-NP", "O"]], 8)
    assert units_of(state) == [(0, 1), (1, 2), (2, 3), (3, 5), (5, 7), (7, 8)]
    assert next_level(state, gold) == [("NP", 2, 7)]
    state = level_features([["S-NP", "O", "O", "B-X", "E-X", "B-NP", "E-NP", "O"],
                            ["O", "O", "B-NP", "I-NP", "I-NP", "I-NP", "E-NP", "O"]], 8)
    assert next_level(state, gold) == [("VP", 1, 7)]
