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
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence

from senna.tags import Span, spans_to_tags, tags_to_spans

Key = tuple[str, ...]   # a span's words; ("", word) for a capitalised word of a longer span
NONE = "O"              # outside any name


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

