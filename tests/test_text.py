"""Word features and raw-text tokenisation (senna.text)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from senna.text.invisible import INVISIBLE, visible, visible_with_offsets
from senna.text.normalize import (
    CAPS_ALLCAPS,
    CAPS_HASCAP,
    CAPS_INITCAP,
    CAPS_LOWER,
    CAPS_OTHER,
    CAPS_TAGS,
    NUMBER,
    caps_feature,
    caps_features,
    normalize_word,
    normalize_words,
    suffix,
)
from senna.text.tokenize import USRTOKEN_SEPARATORS, Token, split_pretokenized, tokenize

# --- normalize ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("Hello", "hello"),
        ("12,000", "NUMBER,NUMBER"),
        ("A4", "aNUMBER"),
        ("1990s", "NUMBERs"),
        ("3.14", "NUMBER.NUMBER"),
        ("٣٤", "NUMBER"),  # Arabic-Indic digits are digits too
        ("", ""),
        ("...", "..."),
    ],
)
def test_normalize_word(word: str, expected: str) -> None:
    assert normalize_word(word) == expected


def test_normalize_words_matches_scalar() -> None:
    words = ["The", "U.S.", "sold", "12,000", "iPhones", ""]
    assert normalize_words(words) == [normalize_word(w) for w in words]
    assert normalize_words(iter(words)) == normalize_words(words)


def test_caps_tags_order_is_fixed() -> None:
    # saved models and senna.features (caps_feature(w) + 1 == vocab id) depend on it
    assert CAPS_TAGS == ("PADDING", "lower", "allcaps", "initcap", "hascap", "nocaps-other")
    assert [CAPS_LOWER, CAPS_ALLCAPS, CAPS_INITCAP, CAPS_HASCAP, CAPS_OTHER] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("word", "tag"),
    [
        ("house", "lower"),
        ("don't", "lower"),
        ("abc123", "lower"),
        ("USA", "allcaps"),
        ("U.S.", "allcaps"),
        ("I", "allcaps"),
        ("Paris", "initcap"),
        ("McDonald", "initcap"),
        ("Élan", "initcap"),
        ("iPhone", "hascap"),
        ("eBay", "hascap"),
        ("123", "nocaps-other"),
        ("", "nocaps-other"),
        ("...", "nocaps-other"),
        ("12,000", "nocaps-other"),
        ("漢字", "nocaps-other"),  # letters, but none cased
        ("😀", "nocaps-other"),
    ],
)
def test_caps_feature(word: str, tag: str) -> None:
    assert CAPS_TAGS[caps_feature(word)] == tag


def test_caps_features_matches_scalar() -> None:
    words = ["The", "USA", "iPhone", "9", "x"]
    assert caps_features(words) == [caps_feature(w) for w in words]


@given(st.text(max_size=20))
def test_caps_feature_total(word: str) -> None:
    assert 1 <= caps_feature(word) < len(CAPS_TAGS)  # 0 is reserved for padding positions


def test_suffix() -> None:
    assert suffix("Walking") == "ng"
    assert suffix("Walking", 3) == "ing"
    assert suffix("A") == "a"
    assert suffix("") == ""
    assert suffix("A42") == NUMBER[-2:]  # of "aNUMBER": digits collapse before slicing
    with pytest.raises(ValueError):
        suffix("word", 0)


# --- tokenize -----------------------------------------------------------------


def texts(text: str) -> list[list[str]]:
    """Token strings per sentence."""
    return [[t.text for t in s] for s in tokenize(text)]


def assert_exact(text: str, sents: list[list[Token]]) -> None:
    """Offsets index the text (a token is its slice without invisible characters, and
    starts and ends on a visible one), tokens are non-empty, whitespace-free and in order,
    and together they hold every visible non-space character."""
    pos = 0
    for sent in sents:
        assert sent, "no empty sentences"
        for t in sent:
            assert visible(text[t.start : t.end]) == t.text
            assert not INVISIBLE.match(text[t.start]) and not INVISIBLE.match(text[t.end - 1])
            assert t.text and not any(c.isspace() for c in t.text)
            assert t.start >= pos
            pos = t.end
    assert "".join(t.text for s in sents for t in s) == "".join(visible(text).split())


def test_ptb_contraction() -> None:
    assert texts("Don't stop.") == [["Do", "n't", "stop", "."]]


def test_abbreviation_and_percent() -> None:
    assert texts("U.S. sales rose 5%.") == [["U.S.", "sales", "rose", "5", "%", "."]]


def test_ptb_splits() -> None:
    assert texts("I cannot go, I'm gonna stay.") == [
        ["I", "can", "not", "go", ",", "I", "'m", "gon", "na", "stay", "."]
    ]


def test_joins_what_syntok_splits() -> None:
    assert texts("Dr. Smith bought an iPhone at McDonald's!!!") == [
        ["Dr.", "Smith", "bought", "an", "iPhone", "at", "McDonald", "'s", "!!!"]
    ]


def test_two_sentences() -> None:
    text = "The cat sat on the mat. It was happy."
    sents = tokenize(text)
    assert texts(text) == [
        ["The", "cat", "sat", "on", "the", "mat", "."],
        ["It", "was", "happy", "."],
    ]
    assert sents[1][0] == Token("It", 24, 26)
    assert_exact(text, sents)


def test_paragraphs_and_offsets() -> None:
    text = "  First line here.\n\nSecond paragraph, with \"quotes\" (and parens)."
    sents = tokenize(text)
    assert len(sents) == 2
    assert_exact(text, sents)


@pytest.mark.parametrize("text", ["", " ", "\n\n\t ", "\u00a0\u2028\x1c"])
def test_empty(text: str) -> None:
    assert tokenize(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I ❤️ NY 😀 👨‍👩‍👧 ok.",
        "日本語のテキスト。漢字 and English.",
        "ctrl\x00chars\x07here\x1b. And\x1cfile\x1dsep\x1fhere.",
        "zero\u200bwidth space and nbsp\u00a0here.",
        "line\u2028sep\u2029para\x85nel.",
        "hyphen-\nated words, e-mail, co-op -- well.",
    ],
)
def test_unusual_characters(text: str) -> None:
    assert_exact(text, tokenize(text))


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("\ufeffJohn runs.", [("John", 1, 5), ("runs", 6, 10), (".", 10, 11)]),
        ("a \u200b b \u2060 \ufeff", [("a", 0, 1), ("b", 4, 5)]),
        ("zero\u200bwidth", [("zerowidth", 0, 10)]),
        ("co\u00adop\u200d", [("coop", 0, 5)]),
        ("a\x00b \x1b[1m", [("ab", 0, 3), ("[", 5, 6), ("1m", 6, 8)]),
        ("\x9b\x7fok\x07", [("ok", 2, 4)]),
        ("\u202eevil\u202c x", [("evil", 1, 5), ("x", 7, 8)]),
    ],
)
def test_invisible_characters_are_dropped(text: str, tokens: list) -> None:
    # a BOM, zero-width and control characters never become tokens nor edges of tokens;
    # offsets still index the original text
    got = [(t.text, t.start, t.end) for s in tokenize(text) for t in s]
    assert got == tokens
    assert_exact(text, tokenize(text))


@pytest.mark.parametrize("text", ["\ufeff", "\u200b\x00\x1b", " \ufeff \u200d "])
def test_only_invisible_characters_is_empty(text: str) -> None:
    assert tokenize(text) == [] and split_pretokenized(text) == []


def test_usrtokens_drop_invisible_characters() -> None:
    toks = split_pretokenized("\ufeffJohn \u200b a\x1bb runs\u200d .")
    assert [(t.text, t.start, t.end) for t in toks] == [
        ("John", 1, 5), ("ab", 8, 11), ("runs", 12, 16), (".", 18, 19)]


@given(st.text())
def test_visible_with_offsets(text: str) -> None:
    clean, where = visible_with_offsets(text)
    assert clean == visible(text) == "".join(c for c in text if not INVISIBLE.match(c))
    if where is None:
        assert clean == text
    else:
        assert [text[where(i)] for i in range(len(clean))] == list(clean)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("``hello'' he said", ["``", "hello", "''", "he", "said"]),
        ("``Hi,'' he said.", ["``", "Hi", ",", "''", "he", "said", "."]),
        ("John 's car", ["John", "'s", "car"]),
        ("JOHN 'S car", ["JOHN", "'S", "car"]),
        ("I 'm here, we 'll go, they 're ok, I 've got, he 'd go",
         ["I", "'m", "here", ",", "we", "'ll", "go", ",", "they", "'re", "ok", ",", "I",
          "'ve", "got", ",", "he", "'d", "go"]),
        ("'Tis the season", ["'T", "is", "the", "season"]),
        ("'Twas good, I said 'tis fine", ["'T", "was", "good", ",", "I", "said", "'t", "is",
                                          "fine"]),
        ("('Tis)", ["(", "'T", "is", ")"]),
        # not clitics: a quoted letter, a quoted word, a name
        ("He said 's' is", ["He", "said", "'", "s", "'", "is"]),
        ("rock 'n' roll", ["rock", "'", "n", "'", "roll"]),
        ("'Tisbury", ["'", "Tisbury"]),
    ],
)
def test_ptb_quotes_and_clitics(text: str, tokens: list[str]) -> None:
    # as NLTK's TreebankWordTokenizer (the PTB sed script) tokenises them
    assert [t.text for s in tokenize(text) for t in s] == tokens
    assert_exact(text, tokenize(text))


def test_control_chars_split_as_whitespace() -> None:
    # U+001C..U+001F are whitespace for str.isspace (not for syntok): they separate tokens
    assert [t.text for s in tokenize("a\x1cb") for t in s] == ["a", "b"]


@pytest.mark.parametrize(
    "text",
    [
        "Hello world, this is U.S. text. " * 10_000,  # 320 kB, many sentences
        "a" * 1_000_000,  # one 1 MB "word"
        "aB" * 100_000,  # camelCase re-joins must stay linear
        "!?" * 500_000,  # 1 MB of punctuation
    ],
    ids=["sentences", "one-word", "camel", "punct"],
)
def test_long_text(text: str) -> None:
    assert_exact(text, tokenize(text))


def test_split_pretokenized() -> None:
    line = "  The  U.S.\tsales rose\u00a05 % . "
    toks = split_pretokenized(line)
    assert [t.text for t in toks] == ["The", "U.S.", "sales", "rose\u00a05", "%", "."]
    assert all(line[t.start : t.end] == t.text for t in toks)
    assert toks[0] == Token("The", 2, 5)
    assert split_pretokenized("") == []
    assert split_pretokenized(" \t ") == []


_ALPHABET = st.sampled_from(
    list("aAzZ09 .!?,;:'\"-()[]$%/_*…“”‘’—@#\n\t\r\x00\x07\x1c\x85\u2028\u200b\u00a0😀漢éß")
    + ["n't", "U.S.", "Dr.", "cannot", "McD", "iPh", "\n\n", "...", "http://x.y/z?a=1"]
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.lists(_ALPHABET, max_size=60).map("".join)))
def test_tokenize_property(text: str) -> None:
    assert_exact(text, tokenize(text))


@given(st.text())
def test_split_pretokenized_property(line: str) -> None:
    toks = split_pretokenized(line)
    seps = set(USRTOKEN_SEPARATORS)
    words = "".join(c if c not in seps else " " for c in visible(line)).split(" ")
    assert [t.text for t in toks] == [w.strip() for w in words if w.strip()]
    assert all(t.text and not seps & set(t.text) for t in toks)
    assert all(visible(line[t.start : t.end]) == t.text for t in toks)
    if line.isascii() and not INVISIBLE.search(line):
        assert [t.text for t in toks] == line.split()
