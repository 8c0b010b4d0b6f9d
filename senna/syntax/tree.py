r"""A minimal immutable constituency tree, and its two text forms.

A `Tree` holds phrase nodes only: its leaves are word indices (ints), and words and POS
tags live beside it in lists, as in every column file of the project.  Pre-terminals
(`(NN dog)`) are therefore not nodes: their tag is the word's POS.

Text forms:

* the CoNLL parse column (`(TOP(S(NP*`, `*`, `*))`), one cell per word, where `*` stands
  for the word's pre-terminal (OntoNotes / CoNLL-2005 / CoNLL-2012);
* a Penn Treebank bracket string `(TOP (S (NP (PRP He)) (VP (VBD left))))`.  Brackets in
  words are written `-LRB-` / `-RRB-` (the PTB escapes) and read back as `(` / `)`; what
  else cannot stand in a leaf (a backslash, any whitespace such as the no-break space of
  `10\u00a0000`) is written `\uXXXX`, and a word's own `-LRB-` as `\u002dLRB-`, so that
  every word is one leaf and reads back as itself (`escape_word`, `unescape_word`; NLTK's
  `Tree.fromstring` reads the string too).  Tags and labels are kept as they are (`-LRB-`
  is the tag of `(`).
  A root with an empty label (`( (S ...))`, as in PTB files) reads as `TOP`; empty
  elements (`-NONE-` pre-terminals) are dropped with the phrases they leave empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from senna.tags import Span

ROOT = "TOP"
NONE_TAG = "-NONE-"
_CELL = re.compile(r"^((?:\([^()*\s]+)*)\*(\)*)$")
_TOKEN = re.compile(r"\(|\)|[^\s()]+")
NESTING = {"(": 1, ")": -1}   # what a bracket token does to the depth
_FUNCTION_TAG = re.compile(r"(?<=.)[-=].*")
MAX_DEPTH = 500   # brackets nested deeper are refused: the reader recurses once per bracket
_ATOM = re.compile(r"[^\s()]+")
_ESCAPES = (("(", "-LRB-"), (")", "-RRB-"))
BRACKETS = {"(": "-LRB-", ")": "-RRB-"}
# What a word's leaf cannot hold as it is: a bracket, a backslash (NLTK reads `\)` as an
# escaped bracket), whitespace (it would split the leaf); and a hyphen that would start a
# `-LRB-` or `-RRB-` read as a bracket.
_UNSAFE = re.compile(r"[()\\]|\s|-(?=(?:LRB|RRB)[-()])")
_ESCAPED = re.compile(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})|-LRB-|-RRB-")
_UNBRACKETS = {v: k for k, v in BRACKETS.items()}


class Tree(NamedTuple):
    """A phrase node: `label`, `children` (nodes or word indices, left to right) and the
    words it covers, `start` to `end` (exclusive).  Build it with `node`, which checks
    that the children are adjacent.  (A named tuple: a corpus holds millions of nodes.)"""

    label: str
    children: tuple[Tree | int, ...]
    start: int
    end: int

    def nodes(self) -> Iterator[Tree]:
        """Every phrase node, this one first (pre-order)."""
        yield self
        for child in self.children:
            if isinstance(child, Tree):
                yield from child.nodes()

    def brackets(self) -> list[Span]:
        """(label, start, end) of every phrase node, in pre-order."""
        return [(t.label, t.start, t.end) for t in self.nodes()]


def extent(unit: Tree | int) -> tuple[int, int]:
    """Words (start, end exclusive) of a node or of a single word index."""
    return (unit.start, unit.end) if isinstance(unit, Tree) else (unit, unit + 1)


def node(label: str, children: Sequence[Tree | int]) -> Tree:
    """A node over adjacent children; ValueError if there are none or they leave gaps."""
    if not children:
        raise ValueError(f"phrase {label!r} has no children (expected at least one)")
    first, end = extent(children[0])
    for child in children[1:]:
        start, stop = (child.start, child.end) if isinstance(child, Tree) else (child, child + 1)
        if start != end:
            raise ValueError(f"phrase {label!r}: children are not adjacent "
                             f"(one ends at word {end}, the next starts at word {start})")
        end = stop
    return Tree(label, tuple(children), first, end)


# --------------------------------------------------------------------------- CoNLL column


def _cell(i: int, cell: str) -> tuple[list[str], int]:
    """`(TOP(S(NP*` -> (['TOP', 'S', 'NP'], 0); `*))` -> ([], 2)."""
    match = _CELL.match(cell)
    if match is None:
        raise ValueError(f"word {i}: bad parse cell (expected like '(S(NP*', '*' or '*))', "
                         f"got {cell!r})")
    return match.group(1).split("(")[1:], len(match.group(2))


def conll_to_tree(column: Sequence[str]) -> Tree:
    """The CoNLL parse column of one sentence -> its tree; ValueError if the brackets do not
    make exactly one tree over all the words."""
    stack: list[tuple[str, list]] = []
    root: Tree | None = None
    for i, cell in enumerate(column):
        opens, closes = _cell(i, cell)
        if root is not None or (not stack and not opens):
            raise ValueError(f"word {i}: outside the tree (expected one tree over all "
                             f"{len(column)} words, got {cell!r})")
        stack.extend((label, []) for label in opens)
        stack[-1][1].append(i)
        for _ in range(closes):
            if not stack:
                raise ValueError(f"word {i}: {cell!r} closes a bracket never opened")
            label, children = stack.pop()
            done = node(label, children)
            if stack:
                stack[-1][1].append(done)
            else:
                root = done
    if stack or root is None:
        raise ValueError(f"unbalanced brackets (expected {len(stack)} more ')' by the last "
                         f"of {len(column)} words)")
    return root


def column_to_brackets(column: Sequence[str], words: Sequence[str],
                       tags: Sequence[str]) -> str:
    """A parse column -> its one-line bracket string.  The column may hold several trees
    one after another (a long sentence parsed in pieces, each under its own `TOP`): their
    roots' children then go under one `TOP`."""
    cells, depth, parts = list(column), 0, []
    for i, cell in enumerate(cells):
        opens, closes = _cell(i, cell)
        if depth == 0:
            parts.append([i, i])
        depth += len(opens) - closes
        parts[-1][1] = i
    if len(parts) > 1:
        for first, last in parts:
            if not (cells[first].startswith(f"({ROOT}(") and cells[last].endswith(")")):
                break   # not trees under TOP roots: conll_to_tree says what is wrong
            cells[first], cells[last] = cells[first][len(ROOT) + 1 :], cells[last][:-1]
        else:
            cells[0], cells[-1] = f"({ROOT}{cells[0]}", f"{cells[-1]})"
    return tree_to_brackets(conll_to_tree(cells), words, tags)


def tree_to_conll(tree: Tree) -> list[str]:
    """A tree over words 0..n-1 -> its CoNLL parse column (n cells)."""
    if tree.start != 0:
        raise ValueError(f"tree starts at word {tree.start} (expected 0)")
    opens = [""] * tree.end
    closes = [0] * tree.end
    for t in tree.nodes():
        opens[t.start] += f"({t.label}"
        closes[t.end - 1] += 1
    return [f"{o}*{')' * c}" for o, c in zip(opens, closes, strict=True)]


# --------------------------------------------------------------------------- bracket strings


def _escape(text: str) -> str:
    for raw, escaped in _ESCAPES:
        text = text.replace(raw, escaped)
    return text


def _unescape(text: str) -> str:
    for raw, escaped in _ESCAPES:
        text = text.replace(escaped, raw)
    return text


def _escape_char(match: re.Match) -> str:
    c = match.group()
    if c in BRACKETS:
        return BRACKETS[c]
    return f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"


def _unescape_match(match: re.Match) -> str:
    code = match.group(1) or match.group(2)
    return chr(int(code, 16)) if code else _UNBRACKETS[match.group()]


def escape_word(word: str) -> str:
    """A word as one leaf of a bracket string: brackets as the Penn Treebank writes them
    (`-LRB-`, `-RRB-`), a backslash, whitespace and a hyphen starting a word's own `-LRB-`
    as `\\uXXXX`; `unescape_word` reads it back.  (The empty word, which no tokenizer
    makes, is written `\\u`: a leaf cannot be empty.)"""
    return _UNSAFE.sub(_escape_char, word) if word else "\\u"


def unescape_word(leaf: str) -> str:
    """The word of a bracket string's leaf (`escape_word`'s inverse; a PTB file's `-LRB-`
    is `(`, and its other backslash escapes, such as `\\/`, are kept as they are)."""
    return "" if leaf == "\\u" else _ESCAPED.sub(_unescape_match, leaf)


def tree_to_brackets(tree: Tree, words: Sequence[str], tags: Sequence[str]) -> str:
    """One-line PTB bracket string of a tree with its words and POS tags (brackets in
    either written -LRB- and -RRB-, as the Penn Treebank does; words by `escape_word`)."""
    if not len(words) == len(tags) == tree.end or tree.start != 0:
        raise ValueError(f"tree over words {tree.start}..{tree.end} does not fit "
                         f"{len(words)} words and {len(tags)} tags")

    def text(unit: Tree | int) -> str:
        if isinstance(unit, Tree):
            return f"({unit.label} {' '.join(text(c) for c in unit.children)})"
        return f"({_escape(tags[unit])} {escape_word(words[unit])})"

    bad = [x for x in [*map(_escape, tags), *(t.label for t in tree.nodes())]
           if not _ATOM.fullmatch(x)]
    if bad:
        raise ValueError(f"label or tag {bad[0]!r} cannot be written in a bracket string "
                         "(expected no spaces or brackets)")
    return text(tree)


class _Reader:
    """Recursive-descent reader of one bracket string (tokens: '(', ')', atoms)."""

    def __init__(self, text: str):
        self.text, self.tokens, self.pos = text, bracket_tokens(text), 0
        self.words: list[str] = []
        self.tags: list[str] = []

    def fail(self, expected: str) -> ValueError:
        got = self.tokens[self.pos] if self.pos < len(self.tokens) else "the end"
        return ValueError(f"bad bracket string (expected {expected} at token {self.pos}, "
                          f"got {got!r}): {self.text[:80]!r}")

    def take(self, expected: str) -> str:
        if self.pos >= len(self.tokens) or (expected in "()" and self.tokens[self.pos] !=
                                            expected):
            raise self.fail(repr(expected) if expected in "()" else expected)
        self.pos += 1
        return self.tokens[self.pos - 1]

    def atom(self) -> str:
        token = self.take("a label or word")
        if token in "()":
            self.pos -= 1
            raise self.fail("a label or word")
        return token

    def unit(self) -> Tree | int | None:
        """'(' LABEL word ')' (a word) or '(' LABEL unit+ ')' (a phrase); None if empty."""
        self.take("(")
        label = "" if self.tokens[self.pos : self.pos + 1] == ["("] else self.atom()
        if self.tokens[self.pos : self.pos + 1] != ["("]:
            word = self.atom()
            self.take(")")
            if label == NONE_TAG:
                return None
            self.words.append(unescape_word(word))
            self.tags.append(label)
            return len(self.words) - 1
        children = []
        while self.tokens[self.pos : self.pos + 1] == ["("]:
            child = self.unit()
            if child is not None:
                children.append(child)
        self.take(")")
        return node(label or ROOT, children) if children else None


def plain_label(label: str) -> str:
    """A phrase label without its function tags and index (`NP-SBJ-1` -> `NP`, `NP=2` ->
    `NP`): the label evalb counts and OntoNotes' files hold."""
    return _FUNCTION_TAG.sub("", label)


def bracket_tokens(text: str) -> list[str]:
    """A bracket string's tokens: '(', ')' and the atoms between them."""
    return _TOKEN.findall(text)


def brackets_to_tree(text: str) -> tuple[Tree, list[str], list[str]]:
    """A PTB bracket string -> (tree, words, POS tags); ValueError when malformed or nested
    deeper than MAX_DEPTH."""
    depth = deepest = 0
    for token in bracket_tokens(text):
        depth += NESTING.get(token, 0)
        deepest = max(deepest, depth)
    if deepest > MAX_DEPTH:
        raise ValueError(f"brackets nested {deepest} deep (expected at most {MAX_DEPTH})")
    reader = _Reader(text)
    tree = reader.unit()
    if reader.pos != len(reader.tokens):
        raise reader.fail("the end after the tree")
    if not isinstance(tree, Tree):
        raise ValueError(f"no phrase over the words (expected a tree like '(S (NN word))', "
                         f"got {text[:80]!r})")
    return tree, reader.words, reader.tags
