"""Python API: `tagger = senna.load(); doc = tagger("Text.")` or `tagger.pipe(texts)`.

Raw text is split into sentences and PTB tokens whose character offsets index the input:
`doc.text[t.start:t.end] == t.text`, except that invisible characters (control characters,
zero-width characters, a byte-order mark: `senna.text.invisible`) are never part of a
token's text, so in general `t.text == visible(doc.text[t.start:t.end])` and a token never
starts or ends on one.  A list of strings is one pre-tokenised sentence, one token per item
(invisible characters removed from its text, and spaces from its edges), whose offsets index
the items joined by single spaces; an empty item, one with nothing visible, or one holding
whitespace between two tokens is refused with a ValueError naming it (`Tagger.__call__`).
POS tags come in the Penn Treebank's WSJ conventions unless `tagset="ewt"` (senna.tagset).
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from senna.document import Document, Sentence, Token
from senna.runtime.catalog import ModelInfo, model_info
from senna.runtime.folders import language_models
from senna.runtime.pipeline import Pipeline
from senna.runtime.processes import checked_processes, ordered_chain
from senna.runtime.threads import blas_threads, checked_threads
from senna.tagset import DEFAULT_TAGSET, apply_tagset, check_tagset
from senna.text.tokenize import (
    SpacedTokens,
    plain_split,
    pretokenized_tokens,
    split_pretokenized,
    tokenize,
)

Text = str | Sequence[str]
PIPE_BATCH = 512   # sentences per pipeline call in `Tagger.pipe`
# Allocations between collections of the youngest generation while a batch is tagged.  A
# batch makes hundreds of thousands of containers (tokens, tag lists) that live until it is
# returned; at Python's default (700) the collector runs hundreds of times per batch and
# rescans them, and every survivor of the loaded models and the caller's data, each time.
GC_THRESHOLD = 50_000


@contextmanager
def fewer_collections(threshold: int = GC_THRESHOLD) -> Iterator[None]:
    """The collector's first threshold at least `threshold` inside the block, as it was
    after it (a collector turned off, threshold 0, is left so); cycles are still found."""
    old = gc.get_threshold()
    raise_it = 0 < old[0] < threshold
    if raise_it:
        gc.set_threshold(threshold, *old[1:])
    try:
        yield
    finally:
        if raise_it:
            gc.set_threshold(*old)


def raw_document(text: str, language: str = "en") -> Document:
    """Untagged document: sentences and tokens of raw text, offsets into `text`."""
    return Document(text, [Sentence.from_tokens(sent, text) for sent in tokenize(text, language)])


def _usrtokens(line: str) -> tuple[list[str], Sequence[Token]]:
    """`split_pretokenized` as (words, document tokens).  On text without invisible
    characters and without spaces that do not separate tokens (`plain_split`: any ASCII
    text without control characters) the separators are exactly what `str.split()` splits
    at, so that faster path finds the same tokens and offsets; words separated by single
    spaces (the usual -usrtokens line) get tokens made only when read (`SpacedTokens`)."""
    if not plain_split(line):
        toks = split_pretokenized(line)
        return [t.text for t in toks], toks
    words = line.split()
    if " ".join(words) == line:
        return words, SpacedTokens(words)
    out, pos, find = [], 0, line.find
    for word in words:
        pos = find(word, pos)
        end = pos + len(word)
        out.append(Token(word, pos, end))
        pos = end
    return words, out


def pretokenized_document(tokens: Text) -> Document:
    """Untagged one-sentence document.  A string is split at whitespace (SENNA's
    -usrtokens, offsets into it); a list holds one token per item, checked and trimmed as
    `pretokenized_tokens` says (ValueError naming a bad item), with offsets into the items
    joined by spaces."""
    if isinstance(tokens, str):
        words, toks = _usrtokens(tokens)
        return Document(tokens, [Sentence(words, tokens=toks, source=tokens)] if toks else [])
    items = list(tokens)
    text = " ".join(items)
    words, toks = _usrtokens(text)   # the usual list: its line splits back into its items
    if words != items:               # else check and trim item by item
        toks = pretokenized_tokens(items)
        words = [t.text for t in toks]
    return Document(text, [Sentence(words, tokens=toks, source=text)] if toks else [])


ACCEPTED = "a str (raw text) or a list of str (the words of one pre-tokenised sentence)"


def checked_text(text: object) -> str | list[str]:
    """`text` as raw text or a list of words; TypeError naming what is accepted for
    anything else (bytes, numbers, words that are not strings)."""
    if isinstance(text, str):
        return text
    if isinstance(text, bytes | bytearray):
        raise TypeError(f"expected {ACCEPTED}, got {type(text).__name__}: decode it first, "
                        "e.g. text.decode('utf-8')")
    if not isinstance(text, Iterable) or isinstance(text, Mapping):
        raise TypeError(f"expected {ACCEPTED}, got {type(text).__name__}")
    words = list(text)
    for i, word in enumerate(words):
        if not isinstance(word, str):
            raise TypeError(f"expected {ACCEPTED}: word {i + 1} is {type(word).__name__} "
                            f"{word!r}")
    return words


class Tagger:
    """A loaded pipeline with text in, `Document`s out; POS tags in `tagset` ("wsj" or
    "ewt"), mapped after the cascade, whose models read the EWT tags they were trained on."""

    def __init__(self, pipeline: Pipeline, tagset: str = DEFAULT_TAGSET,
                 threads: int | None = None):
        self.pipeline = pipeline
        self.tagset = check_tagset(tagset)
        self.threads = checked_threads(threads)   # BLAS threads while tagging
        self.load_args: dict | None = None   # senna.load's arguments, for worker processes

    @property
    def tasks(self) -> tuple[str, ...]:
        return self.pipeline.tasks

    def model_info(self) -> list[ModelInfo]:
        """Each loaded model's task, language, data, dev score and licence (`senna
        models`): which of them a product may use, and under which terms."""
        return [model_info(self.pipeline.folder(task), task) for task in self.pipeline.order]

    def document(self, text: Text) -> Document:
        """Untagged document: raw text tokenised, or a list of words as one sentence."""
        text = checked_text(text)
        if isinstance(text, str):
            return raw_document(text, self.pipeline.language)
        return pretokenized_document(text)

    def __call__(self, text: Text, predicates: Sequence[int] | None = None) -> Document:
        """Tag one text: raw text (a str), or a pre-tokenised sentence (a list of str).

        Pre-tokenised input gives one token per item, as the words of SENNA's -usrtokens
        line would: invisible characters (senna.text.invisible) are left out of a token, and
        spaces at its edge too (a no-break space may sit inside one).  An item that is
        empty, has no visible character, or holds a separator between two tokens (ASCII
        whitespace, a line break: "a b", "x\\ny") raises a ValueError naming the item, so the
        output keeps one token per item and `predicates` keep pointing at the right words.

        `predicates` (SRL predicate positions) needs pre-tokenised input, since positions
        index its words; by default the verb detector chooses them."""
        if predicates is not None and isinstance(text, str):
            raise ValueError("predicate positions need pre-tokenised input (a list of words)")
        doc = self.document(text)
        preds = [list(predicates)] if predicates is not None and doc.sentences else None
        return self.tag_documents([doc], preds)[0]

    def tag_documents(self, docs: Sequence[Document],
                      predicates: Sequence[Sequence[int]] | None = None,
                      groups: Sequence[int] | None = None) -> list[Document]:
        """Tag untagged documents in place, in one pipeline batch, and return them (their
        sentences' columns, predicates and roles are replaced: `Pipeline.fill`);
        `predicates` has one list per sentence of all documents together (None: chosen by
        the verb detector or from POS).  Each document's names get one type each (NER:
        `senna.decode.documents`); `groups`, one number per document, makes documents of
        one number one document for that (the lines of one `-DOCSTART-` block)."""
        if groups is not None and len(groups) != len(docs):
            raise ValueError(f"groups: {len(groups)} numbers for {len(docs)} documents")
        ids = range(len(docs)) if groups is None else groups
        sents = [s for d in docs for s in d.sentences]
        with fewer_collections():
            with blas_threads(self.threads):
                self.pipeline.fill(sents, predicates, [k for k, d in zip(ids, docs, strict=True)
                                                       for _ in d.sentences])
            apply_tagset(sents, self.tagset)
        return list(docs)

    def pipe(self, texts: Iterable[Text], batch_size: int = PIPE_BATCH,
             processes: int = 1) -> Iterator[Document]:
        """Tag many texts, `batch_size` sentences (across texts) per pipeline call; yields
        documents in input order as soon as their batch is done (PIPE_BATCH, the CLI's
        batch with SRL: a smaller batch costs time, 64 sentences 1.5 times).  A bare string
        is refused at once (iterating it would tag each character as a document).

        `processes`: worker processes tagging at once (0: one per core), each loading the
        models once from their folders (a tagger from `senna.load`) and tagging chunks of
        `batch_size` texts, at most two chunks per worker read ahead; 1 (default): this
        process alone.  The documents are the same either way."""
        if isinstance(texts, str | bytes | bytearray):
            raise TypeError(f"pipe() takes an iterable of texts, got a {type(texts).__name__}:"
                            " pass a list of texts, e.g. pipe([text]), or call tagger(text)")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a whole number, at least 1, got "
                             f"{batch_size!r}")
        processes = checked_processes(processes)
        if processes == 1:
            return self._pipe(texts, batch_size)
        if self.load_args is None:
            raise ValueError("pipe(processes=N) needs a tagger made by senna.load(), whose "
                             "workers load the same models")
        return ordered_chain(_tag_chunk, _chunks(texts, batch_size), processes, _worker,
                             (self.load_args, batch_size))

    def _pipe(self, texts: Iterable[Text], batch_size: int) -> Iterator[Document]:
        pending: list[Document] = []
        count = 0
        for text in texts:
            doc = self.document(text)
            pending.append(doc)
            count += len(doc.sentences)
            if count >= batch_size:
                yield from self.tag_documents(pending)
                pending, count = [], 0
        if pending:
            yield from self.tag_documents(pending)


def load(model_dir: str | Path | None = None, tasks: str | Sequence[str] | None = None,
         predicates: str = "auto", tagset: str = DEFAULT_TAGSET, documents: bool = True,
         models: Mapping[str, str | Path] | None = None, lang: str | None = None,
         beam: int | None = None, threads: int | None = None) -> Tagger:
    """Load the models for `tasks` and those they need.  `model_dir`: a folder of models,
    one per task (default: the shipped senna/models), or one model's own folder (its
    config.json names its task; the others then come from the shipped models).  `models`:
    task -> a model's own folder, used for that task instead (e.g. {"ner": "runs/esp"}).
    `tasks`: default those of POS, CHUNK, NER, SRL that the folder holds, or the task of
    the model whose own folder `model_dir` is.  `predicates`: SRL's predicates from the
    verb detector ("auto": when its model is there) or from the POS tags ("pos", SENNA's
    -posvbs).  `tagset`: POS tags
    in the WSJ conventions ("wsj", default) or as trained ("ewt").  `documents`: one type
    per name within each text (NER, `senna.decode.documents`); False: each span as Viterbi
    found it.  `lang`: instead of `model_dir`, the shipped models for raw text in that
    language ("en", the default; "es", "nl": their NER), whose tokenizer splits the text as
    the models' training data was split.  `beam`: the partial parses the parser keeps per
    sentence (default 1: greedy, level by level; 2 takes about 1.4 times the parse time
    and moved the shipped parser's bracket F1 by +0.15).  `threads`: BLAS threads while
    tagging (default 1, or as OMP_NUM_THREADS and the like say; 0: the library's own:
    senna.runtime.threads)."""
    check_tagset(tagset)   # before the models load
    threads = checked_threads(threads)
    if lang is not None:
        if model_dir is not None:
            raise ValueError("give model_dir or lang, not both")
        model_dir = language_models(lang)
    tagger = Tagger(Pipeline(model_dir, tasks, predicates=predicates, documents=documents,
                             task_dirs=models, beam=beam), tagset, threads)
    tagger.load_args = dict(model_dir=model_dir, tasks=tasks, predicates=predicates,
                            tagset=tagset, documents=documents,
                            models=dict(models) if models else None, beam=beam,
                            threads=threads)
    return tagger


def _chunks(texts: Iterable[Text], size: int) -> Iterator[list[str | list[str]]]:
    """Lists of `size` checked texts (a generator of words becomes a list: picklable)."""
    chunk: list[str | list[str]] = []
    for text in texts:
        chunk.append(checked_text(text))
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _worker(load_args: dict, batch_size: int) -> tuple[Tagger, int]:
    """A worker process's tagger, loaded once."""
    return load(**load_args), batch_size


def _tag_chunk(state: tuple[Tagger, int], texts: list[str | list[str]]) -> list[Document]:
    tagger, batch_size = state
    return list(tagger._pipe(texts, batch_size))
