"""The page's own code, run by Node.js where it is installed (skipped without): the parse
tree's levels it draws are those of senna.syntax.levels."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from senna.runtime.folders import default_model_dir
from senna.syntax.levels import normalise, tree_to_levels
from senna.syntax.tree import brackets_to_tree
from senna.tags import tags_to_spans

NODE = shutil.which("node") or shutil.which("nodejs")
APP = default_model_dir().parent / "serve" / "static" / "app.js"
TREES = [
    "(TOP (S (NP (PRP He)) (VP (VBD saw) (NP (NP (DT the) (NN man)) "
    "(PP (IN with) (NP (DT a) (NN hat))))) (. .)))",
    "(TOP (S (NP (-LRB- -LRB-) (NNP Ford) (-RRB- -RRB-)) (VP (VBD sold) (NP (CD 1,214) "
    "(NNS cars)))))",
]


def page_call(name: str, arg: object) -> object:
    """What the page's function `name` returns for `arg` (as JSON)."""
    source = APP.read_text(encoding="utf-8")
    function = re.search(rf"^function {name}\(.*?^}}\n", source, re.M | re.S).group(0)
    script = f"{function}\nconsole.log(JSON.stringify({name}({json.dumps(arg)})));"
    out = subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def page_levels(text: str) -> list[list[list]]:
    return page_call("treeLevels", text)


@pytest.mark.skipif(NODE is None, reason="needs Node.js (apt-get install nodejs)")
@pytest.mark.parametrize("text", TREES)
def test_the_page_draws_the_levels_of_the_tree(text):
    tree, _, _ = brackets_to_tree(text)
    expected = [sorted([label, s, e] for label, s, e in tags_to_spans(level))
                for level in tree_to_levels(normalise(tree))]
    assert [sorted(level) for level in page_levels(text)] == expected


@pytest.mark.skipif(NODE is None, reason="needs Node.js (apt-get install nodejs)")
def test_a_unary_chain_is_drawn_as_two_levels():
    """The levels merge a chain into one FRAG#INTJ phrase; the page shows each node."""
    assert page_levels("(TOP (FRAG (INTJ (UH Hi))))") == [[["INTJ", 0, 1]], [["FRAG", 0, 1]]]


@pytest.mark.skipif(NODE is None, reason="needs Node.js (apt-get install nodejs)")
@pytest.mark.parametrize("tags", [["S-NP", "O", "B-VP", "E-VP"], ["B-NP", "I-NP", "E-NP"],
                                  ["O", "O"], ["I-NP", "B-PP", "S-NP", "E-VP"], []])
def test_the_page_reads_spans_off_the_tags_as_senna_does(tags):
    """The page draws PT0 from each token's tag (the JSON has no PT0 span field)."""
    want = [{"label": label, "start": s, "end": e} for label, s, e in tags_to_spans(tags)]
    assert page_call("tagSpans", tags) == want
