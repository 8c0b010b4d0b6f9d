"""SRL output in the JSON schema of AllenNLP's SRL predictor, one object per sentence:
`{"words": [...], "verbs": [{"verb": ..., "description": "[ARG0: ...] [V: ...] ...",
"tags": ["B-ARG0", ...]}]}`, so code written against that (archived) predictor reads ours.

Tags are BIO (IOB2), as AllenNLP writes them; `description` is built as AllenNLP's
`make_srl_string` builds it.  A sentence without predicates has `"verbs": []`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from senna.document import Document, Sentence
from senna.tags import convert


def description(words: Sequence[str], tags: Sequence[str]) -> str:
    """`[ARG0: The cat] [V: sat] on the mat`: AllenNLP's bracketed rendering of BIO tags."""
    frame: list[str] = []
    chunk: list[str] = []
    for word, tag in zip(words, tags, strict=True):
        if tag.startswith("I-") and chunk:
            chunk.append(word)
            continue
        if chunk:
            frame.append("[" + " ".join(chunk) + "]")
            chunk = []
        if tag.startswith(("B-", "I-")):
            chunk.append(f"{tag[2:]}: {word}")
        else:
            frame.append(word)
    if chunk:
        frame.append("[" + " ".join(chunk) + "]")
    return " ".join(frame)


def _verbs(sent: Sentence, words: list[str]) -> Iterator[dict]:
    """The sentence's predicates in the predictor's schema, made one at a time."""
    for index, role_tags in zip(sent.predicates, sent.roles, strict=True):
        bio = convert(role_tags, "iob2")
        yield {"verb": words[index], "description": description(words, bio), "tags": bio}


def sentence_json(sent: Sentence) -> dict:
    """One sentence in AllenNLP's predictor schema."""
    words = [t.text for t in sent.tokens]
    return {"words": words, "verbs": list(_verbs(sent, words))}


def document_json(doc: Document) -> list[dict]:
    """One object per (non-empty) sentence of the document."""
    return [sentence_json(s) for s in doc.sentences if s.tokens]


def allennlp_chunks(doc: Document, opts: object = None) -> Iterator[str]:
    """JSON lines, one sentence per line, each predicate's object made and written on its
    own (a long sentence never holds words x predicates tags at once); the text is what
    one `json.dumps` of `sentence_json` gives."""
    for sent in doc.sentences:
        if not sent.tokens:
            continue
        words = [t.text for t in sent.tokens]
        yield '{"words": ' + json.dumps(words, ensure_ascii=False) + ', "verbs": ['
        for k, verb in enumerate(_verbs(sent, words)):
            yield (", " if k else "") + json.dumps(verb, ensure_ascii=False)
        yield "]}\n"


def write_allennlp(doc: Document, opts: object = None) -> str:
    """JSON lines, one sentence per line (the `--format allennlp` writer; `opts` unused:
    the schema fixes tags and scheme)."""
    return "".join(allennlp_chunks(doc, opts))
