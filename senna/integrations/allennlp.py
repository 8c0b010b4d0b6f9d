"""SRL output in the JSON schema of AllenNLP's SRL predictor, one object per sentence:
`{"words": [...], "verbs": [{"verb": ..., "description": "[ARG0: ...] [V: ...] ...",
"tags": ["B-ARG0", ...]}]}`, so code written against that (archived) predictor reads ours.

Tags are BIO (IOB2), as AllenNLP writes them; `description` is built as AllenNLP's
`make_srl_string` builds it.  A sentence without predicates has `"verbs": []`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from senna.document import Document, Sentence
from senna.integrations import view
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


def sentence_json(sent: Sentence) -> dict:
    """One sentence in AllenNLP's predictor schema."""
    words = view.words(sent)
    verbs = []
    for index, role_tags in view.frames(sent):
        bio = convert(role_tags, "iob2")
        verbs.append({"verb": words[index], "description": description(words, bio),
                      "tags": bio})
    return {"words": words, "verbs": verbs}


def document_json(doc: Document) -> list[dict]:
    """One object per (non-empty) sentence of the document."""
    return [sentence_json(s) for s in doc.sentences if s.tokens]


def write_allennlp(doc: Document, opts: object = None) -> str:
    """JSON lines, one sentence per line (the `--format allennlp` writer; `opts` unused:
    the schema fixes tags and scheme)."""
    return "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in document_json(doc))
