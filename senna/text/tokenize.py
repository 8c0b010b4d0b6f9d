"""Raw text -> sentences of Penn-Treebank-style tokens with exact character offsets.

Why a library: sentence splitting and PTB tokenisation are full of corner cases
(abbreviations, contractions, ellipses, brackets) that maintained libraries
already handle; this module only wraps one and patches where it departs from
the conventions of the EWT/PTB data the taggers are trained on.

Choice, measured by ``python bench/tokenizers.py`` on the raw text of the EWT dev
set (318 documents rebuilt from ``# text =``, 2001 sentences, 25,147 gold tokens;
token F1 on exact character spans, sentence-boundary F1 on sentence end offsets,
throughput in gold tokens/s on one CPU core, split + tokenise):

| candidate                                       | tok P  | tok R  | tok F1 | sent F1 | tokens/s |
|-------------------------------------------------|--------|--------|--------|---------|----------|
| syntok 1.4.4                                    | 0.9644 | 0.9769 | 0.9706 | 0.7935  | 169,493  |
| blingfire 0.1.8                                 | 0.9010 | 0.9714 | 0.9349 | 0.7926  | 277,183  |
| nltk 3.10 (untrained Punkt + NLTKWordTokenizer) | 0.9569 | 0.9684 | 0.9626 | 0.8332  |  59,531  |
| senna.text.tokenize (syntok + fix-ups below)    | 0.9836 | 0.9821 | 0.9828 | 0.7935  | 116,264  |

(Throughput on a shared 2-core box, best of 5 passes; expect +-20% between runs.
Sentence F1 is low for everyone because EWT web text often ends sentences without
punctuation, or starts them in lower case.)

``syntok`` wins on token accuracy, is pure Python (no binary wheel to break),
keeps exact offsets, and is fast enough (> 100k tokens/s). Its sentence
boundaries are on par with blingfire; the untrained NLTK Punkt splitter is a bit
better on boundaries but its tokens are worse and it is 3x slower. blingfire is the
fastest but splits "I'm" into "I ' m", "..." into ". . .", e-mail addresses and URLs
into pieces, and goes through a C buffer that stops at NUL characters.

Fix-ups applied on top of syntok (all cheap, per sentence):
  * syntok is run with hyphens emitted as tokens (EWT splits "well - known") and
    "n't" kept verbatim (its default rewrites it to "not", breaking offsets);
  * PTB splits "cannot", "gonna", "gotta", "wanna", "gimme", "lemme" in two;
  * camelCase words that syntok splits ("iPhone", "McDonald") are re-joined;
  * punctuation runs are re-joined ("!!!", "?!", "....", "***", "--");
  * an abbreviation's period that syntok detached inside a sentence is re-attached
    ("Dr." "U.S." "Inc."), and at a sentence end when the word has inner periods ("U.S.");
  * quotes and clitics as the PTB tokenizer (NLTK's TreebankWordTokenizer) writes them:
    "``" and "''" are one token each (syntok gives two), a clitic after a space ("John 's",
    "I 'm") is one token "'s" / "'m", and "'Tis" / "'Twas" split as "'T" + "is" / "was";
  * invisible characters (controls, zero-width characters, a byte-order mark: see
    senna.text.invisible) are dropped before tokenising, offsets still index the input,
    and a token's text is its slice without them;
  * robustness: any non-whitespace character syntok skipped becomes a token, any token
    holding a whitespace character (``str.isspace``, e.g. U+001C) is split, so
    concatenating the tokens always gives the visible text minus its whitespace.

Spanish and Dutch (docs/tokenization.md), in every language since none of it changes how
English text is tokenised (the words of CoNLL-2003's eng.testa give the same tokens and
sentences as before):
  * Spanish and Dutch abbreviations keep their period ("Cd." "Dra." "Ud." "pág." "blz."),
    and a sentence break syntok puts after one is undone unless a word that starts
    sentences follows (syntok's rule for the abbreviations it knows);
  * a dialogue dash and a lower-case word after "?", "!" or an ellipsis go on with the
    sentence ("—¿Vienes? —preguntó Juan—. Te espero." is two sentences, not three);
  * "'s-Hertogenbosch", "z'n", "zo'n", "m'n", "d'r", "'t", "'n" are one token each.
With ``language="es"`` or ``"nl"`` the tokens follow the CoNLL-2002 data that Spanish and
Dutch models learn from: hyphenated words stay whole ("Castilla-La", "Groot-Brittannië"),
and so do Spanish percentages ("30%") and the Dutch "'s" of plurals ("foto's").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from itertools import accumulate, repeat
from types import ModuleType
from typing import Any, NamedTuple, overload

from senna.text.invisible import INVISIBLE, INVISIBLE_CHARS, visible, visible_with_offsets

__all__ = ["LANGUAGES", "SpacedTokens", "Token", "plain_split", "pretokenized_tokens",
           "split_pretokenized", "tokenize"]


class Token(NamedTuple):
    """A token and its character span in the raw text, so tags map back onto the input
    (a named tuple: sentences of training data make hundreds of thousands of them)."""

    text: str
    start: int | None = None  # None: a word given without its source text
    end: int | None = None


class SpacedTokens(Sequence[Token]):
    """The tokens of words joined by single spaces (SENNA's usual -usrtokens line), made
    when first read: their offsets follow from the word lengths, and the column output
    reads only the words, so a batch of plain -usrtokens lines makes no named tuples."""

    __slots__ = ("words", "_tokens")

    def __init__(self, words: list[str]):
        self.words = words
        self._tokens: list[Token] | None = None

    def _made(self) -> list[Token]:
        if self._tokens is None:
            steps = [len(w) + 1 for w in self.words]        # a word and the space after it
            after = list(accumulate(steps))                 # the offset after that space
            spans = zip(self.words, map(int.__sub__, after, steps),
                        map(int.__sub__, after, repeat(1)), strict=True)
            # tuple.__new__ is what the named tuple's constructor calls, minus a Python frame
            self._tokens = list(map(tuple.__new__, repeat(Token), spans))
        return self._tokens

    def __len__(self) -> int:
        return len(self.words)

    @overload
    def __getitem__(self, i: int) -> Token: ...
    @overload
    def __getitem__(self, i: slice) -> list[Token]: ...
    def __getitem__(self, i: int | slice) -> Token | list[Token]:
        return self._made()[i]

    def __iter__(self) -> Iterator[Token]:
        return iter(self._made())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self._made() == list(other)

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable as one

    def __repr__(self) -> str:
        return repr(self._made())


Span = tuple[int, int]

_NONSPACE = re.compile(r"\S+")  # Python's \s == str.isspace, unlike syntok's `regex` \s
_ODD_SPACE = re.compile("[\x1c-\x1f]")  # where str.isspace and syntok disagree (U+200B,
# the other one, is invisible and gone before syntok runs)
# PTB (and NLTK's Treebank tokenizer) split these in two: word -> length of the first part.
_PTB_SPLITS = {"cannot": 3, "gonna": 3, "gotta": 3, "wanna": 3, "gimme": 3, "lemme": 3}
# Spanish and Dutch abbreviations (syntok's list has "Sr" and "Sra" but not "Dra", "Cd" or
# "Ud"): their period stays on the word, and a sentence break syntok puts after one is undone.
_ES_NL_ABBREVIATIONS = frozenset(
    "Cd Sr Sra Srta Sres Sras Dr Dra Dres Ud Uds Vd Vds Lic Ing Arq Av Avda Dña Excmo Excma"
    " Ilmo Ilma Cía Gral Sto Sta pág págs núm aprox tel admón ej"
    " bijv blz dhr mevr drs ir mr jl ca resp evt incl excl".split()
)
# Those of them that come before a name: a surname's particle that syntok takes as starting
# a sentence ("De" "La") does not end the sentence there ("la Sra. De la Fuente").
_ES_NL_TITLES = frozenset(
    "Cd Sr Sra Srta Sres Sras Dr Dra Dres Lic Ing Arq Av Avda Dña Excmo Excma Ilmo Ilma Gral"
    " Sto Sta dhr mevr drs ir mr".split()
)
_NAME_PARTICLES = frozenset("De Del La Las Los Da Der Den Van Von Ter Ten".split())
# Abbreviations whose period stays on the word: English ones (syntok's own list mixes in
# German and Spanish words such as "art", "de", "so" that more often end a sentence in
# English), and the Spanish and Dutch ones above.
_ABBREVIATIONS = frozenset(
    "Mr Mrs Ms Mssrs Dr Prof Sr Jr St Mt Ft Inc Ltd Co Corp Bros vs etc approx Gen Col Capt"
    " Lt Sgt Sen Rep Gov Pres Rev Hon No Nos fig figs vol Ave Blvd Rd Jan Feb Mar Apr Jun Jul"
    " Aug Sep Sept Oct Nov Dec Mon Tue Tues Wed Thu Thur Thurs Fri Sat Sun".split()
) | _ES_NL_ABBREVIATIONS
# Spanish dialogue dashes: after "?", "!" or an ellipsis, a dash and a lower-case word go
# on with the sentence ("—¿Vienes? —preguntó Juan—."), as a lower-case word does there.
_DIALOGUE_DASHES = frozenset("—–")
# Words that syntok cuts in pieces and that are one token, in any language: Dutch place
# names ("'s-Hertogenbosch", "'s-Gravenhage") and contractions ("z'n", "zo'n", "m'n", "d'r",
# "'t", "'n").  Per language, what the CoNLL-2002 data writes as one token: hyphenated
# words ("Castilla-La", "Groot-Brittannië"; EWT, hence English, splits them), Spanish
# percentages ("30%"), and the Dutch "'s" of plurals and possessives ("foto's").  The
# tokens that tile a match become one.
_DUTCH_APOSTROPHES = (r"(?<![\w'`])(?:'s-[A-Z]\w*(?:-\w+)*|'[tn]|(?:[zZmM]|[zZ]o)'n|[dD]'r)"
                      r"(?![\w'`-])")
_HYPHENATED = r"(?<![\w'`-])\w+(?:-\w+)+(?![\w-])"
_PERCENT = r"(?<![\w.,])\d[\d.,]*%"
_APOSTROPHE_S = r"(?<![\w'`-])\w+(?:-\w+)*'s(?![\w'`-])"
_WORD_JOINS = {
    "en": re.compile(_DUTCH_APOSTROPHES),
    "es": re.compile("|".join((_DUTCH_APOSTROPHES, _HYPHENATED, _PERCENT))),
    "nl": re.compile("|".join((_DUTCH_APOSTROPHES, _APOSTROPHE_S, _HYPHENATED))),
}
LANGUAGES = tuple(_WORD_JOINS)
# PTB clitics split off a word ("John's" -> "'s"); after a space syntok leaves "'" + "s".
_CLITICS = frozenset({"s", "m", "d", "ll", "ve", "re"})
# PTB's "'Tis" -> "'T" + "is", "'Twas" -> "'T" + "was" (NLTK's TreebankWordTokenizer too).
_T_CONTRACTIONS = frozenset({"tis", "twas"})
_RUN_PUNCT = frozenset(".!?")
_REPEAT_PUNCT = frozenset("*-=_+~#")


def _is_run_punct(s: str) -> bool:
    """Sentence punctuation only ('!', '?!', '...'): EWT keeps such runs as one token."""
    return all(c in _RUN_PUNCT for c in s)


def _fix_sentence(text: str, spans: list[Span]) -> list[Span]:
    """Patch syntok's output where it departs from PTB/EWT conventions (see module doc).

    The last output token's properties are tracked as flags, never re-sliced, so long
    chains of joins (a 1 MB camelCase "word") stay linear.
    """
    out: list[Span] = []
    run = repeat = False  # last output token is a [.!?] run / one repeated symbol
    for i, (s, e) in enumerate(spans):
        if out and out[-1][1] == s:  # only touching tokens can need re-joining
            ps = out[-1][0]
            cur = text[s:e]
            cur_run = _is_run_punct(cur)
            if (
                (text[s - 1].islower() and cur[0].isupper())
                or (run and cur_run)
                or (repeat and cur[0] == text[s - 1] and cur.count(cur[0]) == len(cur))
                or (cur == "." and text[s - 1].isalnum() and _abbrev_period(text, spans, i, ps))
                or (cur in ("`", "'") and s - ps == 1 and text[ps] == cur)  # `` and ''
                or (_after_lone_quote(text, out) and cur.lower() in _CLITICS
                    and _word_ends(text, e))
            ):
                out[-1] = (ps, e)
                run = run and cur_run
                continue
            if (_after_lone_quote(text, out) and cur.lower() in _T_CONTRACTIONS
                    and _word_ends(text, e)):
                out[-1] = (ps, s + 1)   # "'" + "Tis" -> "'T" + "is"
                out.append((s + 1, e))
                run = repeat = False
                continue
        else:
            cur = text[s:e]
            cur_run = _is_run_punct(cur)
        run = cur_run
        repeat = cur[0] in _REPEAT_PUNCT and cur.count(cur[0]) == len(cur)
        if 5 <= e - s <= 6 and (cut := _PTB_SPLITS.get(text[s:e].lower())):
            out.append((s, s + cut))
            out.append((s + cut, e))
        else:
            out.append((s, e))
    return out


def _after_lone_quote(text: str, out: list[Span]) -> bool:
    """Whether the last output token is a "'" that does not follow a letter or digit
    (so "'" + "s" is the clitic of "John 's", not a closing quote and a word)."""
    ps, pe = out[-1]
    return pe - ps == 1 and text[ps] == "'" and (ps == 0 or not text[ps - 1].isalnum())


def _word_ends(text: str, e: int) -> bool:
    """Whether a word ending at `e` is a whole word ("'s" in "John 's car", not in
    "'s-Hertogenbosch" or the quoted letter "'s'")."""
    return e == len(text) or not (text[e].isalnum() or text[e] in "'`-")


def _abbrev_period(text: str, spans: list[Span], i: int, ps: int) -> bool:
    """Whether the '.' at spans[i] ends the abbreviation text[ps:.] rather than the sentence."""
    s = spans[i][0]
    if s - ps > 12:
        return False
    prev = text[ps:s]
    if i + 1 < len(spans):
        ns, ne = spans[i + 1]
        if not (text[ns].isalnum() or text[ns:ne] in (",", ";", ":")):
            return False
        return "." in prev or prev in _ABBREVIATIONS or (len(prev) == 1 and prev.isalpha())
    return "." in prev


def _needs_repair(text: str, sents: list[list[Span]]) -> bool:
    """Cheap check that the spans may not tile the text's non-whitespace characters.

    syntok splits on the `regex` module's whitespace, which differs from str.isspace
    only on U+001C..U+001F and U+200B (removed before); absent those, tokens hold no
    whitespace, so equal character counts mean nothing was skipped.
    """
    if _ODD_SPACE.search(text):
        return True
    covered = sum(e - s for sent in sents for s, e in sent)
    return covered != sum(map(len, text.split()))


def _repair(text: str, sents: list[list[Span]]) -> list[list[Span]]:
    """Make spans cover exactly the text's non-whitespace characters, in order."""
    fixed: list[list[Span]] = []
    pos = 0
    for sent in sents:
        cur: list[Span] = []
        for s, e in sent:
            if s < pos:  # overlap (never seen from syntok): clip, keep order
                s = pos
                if s >= e:
                    continue
            if s > pos and not text[pos:s].isspace():  # skipped characters
                cur.extend(m.span() for m in _NONSPACE.finditer(text, pos, s))
            tok = text[s:e]
            if tok.split() == [tok]:
                cur.append((s, e))
            else:  # whitespace inside (or token of whitespace only)
                cur.extend(m.span() for m in _NONSPACE.finditer(text, s, e))
            pos = e
        if cur:
            fixed.append(cur)
    if pos < len(text) and not text[pos:].isspace():
        tail = [m.span() for m in _NONSPACE.finditer(text, pos)]
        if fixed:
            fixed[-1].extend(tail)
        else:
            fixed.append(tail)
    return fixed


def _join_sentences(text: str, sents: list[list[Span]], starters: frozenset[str]
                    ) -> list[list[Span]]:
    """Undo syntok's sentence breaks after a Spanish or Dutch abbreviation it does not know
    ("Cd." "Dra." "pág."), unless a word that starts sentences follows (syntok's own rule
    for its abbreviations) other than a name's particle after a title ("mevr. De Vries"),
    and before a dialogue dash that goes on with the sentence."""
    out: list[list[Span]] = []
    for sent in sents:
        if out and (_after_abbreviation(text, out[-1], sent, starters)
                    or _dialogue_goes_on(text, out[-1], sent)):
            out[-1].extend(sent)
        else:
            out.append(sent)
    return out


def _after_abbreviation(text: str, prev: list[Span], sent: list[Span],
                        starters: frozenset[str]) -> bool:
    """Whether `prev` ends with an abbreviation of _ES_NL_ABBREVIATIONS and its period."""
    if len(prev) < 2 or text[prev[-1][0]:prev[-1][1]] != "." or prev[-2][1] != prev[-1][0]:
        return False
    word, first = text[prev[-2][0]:prev[-2][1]], text[sent[0][0]:sent[0][1]]
    return word in _ES_NL_ABBREVIATIONS and (
        first not in starters or (word in _ES_NL_TITLES and first in _NAME_PARTICLES))


def _dialogue_goes_on(text: str, prev: list[Span], sent: list[Span]) -> bool:
    """Whether `sent` is a dash and a lower-case word after a "?", "!" or ellipsis ending
    `prev`: the narrator's words in Spanish dialogue ("—¿Vienes? —preguntó Juan—.")."""
    last = text[prev[-1][0]:prev[-1][1]]
    return (len(sent) > 1 and text[sent[0][0]:sent[0][1]] in _DIALOGUE_DASHES
            and text[sent[1][0]].islower()
            and (last == "…" or (_is_run_punct(last) and last != ".")))


def _join_words(text: str, spans: list[Span], joins: re.Pattern[str]) -> list[Span]:
    """Merge the tokens that tile a match of `joins` ("z" "'n" -> "z'n")."""
    ends = {m.start(): m.end() for m in joins.finditer(text, spans[0][0], spans[-1][1])}
    if not ends:
        return spans
    out: list[Span] = []
    end = -1   # where the match that the last output token started ends
    for s, e in spans:
        if out and out[-1][1] == s and e <= end:
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
            end = ends.get(s, -1)
    return out


@functools.cache
def _syntok() -> tuple[ModuleType, Any, frozenset[str]]:
    """syntok's segmenter, our tokenizer and the words syntok takes as starting sentences,
    imported when raw text is first tokenised (syntok and its `regex` module take 15 ms to
    import; -usrtokens input never needs them)."""
    from syntok import segmenter
    from syntok._segmentation_states import State
    from syntok.tokenizer import Tokenizer

    return segmenter, Tokenizer(emit_hyphen_or_underscore_sep=True,
                                replace_not_contraction=False), frozenset(State.starters)


def tokenize(text: str, language: str = "en") -> list[list[Token]]:
    """Split raw text into sentences of PTB-style tokens whose offsets index `text`; a
    token's text is its slice without invisible characters (senna.text.invisible).  A
    line break ends a paragraph, so no sentence spans two lines: the `senna` command
    reads one paragraph a line, and every other entry point reads text the same way.
    `language` (one of LANGUAGES) picks the conventions of its training data: "es" and
    "nl" those of CoNLL-2002 (hyphenated words whole; "30%" in Spanish, "foto's" in
    Dutch); ValueError for another."""
    joins = _WORD_JOINS.get(language)
    if joins is None:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    if "\n" not in text:
        return _tokenize_line(text, joins)
    out, start = [], 0
    for line in text.split("\n"):
        out += [[Token(t.text, t.start + start, t.end + start) for t in sent]
                for sent in _tokenize_line(line, joins)] if start else \
            _tokenize_line(line, joins)
        start += len(line) + 1
    return out


def _tokenize_line(text: str, joins: re.Pattern[str]) -> list[list[Token]]:
    """`tokenize` for text without a line break."""
    shown, where = visible_with_offsets(text)
    sents = _tokenize_visible(shown, joins)
    if where is None:
        return sents
    return [[Token(t.text, where(t.start), where(t.end - 1) + 1) for t in sent]
            for sent in sents]


def _tokenize_visible(text: str, joins: re.Pattern[str]) -> list[list[Token]]:
    if not text or text.isspace():
        return []
    segmenter, tokenizer, starters = _syntok()
    sents: list[list[Span]] = []
    for offset, para in segmenter.preprocess_with_offsets(text):
        if not para or para.isspace():
            continue
        # Tokenise at base 0 and shift: syntok's base_offset pads with offset spaces (quadratic).
        found = [[(offset + t.offset, offset + t.offset + len(t.value)) for t in sent if t.value]
                 for sent in segmenter.segment(tokenizer.tokenize(para))]
        sents.extend(_join_words(text, _fix_sentence(text, spans), joins)
                     for spans in _join_sentences(text, [f for f in found if f], starters))
    if _needs_repair(text, sents):
        sents = _repair(text, sents)
    return [[Token(text[s:e], s, e) for s, e in sent] for sent in sents]


# ASCII whitespace, plus what str.splitlines() breaks at (a token must fit on one line)
USRTOKEN_SEPARATORS = " \t\n\r\f\v\x1c\x1d\x1e\x1f\x85\u2028\u2029"
_USRTOKEN = re.compile(f"[^{re.escape(USRTOKEN_SEPARATORS)}]+")


# What a -usrtokens token never starts or ends with: invisible characters, and the spaces
# that do not separate tokens (a no-break space may sit inside a token, not at its edge:
# _SPACE_EDGE finds one there).
_EDGE = re.compile(f"^[{INVISIBLE_CHARS}\\s]+|[{INVISIBLE_CHARS}\\s]+$")
_SEP = f"[{re.escape(USRTOKEN_SEPARATORS)}]"
_KEPT_SPACE = f"[^\\S{re.escape(USRTOKEN_SEPARATORS)}]"
_SPACE_EDGE = re.compile(f"(?:^|{_SEP}){_KEPT_SPACE}|{_KEPT_SPACE}(?:{_SEP}|$)")
_NOT_PLAIN = re.compile(f"[{INVISIBLE_CHARS}]|{_KEPT_SPACE}")


def plain_split(line: str) -> bool:
    """Whether `line.split()` gives its -usrtokens tokens: no invisible character and no
    space that does not separate tokens (always so for ASCII text without controls)."""
    return not _NOT_PLAIN.search(line)


def split_pretokenized(line: str) -> list[Token]:
    """Tokens of SENNA's -usrtokens, keeping offsets into `line`.

    As in SENNA, ASCII whitespace separates tokens and other Unicode spaces do not: a
    no-break space may sit inside a token (NLTK's wrapper sends such tokens and expects one
    output line per token).  Line-breaking control characters also separate.  Invisible
    characters (senna.text.invisible) are left out of tokens, and so are the other spaces at
    a token's edge (they would make it blank or ragged in the column layouts and CoNLL-U):
    the span starts and ends on a visible, non-space character, the text is the span
    without invisible characters, and a token without a visible non-space character is
    dropped."""
    if not INVISIBLE.search(line) and not _SPACE_EDGE.search(line):
        return [Token(m.group(), m.start(), m.end()) for m in _USRTOKEN.finditer(line)]
    out = []
    for m in _USRTOKEN.finditer(line):
        word = m.group()
        if not (INVISIBLE.search(word) or word[0].isspace() or word[-1].isspace()):
            out.append(Token(word, m.start(), m.end()))
            continue
        text = visible(word).strip()
        if text:
            s, e = m.span()
            for edge in _EDGE.finditer(word):
                if edge.start() == 0:
                    s += edge.end()
                else:
                    e -= edge.end() - edge.start()
            out.append(Token(text, s, e))
    return out


def pretokenized_tokens(words: Sequence[str]) -> list[Token]:
    """The tokens of a pre-tokenised sentence, one per word, with offsets into the words
    joined by single spaces: each word must be exactly one -usrtokens token
    (`split_pretokenized`), so that a list gives what the line of its words gives, and no
    output layout meets a blank token or one that spans columns or lines.  Invisible
    characters and spaces at a word's edge are left out of its token (as in a line);
    ValueError naming the first word that is empty, has nothing visible, or holds a
    separator (ASCII whitespace, a line break) between two tokens."""
    out, pos = [], 0
    for i, word in enumerate(words):
        toks = split_pretokenized(word)
        if len(toks) != 1:
            raise ValueError(_bad_word(i, word, len(toks)))
        text, s, e = toks[0]
        out.append(Token(text, pos + s, pos + e))  # type: ignore[operator]
        pos += len(word) + 1
    return out


def _bad_word(i: int, word: str, n: int) -> str:
    """Why word `i` is not one token (`n` tokens found in it)."""
    what = ("is empty" if not word else "has no visible character" if n == 0
            else f"holds {n} tokens separated by whitespace")
    shown = repr(word) if len(word) <= 40 else f"{word[:40]!r}... ({len(word)} characters)"
    return f"pre-tokenised word {i + 1} (index {i}) {shown} {what}: give one token per item"
