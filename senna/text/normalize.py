"""Word features of Collobert et al. (2011), sections 3.1 and 3.5.

Why: the lookup table is indexed by a *normalised* word (lower-cased, digits
collapsed) so that capitalisation and numbers do not blow up the vocabulary; the
information they carry is given back to the network as small discrete features
(a capitalisation class and, optionally, a suffix).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "PADDING",
    "RARE",
    "NUMBER",
    "CAPS_TAGS",
    "CAPS_PADDING",
    "CAPS_LOWER",
    "CAPS_ALLCAPS",
    "CAPS_INITCAP",
    "CAPS_HASCAP",
    "CAPS_OTHER",
    "normalize_word",
    "normalize_words",
    "caps_feature",
    "caps_features",
    "suffix",
    "suffixes",
]

PADDING = "PADDING"  # window positions beyond the sentence edges
RARE = "RARE"  # words outside the vocabulary
NUMBER = "NUMBER"  # replaces every run of digits

# Capitalisation classes; the index is the feature id. Fixed order: saved models depend on it.
CAPS_TAGS = ("PADDING", "lower", "allcaps", "initcap", "hascap", "nocaps-other")
CAPS_PADDING, CAPS_LOWER, CAPS_ALLCAPS, CAPS_INITCAP, CAPS_HASCAP, CAPS_OTHER = range(6)

_DIGITS = re.compile(r"\d+")  # Unicode decimal digits (category Nd), not only 0-9


def normalize_word(word: str) -> str:
    """Lower-case and replace each digit run by NUMBER ("12,000" -> "NUMBER,NUMBER")."""
    return _DIGITS.sub(NUMBER, word.lower())


def normalize_words(words: Iterable[str]) -> list[str]:
    """`normalize_word` over a sequence, for whole sentences.  Words without line breaks
    are normalised joined by "\n", with one `lower` and one `sub` for all of them: neither
    acts across a line break (digit runs stop there, and a final sigma still ends its
    word), so the result is the same."""
    words = list(words)
    text = "\n".join(words)
    if text.count("\n") == len(words) - 1 and words:
        return _DIGITS.sub(NUMBER, text.lower()).split("\n")
    sub = _DIGITS.sub
    return [sub(NUMBER, w.lower()) for w in words]


def caps_feature(word: str) -> int:
    """Capitalisation class id of `word` (index into CAPS_TAGS).

    lower: every cased letter is lower-case; allcaps: every cased letter is upper-case;
    initcap: first character upper-case; hascap: an upper-case letter elsewhere;
    nocaps-other: no cased letter at all (punctuation, numbers, CJK, "").
    Only C-level str methods, since it runs once per token.
    """
    if word.islower():
        return CAPS_LOWER
    if word.isupper():
        return CAPS_ALLCAPS
    if word[:1].isupper():
        return CAPS_INITCAP
    if word.lower() != word:  # not all-lower yet changed by lower(): has an upper/title char
        return CAPS_HASCAP
    return CAPS_OTHER


def caps_features(words: Iterable[str]) -> list[int]:
    """`caps_feature` over a sequence, for whole sentences."""
    return [caps_feature(w) for w in words]


def suffix(word: str, n: int = 2) -> str:
    """Last `n` characters of the normalised word (all of it when shorter)."""
    return suffixes([normalize_word(word)], n)[0]


def suffixes(norms: Iterable[str], n: int = 2) -> list[str]:
    """`suffix` of many words already normalised (`normalize_words`)."""
    if n < 1:
        raise ValueError(f"suffix length must be >= 1, got {n}")
    return [w[-n:] for w in norms]
