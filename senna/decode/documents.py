"""One type per name within a document: named entities relabelled by a document-wide vote.

Why: a window network sees five words, so the same name can come out PER in one sentence and
ORG in the next ("Clinton said" against "Clinton 's office"), while a news story almost never
uses one name for two kinds of entity.  Krishnan & Manning (2006) feed document-wide label
majorities back into a second tagger; this is the decoding-time half of that idea, without a
second network: after Viterbi, every predicted span votes for its type under its exact
words, and each capitalised word inside a longer span votes too, so "Clinton" alone takes
the type of "Bill Clinton" elsewhere in the story.  A span whose words got more votes for
another type than for its own takes that type; its boundaries never change.

On the NER dev set (`eng.testa`, documents from its `-DOCSTART-` lines) this moves the
shipped model from 92.87 to 93.12 F1 (`python bench/documents.py --data ../shared/data`,
which also measures other NER models).  What a document is comes from the caller: a
`-DOCSTART-` block of a CoNLL-2003 file, one text given to `senna.load()(text)`, one input
line of the `senna` command; sentences tagged without one are documents of their own.

`document_votes` gives the other half: per word, the types the *other* sentences of its
document give the same words, which a tagger trained with the `+document` feature reads in a
second pass (`senna.features.DocumentFeature`, `senna.runtime.predict.in_documents`).  On
the NER dev set that network ends level with the vote alone at half the speed, so the
shipped NER does not read them (measured in docs/lab/levers.md).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence

from senna.tags import Span, spans_to_tags, tags_to_spans

Key = tuple[str, ...]   # a span's words; ("", word) for a capitalised word of a longer span
NONE = "O"              # document_votes: no other sentence names this word


def _votes(words: Sequence[str], spans: Sequence[Span]) -> Counter:
    """(key, type) -> votes of one sentence's spans."""
    out: Counter = Counter()
    for label, start, end in spans:
        out[tuple(words[start:end]), label] += 1
        if end - start > 1:   # a capitalised word of a longer name votes for its type too
            out.update((("", w), label) for w in words[start:end] if w[:1].isupper())
    return out


def _iobes_spans(tags: Sequence[str]) -> list[Span]:
    """Spans of a valid IOBES sequence (what the decoders give), as `tags_to_spans` reads
    them, at a fraction of its cost."""
    out = []
    start = 0
    for i, tag in enumerate(tags):
        first = tag[0]
        if first == "S":
            out.append((tag[2:], i, i + 1))
        elif first == "B":
            start = i
        elif first == "E":
            out.append((tag[2:], start, i + 1))
    return out


def _two_types(votes: Counter) -> bool:
    """Does some name get votes for two types (a one-word name counting the votes of its
    word in longer names, as `_relabel` does)?  If not, the vote changes nothing."""
    seen: dict[Key, str] = {}
    return any(seen.setdefault(key[1:] if not key[0] else key, label) != label
               for key, label in votes)


def _by_key(votes: Counter) -> dict[Key, Counter]:
    out: dict[Key, Counter] = defaultdict(Counter)
    for (key, label), n in votes.items():
        if n > 0:
            out[key][label] += n
    return out


def _relabel(votes: dict[Key, Counter], words: Sequence[str], tags: Sequence[str],
             spans: Sequence[Span], scheme: str) -> list[str]:
    out = []
    changed = False
    for label, start, end in spans:
        counts = Counter(votes.get(tuple(words[start:end]), ()))
        if end - start == 1:
            counts.update(votes.get(("", words[start]), Counter()))
        top, n = counts.most_common(1)[0]
        if top != label and n > counts[label]:
            label, changed = top, True
        out.append((label, start, end))
    return spans_to_tags(out, len(tags), scheme) if changed else list(tags)


def _check(words: Sequence, tags: Sequence, docs: Sequence | None) -> Sequence:
    if len(words) != len(tags) or (docs is not None and len(docs) != len(tags)):
        raise ValueError(f"expected as many tag columns and documents as sentences, got "
                         f"{len(words)} sentences, {len(tags)} tag columns"
                         + (f", {len(docs)} documents" if docs is not None else ""))
    return range(len(tags)) if docs is None else docs


def consistent_types(words: Sequence[Sequence[str]], tags: Sequence[Sequence[str]],
                     docs: Sequence[Hashable] | None = None, scheme: str = "iobes"
                     ) -> list[list[str]]:
    """Per sentence, `tags` (in `scheme`) with each span's type replaced by its document's
    majority for the same words.  `docs`: the document of each sentence (None: each sentence
    is a document of its own)."""
    keys = _check(words, tags, docs)
    # (fast paths, since this runs on every batch NER tags: a sentence that names nothing
    # is skipped, and so is a document of fewer than two names or none named twice)
    read = _iobes_spans if scheme == "iobes" else tags_to_spans
    spans = [read(t) if t.count(NONE) < len(t) else [] for t in tags]
    count: Counter = Counter()
    for key, sp in zip(keys, spans, strict=True):
        count[key] += len(sp)
    totals: dict[Hashable, Counter] = defaultdict(Counter)
    for key, w, sp in zip(keys, words, spans, strict=True):
        if count[key] > 1:
            totals[key].update(_votes(w, sp))
    votes = {key: _by_key(c) for key, c in totals.items() if _two_types(c)}
    return [_relabel(votes[key], w, t, sp, scheme) if key in votes else list(t)
            for key, w, t, sp in zip(keys, words, tags, spans, strict=True)]


def document_votes(words: Sequence[Sequence[str]], tags: Sequence[Sequence[str]],
                   docs: Sequence[Hashable] | None = None) -> list[list[str]]:
    """Per sentence and word, the types that the *other* sentences of its document give
    these words ("LOC", "ORG+PER", NONE): every word of an occurrence of a name tagged
    elsewhere gets that name's types, and a capitalised word those of the longer names it is
    part of elsewhere.  What a second pass of a tagger reads as a feature
    (`senna.features.DocumentFeature`): from gold tags in training, from the first pass's
    tags at run time; a sentence's own tags never count, so gold ones do not leak."""
    keys = _check(words, tags, docs)
    own = [_votes(w, tags_to_spans(t)) for w, t in zip(words, tags, strict=True)]
    totals: dict[Hashable, Counter] = defaultdict(Counter)
    for key, c in zip(keys, own, strict=True):
        totals[key].update(c)
    indexes: dict[Hashable, tuple[dict[Key, Counter], dict[str, set[int]]]] = {}
    out = []
    for key, w, c in zip(keys, words, own, strict=True):
        if totals[key] == c:   # no other sentence of the document names anything
            out.append([NONE] * len(w))
            continue
        if key not in indexes:
            by_key = _by_key(totals[key])
            lengths: dict[str, set[int]] = defaultdict(set)
            for k in by_key:
                if k[0]:
                    lengths[k[0]].add(len(k))
            indexes[key] = by_key, lengths
        by_key, lengths = indexes[key]

        def others(k: Key, by_key=by_key, c=c) -> list[str]:
            """Types the other sentences give key k (this sentence's own votes taken off)."""
            return [t for t, n in by_key.get(k, {}).items() if n > c[k, t]]

        flags: list[set[str]] = [set() for _ in w]
        for i, word in enumerate(w):
            for n in lengths.get(word, ()):
                found = others(tuple(w[i : i + n])) if i + n <= len(w) else ()
                for j in range(i, i + n) if found else ():
                    flags[j].update(found)
            if word[:1].isupper():
                flags[i].update(others(("", word)))
        out.append(["+".join(sorted(f)) or NONE for f in flags])
    return out
