"""Trees as levels of IOBES tags (Collobert 2011, "Deep Learning for Efficient
Discriminative Parsing", and JMLR 2011 section 6.5), and levels back to trees.

A tree's phrases are put on levels by height: level 0 holds the phrases whose children are
all words (PT0), level k+1 the phrases whose highest phrase child is on level k.  Phrases of
one level never nest, so a level is one IOBES tag per word (`O` outside its phrases).  Read
bottom-up, each level collapses its phrases into single nodes, and the next level's phrases
group whole nodes and words: no phrase cuts through an earlier one.

Conventions (see docs/parser.md):

* The root `TOP` is not on any level: what is left after the last level hangs under it.
* Unary chains (`S -> VP -> words`) are one node labelled by the labels joined top-down
  with `#` (`S#VP`), so that the tree is recovered exactly; `unchain` splits them again.
* `NML` nodes are flattened into their parent first (`normalise`), as PT0 was made: the
  Penn Treebank that SENNA was trained on has no NML.  A tagger of the outermost ones
  (`flattened_spans`) puts them back into a parser's trees (`insert_phrases`).
* Pre-terminals are not nodes (their tag is the POS column); the EWT files have no empty
  elements (the bracket reader drops `-NONE-`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from senna.syntax.tree import ROOT, Tree, conll_to_tree, extent, node
from senna.tags import Span, spans_to_tags, split_tag, tags_to_spans

CHAIN = "#"
FLATTENED = ("NML",)
FALLBACK_ROOT = "S"   # the root of 68% of EWT trees
BELOW = "below"       # the input column of the level network: `level_features`
TREE = "psg"          # the column of a sentence's parse tree (CoNLL cells): `column_levels`
GOLD_TREE = "parse"   # the gold tree's column in the data files (.gold_conll, SRL's)

Unit = Tree | int   # a node found so far, or a word not yet inside any


def _flat(unit: Unit, drop: Collection[str]) -> list[Unit]:
    """The unit with nodes labelled in `drop` replaced by their children, chains merged."""
    if not isinstance(unit, Tree):
        return [unit]
    children = [c for child in unit.children for c in _flat(child, drop)]
    if unit.label in drop:
        return children
    if len(children) == 1 and isinstance(children[0], Tree):
        return [node(f"{unit.label}{CHAIN}{children[0].label}", children[0].children)]
    return [node(unit.label, children)]


def normalise(tree: Tree, drop: Collection[str] = FLATTENED) -> Tree:
    """The tree the levels describe: under a `TOP` root, `drop` labels flattened into their
    parents, unary chains merged into `A#B` nodes (the root `TOP` itself is kept apart)."""
    top = tree.children if tree.label == ROOT else (tree,)
    return node(ROOT, [c for child in top for c in _flat(child, drop)])


def unchain(tree: Tree) -> Tree:
    """Split `A#B` chain nodes back into nested nodes (`normalise`'s inverse for chains)."""
    children = [unchain(c) if isinstance(c, Tree) else c for c in tree.children]
    inner, *outer = reversed(tree.label.split(CHAIN))
    out = node(inner, children)
    for label in outer:
        out = node(label, [out])
    return out


def _height(unit: Tree, spans: list[list[Span]]) -> int:
    """Height of a node (0: only words below), recording each node's span at its height."""
    below = [_height(c, spans) for c in unit.children if isinstance(c, Tree)]
    h = 1 + max(below) if below else 0
    if h == len(spans):
        spans.append([])
    spans[h].append((unit.label, unit.start, unit.end))
    return h


def tree_to_levels(tree: Tree) -> list[list[str]]:
    """A `normalise`d tree -> its levels, each an IOBES tag per word, level 0 first."""
    spans: list[list[Span]] = []
    for child in tree.children:
        if isinstance(child, Tree):
            _height(child, spans)
    return [spans_to_tags(level, tree.end, "iobes") for level in spans]


def lowest_label(tag: str) -> str:
    """`B-S#VP` -> `B-VP`: a unary chain named by its lowest label, as PT0 names it."""
    prefix, kind = split_tag(tag)
    return f"{prefix}-{kind.split(CHAIN)[-1]}" if kind else tag


def leaf_phrases(cells: Sequence[str]) -> list[str]:
    """A tree's CoNLL parse cells -> its PT0 tags: level 0, each chain named by its lowest
    label (`lowest_label`), `O` on the words no such phrase covers; the EWT `.pt0` files
    hold exactly these tags of the `.gold_conll` trees, so a PT0 tagger trains on any
    treebank's trees."""
    levels = column_levels(cells)
    return [lowest_label(t) for t in levels[0]] if levels else ["O"] * len(cells)


def column_levels(cells: Sequence[str]) -> list[list[str]]:
    """A parse column (a tree's CoNLL cells: the parser's output, or a `.gold_conll` file's)
    -> its levels, level 0 first: what a task reading the parser's levels sees (SRL with
    levels, JMLR 2011 Table 12)."""
    return tree_to_levels(normalise(conll_to_tree(cells))) if len(cells) else []


def collapse(units: Sequence[Unit], spans: Sequence[Span]) -> list[Unit]:
    """Units (left to right) with each span's units grouped under a new node; ValueError if
    a span cuts through a unit or wraps a single node (a unary chain is one label)."""
    first = {extent(u)[0]: i for i, u in enumerate(units)}
    last = {extent(u)[1]: i for i, u in enumerate(units)}
    out, done = [], 0
    for label, start, end in sorted(spans, key=lambda s: s[1]):
        if start not in first or end not in last:
            raise ValueError(f"phrase {(label, start, end)} cuts through a phrase found "
                             "on an earlier level (expected it to cover whole phrases)")
        i, j = first[start], last[end] + 1
        if j - i == 1 and isinstance(units[i], Tree):
            raise ValueError(f"phrase {(label, start, end)} only wraps the phrase "
                             f"{units[i].label!r} (a unary chain is one label, like "
                             f"'{label}{CHAIN}{units[i].label}')")
        out += [*units[done:i], node(label, units[i:j])]
        done = j
    return out + list(units[done:])


def levels_to_tree(levels: Sequence[Sequence[str]], n_words: int) -> Tree:
    """Levels (IOBES tags per word, level 0 first) -> the tree under `TOP`; ValueError if a
    level is not n_words long, finds no phrase, or a phrase cuts through an earlier one."""
    units: list[Unit] = list(range(n_words))
    for k, tags in enumerate(levels):
        if len(tags) != n_words:
            raise ValueError(f"level {k}: {len(tags)} tags for {n_words} words")
        spans = tags_to_spans(tags)
        if not spans:
            raise ValueError(f"level {k} finds no phrase (expected at least one)")
        try:
            units = collapse(units, spans)
        except ValueError as err:
            raise ValueError(f"level {k}: {err}") from None
    if not units:
        raise ValueError("no words (expected at least one)")
    return node(ROOT, units)


def phrases_tree(phrases: Sequence[Span], n_words: int) -> Tree:
    """Phrases of distinct, nested spans (a parse's levels: each new phrase is wider than
    every node it groups) -> the tree under `TOP`: what `collapse` builds level by level,
    in one pass over the phrases sorted outermost first."""
    stack: list[tuple[str, int, int, list[Unit]]] = [(ROOT, 0, n_words, [])]
    word = 0

    def close(upto: int) -> None:
        """Words before `upto` into the open nodes; the nodes that end by then closed."""
        nonlocal word
        while True:
            label, start, end, children = stack[-1]
            if end <= word and len(stack) > 1:
                stack.pop()
                stack[-1][3].append(Tree(label, tuple(children), start, end))
            elif word < upto:
                children.extend(range(word, min(upto, end)))
                word = min(upto, end)
            else:
                return

    for label, start, end in sorted(phrases, key=lambda p: (p[1], -p[2])):
        close(start)
        if end > stack[-1][2] or not 0 <= start < end:
            raise ValueError(f"phrase {(label, start, end)} crosses {stack[-1][:3]} or leaves "
                             f"the sentence's {n_words} words (expected nested phrases)")
        stack.append((label, start, end, []))
    close(n_words)
    return node(ROOT, stack[0][3])


def with_root(levels: Sequence[Sequence[Span]], n_words: int,
              label: str = FALLBACK_ROOT) -> list[list[Span]]:
    """Levels (each one's phrases), plus one more with a `label` phrase over the whole
    sentence unless the last already has a phrase spanning it: how a parse that stops
    early still makes one tree (evalb counts that root; units left directly under `TOP`
    could never score)."""
    out = [list(spans) for spans in levels]
    if not out or [(s, e) for _, s, e in out[-1]] != [(0, n_words)]:
        out.append([(label, 0, n_words)])
    return out


def flattened_spans(tree: Tree, label: str) -> list[Span]:
    """The outermost `label` nodes of a tree (those inside no other), as (label, first word,
    end): what a tagger learns of the nodes `normalise` flattens (`FLATTENED`) and
    `insert_phrases` puts back.  Those nested in another are not kept (62 of EWT dev's
    256 NML nodes are)."""
    out: list[Span] = []
    stack = [tree]
    while stack:
        unit = stack.pop()
        if unit.label == label:
            out.append((label, unit.start, unit.end))
            continue
        stack.extend(c for c in unit.children if isinstance(c, Tree))
    return sorted(out, key=lambda s: s[1])


def insert_phrases(tree: Tree, spans: Sequence[Span]) -> Tree:
    """The tree with each span made a node over the whole children of the smallest node
    that holds it, where it groups some but not all of them (one child phrase: a unary
    node over it); a span that cuts through a node or covers all of a node's children is
    left out (a tagger's `flattened_spans` put back into a parser's tree)."""
    def fill(unit: Tree, todo: list[Span]) -> Tree:
        children = list(unit.children)
        for label, start, end in todo:
            edges = [extent(c) for c in children]
            firsts = [a for a, _ in edges]
            ends = [b for _, b in edges]
            inner = next((c for c in children if isinstance(c, Tree) and c.start <= start
                          and end <= c.end and (c.start, c.end) != (start, end)), None)
            if inner is not None or start not in firsts or end not in ends:
                continue   # held by a child (done below) or cutting through one
            i, j = firsts.index(start), ends.index(end) + 1
            if j - i == len(children):
                continue
            children[i:j] = [node(label, children[i:j])]
        out = []
        for c in children:
            if isinstance(c, Tree):
                held = [s for s in todo if c.start <= s[1] and s[2] <= c.end
                        and (s[1], s[2]) != (c.start, c.end)]
                c = fill(c, held) if held else c
            out.append(c)
        return Tree(unit.label, tuple(out), unit.start, unit.end)

    return fill(tree, list(spans)) if spans else tree


def level_features(levels: Sequence[Sequence[str]], n_words: int) -> list[str]:
    """What the level network reads at the next level, one tag per word: the label of the
    highest phrase found so far that covers the word, with the word's IOBES position in
    it (`O` for words in no phrase yet).  This is the paper's "label found so far"
    lookup-table feature; it tells the network which words already form a node."""
    feature = ["O"] * n_words
    for tags in levels:
        cover(feature, tags_to_spans(tags))
    return feature


def cover(feature: list[str], spans: Sequence[tuple[str, int, int]]) -> None:
    """`level_features` after one more level: its phrases (`spans`) cover their words, in
    place (the parser adds each level as it finds it)."""
    for label, start, end in spans:
        if end - start == 1:
            feature[start] = f"S-{label}"
        else:
            feature[start:end] = [f"B-{label}", *[f"I-{label}"] * (end - start - 2),
                                  f"E-{label}"]
