"""POS tags in the Penn Treebank's WSJ conventions (45 tags) or as the tagger predicts them.

Why: the shipped POS tagger is trained on the English Web Treebank (EWT XPOS), but SENNA,
NLTK's SENNA wrapper and their users expect the WSJ tag set and conventions.  EWT tags 1,862
"to" tokens `IN`, every `;` and most `--`, `...` as `,`, and adds seven tags WSJ lacks.  The
networks keep EWT tags (downstream models were trained on them); this module rewrites a
sentence's tags at output time only.

Each choice follows how WSJ text tags the same tokens (the POS column of CoNLL-2000's
train.txt; counts in brackets), else UD EWT's own UPOS for the EWT tag.  Word rules come
first and hold whatever the EWT tag:

| token                                    | WSJ | evidence in WSJ text                 |
|------------------------------------------|-----|--------------------------------------|
| to, To, TO                               | TO  | to: TO (5,045 of 5,045)              |
| ; and dash runs - -- --- – —             | :   | ; : (243), -- : (438), - : (16)      |
| runs of 2+ periods, …                    | :   | ... : (36 of 36)                     |
| other punctuation tagged `,` (/ =)       | :   | `,` is only ever "," (10,770)        |
| opening quotes `` “ ‘ ` „                | ``  | `` `` (1,503), ` `` (28)             |
| closing quotes '' ”                      | ''  | '' '' (1,466)                        |
| `"`                                      | ``/'' alternately (note 1)             |
| ( [ { -LRB- -LSB- -LCB-                  | (   | -LRB- ( (236), -LCB- ( (38)          |
| ) ] } -RRB- -RSB- -RCB-                  | )   | -RRB- ) (242), -RCB- ) (39)          |
| #                                        | #   | # # (36); EWT tags it NN             |

Then tag rules:

| EWT tag      | WSJ | why                                                            |
|--------------|-----|----------------------------------------------------------------|
| -LRB-, -RRB- | ( ) | the 45-tag set's names for brackets (`<` `>` included)         |
| HYPH         | :   | a lone hyphen or slash: - is : in WSJ (16 of 16) (note 2)      |
| NFP          | SYM | * and = are SYM (5); UD EWT: emoticons are SYM (note 3)        |
| ADD          | NNP | e-mail addresses, URLs: UD EWT's UPOS is PROPN (80 of 83)      |
| AFX          | JJ  | split-off prefix (pre, non): WSJ's "post-election" is one JJ   |
| GW           | NNP if capitalised, else the next piece's tag (note 4)               |
| XX           | NN  | its one EWT training token is %, which WSJ tags NN (1,205)     |

1. `"` is `` when an even number of `"` precede it in the sentence, else ''.  On WSJ text
   this agrees with the file on 2,867 of 2,969 `"`, the tagger's own `` / '' on 2,741 (EWT
   dev: 150 of 160 both).
2. WSJ never splits hyphenated words, EWT (and this tokeniser) does: "well - known".
   Tokenisation is not changed, so agreement with WSJ text cannot reach 100%.
3. Dash runs and ellipses tagged NFP are `:` by the word rules.
4. GW marks the leading pieces of a word split apart ("socio/GW -/HYPH political/JJ"),
   whose last piece carries the word's tag: GW takes the WSJ tag of the next token that is
   neither GW nor HYPH (NN when that is punctuation, $ or missing).  Capitalised pieces are
   mostly names ("Ken/GW Rice@ENRON/GW ..."; the tagger's GW on WSJ text: NNP 26 of 61).

Every other tag is kept: EWT's other 42 tags are WSJ tags.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from senna.document import Sentence

TAGSETS = ("wsj", "ewt")
DEFAULT_TAGSET = "wsj"

#: The Penn Treebank's 45 tags (Marcus et al. 1993, Table 2).
WSJ_TAGS = frozenset(
    "CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB RBR RBS RP SYM "
    "TO UH VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB # $ . , : ( ) `` ''".split())
#: EWT's XPOS: WSJ's less #, ( and ), plus its own bracket names and six more tags.
EWT_TAGS = (WSJ_TAGS - {"#", "(", ")"}) | {"-LRB-", "-RRB-", "HYPH", "NFP", "ADD", "GW",
                                          "AFX", "XX"}

TAG_MAP = {"-LRB-": "(", "-RRB-": ")", "HYPH": ":", "NFP": "SYM", "ADD": "NNP", "AFX": "JJ",
           "XX": "NN"}
_OPEN = ("``", "“", "‘", "`", "„", "(", "[", "{", "-LRB-", "-LSB-", "-LCB-")
_CLOSE = ("''", "”", ")", "]", "}", "-RRB-", "-RSB-", "-RCB-")
#: Word rules that hold whatever the EWT tag (`"`, dashes, ellipses: see `to_wsj`).
WORD_MAP = {"to": "TO", "To": "TO", "TO": "TO", "tO": "TO", ";": ":", "#": "#", "…": ":"}
WORD_MAP |= {w: "``" for w in _OPEN[:5]} | {w: "(" for w in _OPEN[5:]}
WORD_MAP |= {w: "''" for w in _CLOSE[:2]} | {w: ")" for w in _CLOSE[2:]}
_RUN = re.compile(r"[-‐‑‒–—―]+|\.{2,}|…+")   # dash runs and ellipses: `:`
_RUN_START = frozenset("-‐‑‒–—―.…")
_NOT_HEAD = frozenset(", . : `` '' ( ) # $ SYM".split())   # GW takes NN instead
_COMMAS = frozenset(",，、")


def check_tagset(name: str) -> str:
    """The tag set name, or ValueError naming the choices."""
    if name not in TAGSETS:
        raise ValueError(f"tagset must be one of {', '.join(TAGSETS)}, got {name!r}")
    return name


def to_wsj(words: Sequence[str], tags: Sequence[str]) -> list[str]:
    """One sentence's EWT tags in WSJ conventions (module docstring); tags outside the EWT
    set pass through unchanged, as do words and tags no rule names."""
    if len(words) != len(tags):
        raise ValueError(f"{len(words)} words but {len(tags)} tags")
    out = []
    quotes = 0   # `"` tokens seen so far
    for word, tag in zip(words, tags, strict=True):
        new = WORD_MAP.get(word)
        if new is None:
            if word == '"':
                new = "''" if quotes % 2 else "``"
                quotes += 1
            elif word[:1] in _RUN_START and _RUN.fullmatch(word):
                new = ":"
            elif tag == "," and not any(c.isalnum() or c in _COMMAS for c in word):
                new = ":"
            else:
                new = TAG_MAP.get(tag, tag)
        out.append(new)
    if "GW" in out:   # GW left by no word rule: the next real piece's tag, right to left
        head = "NN"
        for i in range(len(out) - 1, -1, -1):
            if out[i] == "GW":
                out[i] = "NNP" if words[i][:1].isupper() else head
            elif tags[i] != "HYPH":
                head = "NN" if out[i] in _NOT_HEAD else out[i]
    return out


def convert(words: Sequence[str], tags: Sequence[str], tagset: str = DEFAULT_TAGSET
            ) -> list[str]:
    """Tags in `tagset`: "wsj" maps with `to_wsj`, "ewt" returns them as predicted."""
    return to_wsj(words, tags) if check_tagset(tagset) == "wsj" else list(tags)


def apply_tagset(sentences: Iterable[Sentence], tagset: str = DEFAULT_TAGSET) -> None:
    """Rewrite the sentences' POS columns in place (sentences without POS are left alone).

    Only the returned documents are rewritten: the cascade inside the pipeline (CHUNK and PT0
    read POS) has already run on the tags the models were trained with."""
    if check_tagset(tagset) == "ewt":
        return
    for sent in sentences:
        if "pos" in sent.columns:
            sent.columns["pos"] = to_wsj(sent.words, sent.columns["pos"])
