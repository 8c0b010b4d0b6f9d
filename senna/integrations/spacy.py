"""spaCy pipeline component: `nlp.add_pipe("senna", config={"tasks": [...]})`.

Registered through the `spacy_factories` entry point (pyproject.toml), so spaCy finds it
without an import once `pip install '.[spacy]'` has run.  It tags spaCy's own tokens (no
second tokenisation) sentence by sentence, the sentences of one doc being one document
(NER gives a name one type within it, as for one text given to `senna.load()`); a doc
without sentence boundaries gets them from spaCy's rule-based `Sentencizer` first, and a
line break ends a sentence, as everywhere in senna.  What it sets:

- `token.tag_` (PTB tags) and `token.pos_` (Universal POS through `UPOS`), task `pos`;
- `doc.ents` with CoNLL-2003 labels (PER, LOC, ORG, MISC), task `ner`;
- `doc.spans["chunks"]` and `doc.spans["pt0"]` span groups, tasks `chunk` and `pt0`;
- `doc._.srl`: a list of `Frame`s (predicate `Token`, argument `Span`s), task `srl`;
- `doc._.trees`: the parser's trees (task psg), one bracket string per sentence the tagger
  saw, in order (words as the tagger saw them, under their POS tags);
- a task of your own (`senna train --task NAME ...`): its spans as `doc.spans[NAME]`, or,
  for labels without spans, each token's label as `token._.NAME`.

Frames are stored as plain lists in `doc._.srl_data` (so `Doc.to_bytes`, `DocBin` with
`store_user_data=True` and `nlp.pipe(n_process=...)`, which ships docs as bytes, keep them);
`doc._.srl` builds the `Span` objects from that on access.  Tokens that show nothing
(whitespace, or invisible characters alone such as a zero-width space) are not shown to the
tagger; they get spaCy's `_SP` / `SPACE`.  A token with whitespace inside (one that
`doc.retokenize()` merged, "New York") is shown as one word, its pieces joined by no-break
spaces: the tagger takes one token per word (`Tagger.__call__`).

`nlp.pipe(texts, n_process=N)` runs through spaCy's own worker processes, and gives the
annotations of `n_process=1`: forked (Linux), the workers share the loaded component;
spawned (macOS, Windows), the component is pickled as its settings (`__reduce__`) and each
worker loads its models again.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import compress

import numpy as np
from spacy.attrs import ORTH, POS, TAG
from spacy.language import Language
from spacy.parts_of_speech import IDS as POS_IDS
from spacy.pipeline import Sentencizer
from spacy.tokens import Doc, Span, SpanGroup, Token

from senna.api import fewer_collections, pretokenized_document
from senna.integrations import view
from senna.tasks import PRESETS as BUILT_IN
from senna.tasks import TASKS
from senna.text.invisible import visible

# PTB (EWT) tag -> Universal POS: the most frequent UPOS of each XPOS in UD English EWT
# (tests/test_spacy.py checks this against the treebank when the data is there), with
# VBZ -> VERB (EWT's majority AUX is "is", which `BE_FORMS` catches).
UPOS = {
    "$": "SYM", "''": "PUNCT", ",": "PUNCT", "-LRB-": "PUNCT", "-RRB-": "PUNCT",
    ".": "PUNCT", ":": "PUNCT", "ADD": "PROPN", "AFX": "ADJ", "CC": "CCONJ", "CD": "NUM",
    "DT": "DET", "EX": "PRON", "FW": "X", "GW": "X", "HYPH": "PUNCT", "IN": "ADP",
    "JJ": "ADJ", "JJR": "ADJ", "JJS": "ADJ", "LS": "NUM", "MD": "AUX", "NFP": "PUNCT",
    "NN": "NOUN", "NNP": "PROPN", "NNPS": "PROPN", "NNS": "NOUN", "PDT": "DET",
    "POS": "PART", "PRP": "PRON", "PRP$": "PRON", "RB": "ADV", "RBR": "ADV", "RBS": "ADV",
    "RP": "ADP", "SYM": "SYM", "TO": "PART", "UH": "INTJ", "VB": "VERB", "VBD": "VERB",
    "VBG": "VERB", "VBN": "VERB", "VBP": "VERB", "VBZ": "VERB", "WDT": "PRON", "WP": "PRON",
    "WP$": "PRON", "WRB": "ADV", "XX": "X", "``": "PUNCT",
}
# UD English tags every form of "be" AUX, copula or auxiliary.
BE_FORMS = frozenset({"be", "is", "are", "was", "were", "been", "being", "am", "'s", "'re",
                      "'m", "s", "re", "m", "isn", "aren", "wasn", "weren", "ai"})


def upos(tag: str, word: str) -> str:
    """Universal POS of a PTB-tagged word."""
    if tag.startswith("VB") and word.lower() in BE_FORMS:
        return "AUX"
    return UPOS.get(tag, "X")


@dataclass
class Frame:
    """One predicate and its arguments (the predicate's own `V` span left out)."""

    predicate: Token
    arguments: list[Span]

    def __repr__(self) -> str:
        args = ", ".join(f"{a.label_}: {a.text!r}" for a in self.arguments)
        return f"Frame({self.predicate.text!r}: {args})"


def _frames(doc: Doc) -> list[Frame]:
    return [Frame(doc[p], [Span(doc, s, e, label=label) for label, s, e in args])
            for p, args in (doc._.srl_data or [])]


if not Doc.has_extension("srl_data"):
    Doc.set_extension("srl_data", default=None)
if not Doc.has_extension("srl"):
    Doc.set_extension("srl", getter=_frames)
if not Doc.has_extension("trees"):
    Doc.set_extension("trees", default=None)


class SennaComponent:
    """Tags docs with a loaded `senna.Tagger`; see the module docstring for what it sets."""

    def __init__(self, nlp: Language, name: str, tasks: list[str] | None,
                 model_dir: str | None = None, batch_size: int = 512,
                 chunk_key: str = "chunks", pt0_key: str = "pt0",
                 models: dict[str, str] | None = None, lang: str | None = None,
                 threads: int | None = None):
        import senna

        self.name = name
        self.args = (tasks, model_dir, batch_size, chunk_key, pt0_key, models, lang, threads)
        self.tagger = senna.load(model_dir, tasks, models=models, lang=lang, threads=threads)
        self.tasks = set(self.tagger.tasks)
        self.batch_size = batch_size
        self.chunk_key, self.pt0_key = chunk_key, pt0_key
        self.sentencizer = Sentencizer()

    def __reduce__(self):
        """Pickled (spaCy's spawn-based multiprocessing) as its settings; models reload."""
        return _rebuild, (self.name, self.args)

    def __call__(self, doc: Doc) -> Doc:
        return next(self.pipe([doc]))

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128) -> Iterator[Doc]:
        """Tag `batch_size` docs per tagger call (spaCy passes nlp.pipe's batch size)."""
        batch: list[Doc] = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= batch_size:
                yield from self._tag(batch)
                batch = []
        if batch:
            yield from self._tag(batch)

    def _sentences(self, doc: Doc, texts: list[str]) -> None:
        """Sentence boundaries for a doc without them: the `Sentencizer`'s, and a line
        break ends a sentence, as senna reads raw text everywhere (`texts`: the tokens')."""
        if doc.has_annotation("SENT_START"):
            return
        self.sentencizer(doc)
        if "\n" not in doc.text:
            return
        for i, text in enumerate(texts[:-1]):
            if "\n" in text:   # the line break ends its sentence; the next starts one
                if i and doc[i].is_sent_start:
                    doc[i].is_sent_start = False
                doc[i + 1].is_sent_start = True

    def _tag(self, docs: list[Doc]) -> list[Doc]:
        """Every sentence of every doc in one tagger pass (the sentences of one doc being
        one document, as one text is to `senna.load()`), then annotations doc by doc
        (`_tag_now`), with few collector runs (`fewer_collections`: the spans and lists
        made would trigger hundreds)."""
        with fewer_collections():
            return self._tag_now(docs)

    def _tag_now(self, docs: list[Doc]) -> list[Doc]:
        """`_tag`; token texts come from the doc's arrays, not from a `Token` object each."""
        todo = []   # (doc number, doc, [doc token index of each tagged word]) per sentence
        words: dict[int, list[str]] = {}   # per doc: each token's text, what the tagger sees
        texts_of: dict[int, list[str]] = {}
        for k, doc in enumerate(docs):
            strings = doc.vocab.strings
            texts = texts_of[id(doc)] = list(map(strings.__getitem__,
                                                 doc.to_array(ORTH).tolist()))
            self._sentences(doc, texts)
            shown = words[id(doc)] = list(map(_TAGGER_WORDS.__getitem__, texts))
            for sent in doc.sents:
                index = list(compress(range(sent.start, sent.end), shown[sent.start : sent.end]))
                if index:
                    todo.append((k, doc, index))
        results: dict[int, list] = {id(doc): [] for doc in docs}
        for start in range(0, len(todo), self.batch_size):
            part = todo[start : start + self.batch_size]
            tagged = self.tagger.tag_documents(
                [pretokenized_document(list(map(words[id(doc)].__getitem__, index)))
                 for _, doc, index in part], groups=[k for k, _, _ in part])
            for (_, doc, index), tdoc in zip(part, tagged, strict=True):
                results[id(doc)].append((index, tdoc.sentences[0]))
        for doc in docs:
            self._annotate(doc, results[id(doc)], texts_of[id(doc)])
        return docs

    @staticmethod
    def _set_pos(doc: Doc, sents: list, texts: list[str]) -> None:
        """token.tag_ and token.pos_ of every token in one `Doc.from_array` (what setting
        them token by token stores); `_SP` / `SPACE` where the tagger was shown nothing."""
        if not len(doc):
            return
        strings = doc.vocab.strings
        tag_ids = [strings.add("_SP")] * len(doc)
        pos_ids = [POS_IDS["SPACE"]] * len(doc)
        ids: dict[str, int] = {}
        for index, sent in sents:
            for i, tag in zip(index, view.tags(sent, "pos") or [], strict=True):
                found = ids.get(tag)
                tag_ids[i] = ids.setdefault(tag, strings.add(tag)) if found is None else found
                pos_ids[i] = POS_IDS[upos(tag, texts[i])]
        doc.from_array([TAG, POS], np.array([tag_ids, pos_ids], dtype=np.uint64).T)

    def _annotate(self, doc: Doc, sents: list, texts: list[str]) -> None:
        ents, chunks, pt0, frames, trees = [], [], [], [], []
        own = {t: [] for t in self.tasks if t not in BUILT_IN}
        for index, sent in sents:
            def span(label: str, start: int, end: int, index=index) -> Span:
                return Span(doc, index[start], index[end - 1] + 1, label=label)

            if "ner" in self.tasks:
                ents += [span(*s) for s in view.spans(sent, "ner")]
            if "chunk" in self.tasks:
                chunks += [span(*s) for s in view.spans(sent, "chunk")]
            if "pt0" in self.tasks:
                pt0 += [span(*s) for s in view.spans(sent, "pt0")]
            trees.append(view.tree(sent))
            for task, found in own.items():
                if task in view.span_tasks():
                    found += [span(*s) for s in view.spans(sent, task)]
                else:
                    found += zip(index, view.tags(sent, task) or [], strict=True)
            for p, role_tags in view.frames(sent):
                args = [[label, index[s], index[e - 1] + 1]
                        for label, s, e in view.arguments(role_tags) if label != "V"]
                frames.append([index[p], args])
        if "pos" in self.tasks:
            self._set_pos(doc, sents, texts)
        if "ner" in self.tasks:
            doc.set_ents(ents, default="outside")   # replaces any earlier component's
        if "chunk" in self.tasks:
            doc.spans[self.chunk_key] = SpanGroup(doc, name=self.chunk_key, spans=chunks)
        if "pt0" in self.tasks:
            doc.spans[self.pt0_key] = SpanGroup(doc, name=self.pt0_key, spans=pt0)
        if "srl" in self.tasks:
            doc._.srl_data = frames
        if any(TASKS[t].tree for t in self.tasks):
            doc._.trees = trees
        for task, found in own.items():
            if task in view.span_tasks():
                doc.spans[task] = SpanGroup(doc, name=task, spans=found)
                continue
            if not Token.has_extension(task):
                Token.set_extension(task, default=None)
            for i, tag in found:
                doc[i]._.set(task, tag)


def tagger_word(text: str) -> str:
    """The word the tagger is shown for a spaCy token: its visible pieces joined by no-break
    spaces (a separator inside would make it two tokens); "" for a token that shows
    nothing."""
    return "\xa0".join(visible(text).split())


class _TaggerWords(dict):
    """token text -> `tagger_word`, computed once per distinct text so that a doc's words
    are one C-level map; emptied past LIMIT texts, so memory stays bounded."""

    LIMIT = 100_000

    def __missing__(self, text: str) -> str:
        if len(self) >= self.LIMIT:
            self.clear()
        word = self[text] = tagger_word(text)
        return word


_TAGGER_WORDS = _TaggerWords()


def _rebuild(name: str, args: tuple) -> SennaComponent:
    return SennaComponent(None, name, *args)   # type: ignore[arg-type]


@Language.factory(
    "senna",
    default_config={"tasks": None, "model_dir": None, "models": None, "lang": None,
                    "batch_size": 512, "chunk_key": "chunks", "pt0_key": "pt0",
                    "threads": None},
)
def make_senna(nlp: Language, name: str, tasks: list[str] | None, model_dir: str | None,
               models: dict[str, str] | None, lang: str | None, batch_size: int,
               chunk_key: str, pt0_key: str, threads: int | None) -> SennaComponent:
    """The `senna` factory (spaCy validates the config against these annotations).
    `tasks` None: senna.load's default (POS, CHUNK, NER, SRL, or the task of the model
    whose own folder `model_dir` is); `models`: task -> a model's own folder; `lang`: the
    shipped models of that language instead of `model_dir` (spaCy's tokenizer still
    splits the text); `threads`: BLAS threads while tagging (senna.load's)."""
    return SennaComponent(nlp, name, tasks, model_dir, batch_size, chunk_key, pt0_key,
                          models, lang, threads)
