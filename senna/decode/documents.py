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

from senna.tags import spans_to_tags, tags_to_spans

Votes = dict[tuple[str, ...], Counter]


def _count(votes: Votes, words: Sequence[str], tags: Sequence[str]) -> None:
    for label, start, end in tags_to_spans(tags):
        votes[tuple(words[start:end])][label] += 1
        if end - start > 1:   # a capitalised word of a longer name votes for its type too
            for w in words[start:end]:
                if w[:1].isupper():
                    votes[("", w)][label] += 1


def _relabel(votes: Votes, words: Sequence[str], tags: Sequence[str], scheme: str) -> list[str]:
    spans = []
    changed = False
    for label, start, end in tags_to_spans(tags):
        counts = Counter(votes[tuple(words[start:end])])
        if end - start == 1:
            counts.update(votes[("", words[start])])
        top, n = counts.most_common(1)[0]
        if top != label and n > counts[label]:
            label, changed = top, True
        spans.append((label, start, end))
    return spans_to_tags(spans, len(tags), scheme) if changed else list(tags)


def consistent_types(words: Sequence[Sequence[str]], tags: Sequence[Sequence[str]],
                     docs: Sequence[Hashable] | None = None, scheme: str = "iobes"
                     ) -> list[list[str]]:
    """Per sentence, `tags` (in `scheme`) with each span's type replaced by its document's
    majority for the same words.  `docs`: the document of each sentence (None: each sentence
    is a document of its own)."""
    if len(words) != len(tags) or (docs is not None and len(docs) != len(tags)):
        raise ValueError(f"expected as many tag columns and documents as sentences, got "
                         f"{len(words)} sentences, {len(tags)} tag columns"
                         + (f", {len(docs)} documents" if docs is not None else ""))
    keys = range(len(tags)) if docs is None else docs
    votes: dict[Hashable, Votes] = defaultdict(lambda: defaultdict(Counter))
    for key, w, t in zip(keys, words, tags, strict=True):
        _count(votes[key], w, t)
    return [_relabel(votes[key], w, t, scheme)
            for key, w, t in zip(keys, words, tags, strict=True)]
