"""Pairs of semantically related words from WordNet 3.0's data files (ICML 2008 sections 2
and 5: the "synonyms" auxiliary task).

WordNet comes from Debian's `wordnet-base` package (`apt-get install wordnet-base`, files in
/usr/share/wordnet); the `data.{noun,verb,adj,adv}` files are read directly.  A line is

    offset lex_filenum ss_type w_cnt word lex_id [word lex_id ...] p_cnt [ptr ...] | gloss

with w_cnt in hex and every pointer `symbol offset pos source/target`.  Two words are related
when they share a synset (synonyms) or when a pointer of a kept type (hypernym, instance
hypernym, holonyms) links their synsets.  Only single-word lemmas are kept, lower-cased, in
the tagger's normalisation (senna.text.normalize), since the tagger's dictionary has no
multi-word entries.  Tagging never reads WordNet.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from senna.text.normalize import normalize_word

DEFAULT_DIR = "/usr/share/wordnet"
POS_FILES = {"n": "data.noun", "v": "data.verb", "a": "data.adj", "s": "data.adj",
             "r": "data.adv"}
RELATIONS = {"@": "hypernym", "@i": "hypernym", "#m": "holonym", "#s": "holonym",
             "#p": "holonym"}
_MARKER = re.compile(r"\([a-z]+\)$")   # adjective position markers: "galore(ip)"


def _synsets(path: Path) -> Iterator[tuple[str, list[str], list[tuple[str, str]]]]:
    """(offset, words, [(pointer symbol, target key)]) per line of one data file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(" "):      # the licence header
                continue
            fields = line.split(" | ", 1)[0].split()
            n_words = int(fields[3], 16)
            words = [_MARKER.sub("", fields[4 + 2 * k]) for k in range(n_words)]
            at = 4 + 2 * n_words
            n_ptrs = int(fields[at])
            ptrs = [(fields[at + 1 + 4 * k], f"{fields[at + 3 + 4 * k]}{fields[at + 2 + 4 * k]}")
                    for k in range(n_ptrs)]
            yield f"{fields[2]}{fields[0]}", words, ptrs


def related_pairs(directory: str | os.PathLike = DEFAULT_DIR) -> list[tuple[str, str, str]]:
    """(word, related word, relation) for every related pair, both directions for synonyms;
    ValueError naming the install step when the files are missing."""
    root = Path(directory)
    files = sorted({POS_FILES[p] for p in POS_FILES})
    if not all((root / f).is_file() for f in files):
        raise ValueError(f"{root}: no WordNet data files ({', '.join(files)}); install them "
                         "with `apt-get install wordnet-base` or give their directory")
    synsets: dict[str, list[str]] = {}
    pointers: list[tuple[str, str, str]] = []
    for name in files:
        for key, words, ptrs in _synsets(root / name):
            key = key.replace("s", "a", 1) if key[0] == "s" else key
            synsets[key] = [normalize_word(w) for w in words if "_" not in w]
            pointers += [(key, target.replace("s", "a", 1) if target[0] == "s" else target,
                          RELATIONS[sym]) for sym, target in ptrs if sym in RELATIONS]
    pairs = {(a, b, "synonym") for words in synsets.values() for a in words for b in words
             if a != b}
    for src, dst, rel in pointers:
        pairs.update((a, b, rel) for a in synsets.get(src, ()) for b in synsets.get(dst, ())
                     if a != b)
    return sorted(pairs)
