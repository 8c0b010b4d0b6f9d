"""Readers of treebanks: Penn Treebank bracketed trees, OntoNotes ``.gold_conll`` through
`senna.io.conll`, and the parser's training data (one sentence per tree level)."""

from __future__ import annotations

import codecs

from senna.document import Sentence
from senna.io.conll import read_gold_conll
from senna.io.lines import DataFormatError, PathLike, read_lines
from senna.syntax.levels import BELOW, level_features, normalise, tree_to_levels
from senna.syntax.tree import (
    NESTING,
    ROOT,
    Tree,
    bracket_tokens,
    brackets_to_tree,
    conll_to_tree,
    node,
    plain_label,
    tree_to_conll,
)

# the labels a treebank's root may carry (PTB's empty one, Stanford's ROOT, OntoNotes' TOP)
_ROOT_LABELS = frozenset({"", ROOT, "ROOT", "VROOT"})


def _plain_labels(tree: Tree) -> Tree:
    """The tree with function tags and indices cut from its phrase labels (`NP-SBJ-1` ->
    `NP`, `NP=2` -> `NP`), as OntoNotes' files hold them and evalb counts them."""
    return node(plain_label(tree.label),
                [_plain_labels(c) if isinstance(c, Tree) else c for c in tree.children])


def read_trees(path: PathLike) -> list[Sentence]:
    """A file of Penn Treebank bracketed trees (`.mrg`, `.tree`: each tree one or more lines,
    `( (S (NP-SBJ (DT The) ...)) )`), as `read_gold_conll` gives a ``.gold_conll`` file: the
    words with columns ``pos`` (the pre-terminals) and ``parse`` (the tree, CoNLL parse
    cells, under a `TOP` root).  Empty elements (`-NONE-`) are dropped with the phrases they
    leave empty, and function tags cut from the labels; a root labelled `ROOT`, `TOP` or
    nothing becomes `TOP`, any other is put under one.  Lines starting `*x*` between trees
    (the copyright banner of the Penn Treebank's `.mrg` files) are skipped."""
    lines = read_lines(path)
    out: list[Sentence] = []
    depth, first, parts = 0, 0, []
    for num, line in enumerate(lines, 1):
        if depth == 0 and line.lstrip().startswith("*x*"):
            continue
        for token in bracket_tokens(line):
            if depth == 0 and token != "(":
                raise DataFormatError(f"{token!r} outside a tree (expected '(' to open one)",
                                      path, num)
            if depth == 0:
                first, parts = num, []
            depth += NESTING.get(token, 0)
            parts.append(token)
            if depth == 0:
                out.append(_tree_sentence(path, first, " ".join(parts)))
    if depth:
        raise DataFormatError(f"the tree opened here is never closed ({depth} more ')' "
                              "expected)", path, first)
    if not out:
        raise DataFormatError("no trees (expected bracketed trees like '(S (NN word))', "
                              "got an empty file)", path, 1)
    return out


def _tree_sentence(path: PathLike, num: int, text: str) -> Sentence:
    """One bracketed tree of `read_trees` (starting at line `num`) as a sentence."""
    try:
        tree, words, tags = brackets_to_tree(text)
        tree = _plain_labels(tree)
        if tree.label in _ROOT_LABELS:
            tree = node(ROOT, tree.children)
        else:
            tree = node(ROOT, [tree])
    except ValueError as err:
        raise DataFormatError(str(err), path, num) from None
    return Sentence(words, {"pos": tags, "parse": tree_to_conll(tree)})


def bracketed(path: PathLike) -> bool:
    """Does the file hold bracketed trees: is its first non-blank character '('?"""
    try:
        with open(path, "rb") as f:
            start = f.read(4096).lstrip(codecs.BOM_UTF8).lstrip()
    except OSError:
        return False   # the reader says why the file cannot be read
    return start.startswith(b"(")


def read_treebank(path: PathLike) -> list[Sentence]:
    """Gold trees from either kind of file: bracketed trees (`read_trees`, when `bracketed`)
    or OntoNotes ``.gold_conll`` (`read_gold_conll`)."""
    return read_trees(path) if bracketed(path) else read_gold_conll(path)


def read_levels(path: PathLike) -> list[Sentence]:
    """A file of trees (`read_treebank`: ``.gold_conll`` or bracketed) as the parser's
    training data: one sentence per (tree, level) with columns ``pos`` (the gold POS),
    ``below`` (`senna.syntax.levels.level_features` of the levels under it) and ``psg``
    (the level's IOBES tags), trees `normalise`d."""
    out = []
    for s in read_treebank(path):
        n = len(s.words)
        levels = tree_to_levels(normalise(conll_to_tree(s.columns["parse"])))
        out += [Sentence(s.words, {"pos": s.columns["pos"], BELOW: level_features(levels[:k], n),
                                   "psg": tags})
                for k, tags in enumerate(levels)]
    return out
