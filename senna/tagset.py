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
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress
from operator import attrgetter, itemgetter

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


def _word_rule(word: str) -> str:
    """The WSJ tag the word rules give `word` whatever its EWT tag, "" if none does (`"`
    has its own rule in `to_wsj`: it reads the sentence)."""
    new = WORD_MAP.get(word)
    if new is not None:
        return new
    return ":" if word[:1] in _RUN_START and _RUN.fullmatch(word) else ""


class _WordRules(dict):
    """word -> `_word_rule`, computed once per word so that a sentence's lookups are one
    C-level map; emptied past LIMIT words, so memory stays bounded."""

    LIMIT = 100_000

    def __missing__(self, word: str) -> str:
        if len(self) >= self.LIMIT:
            self.clear()
        new = self[word] = _word_rule(word)
        return new


_WORD_RULES = _WordRules()


def _positions(items: Sequence[str], value: str) -> Iterator[int]:
    """Indices of `value` in `items`, found by C-level scans (`index`)."""
    i = -1
    while True:
        try:
            i = items.index(value, i + 1)
        except ValueError:
            return
        yield i


def _word_by_word(words: Sequence[str], tags: Sequence[str]) -> list[str]:
    """The rules that read one token at a time (tag rules, punctuation tagged `,`, the word
    rules, in increasing precedence) over any run of tokens, e.g. a whole batch of
    sentences: C-level calls (map, index) over all of them, Python only where one fires."""
    out = list(map(TAG_MAP.get, tags, tags))
    for i in _positions(tags, ","):   # other punctuation tagged `,`: `:`
        if not any(c.isalnum() or c in _COMMAS for c in words[i]):
            out[i] = ":"
    rules = list(map(_WORD_RULES.__getitem__, words))
    for i in compress(range(len(rules)), rules):   # Python only where a rule fires
        out[i] = rules[i]
    return out


def _in_context(words: Sequence[str], tags: Sequence[str], out: list[str]) -> None:
    """The rules that read the sentence (`"`, then GW) on `_word_by_word`'s tags, in place."""
    for n, i in enumerate(_positions(words, '"')):   # `` after an even number of `"`, else ''
        out[i] = "''" if n % 2 else "``"
    if "GW" in out:   # GW left by no word rule: the next real piece's tag, right to left
        head = "NN"
        for i in range(len(out) - 1, -1, -1):
            if out[i] == "GW":
                out[i] = "NNP" if words[i][:1].isupper() else head
            elif tags[i] != "HYPH":
                head = "NN" if out[i] in _NOT_HEAD else out[i]


def to_wsj(words: Sequence[str], tags: Sequence[str]) -> list[str]:
    """One sentence's EWT tags in WSJ conventions (module docstring); tags outside the EWT
    set pass through unchanged, as do words and tags no rule names."""
    if len(words) != len(tags):
        raise ValueError(f"{len(words)} words but {len(tags)} tags")
    out = _word_by_word(words, tags)
    _in_context(words, tags, out)
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
    sents = [s for s in sentences if "pos" in s.columns]
    words = list(map(attrgetter("words"), sents))
    tags = list(map(itemgetter("pos"), map(attrgetter("columns"), sents)))
    if list(map(len, words)) != list(map(len, tags)):
        n, m = next((len(w), len(t)) for w, t in zip(words, tags, strict=True) if len(w) != len(t))
        raise ValueError(f"{n} words but {m} POS tags")
    # `to_wsj` sentence by sentence, its word-by-word rules over all sentences at once
    new = _word_by_word(list(chain.from_iterable(words)), list(chain.from_iterable(tags)))
    end = 0
    for sent, ws, ts in zip(sents, words, tags, strict=True):
        start, end = end, end + len(ws)
        out = new[start:end]
        if '"' in ws or "GW" in out:
            _in_context(ws, ts, out)
        sent.columns["pos"] = out
