"""Silver training data: unlabeled text tagged by a vote of trained models, appended to the
gold training file or written alone for `--extra-train` (self-training with an ensemble as
the teacher).

Why: an ensemble of three NER taggers scores about 0.2-0.4 F1 above its members (Table 10)
but runs at a third of the speed.  Training one tagger on the gold sentences plus text the
ensemble tagged passes part of that gain to a model of the usual size, and shows it more
words in context (Reuters-21578 newswire for CoNLL-2003's Reuters news).  A step of
`make ner` (and of `make pos-silver`, `make chunk-silver`):

    python -m senna.train.silver --teachers A,B,C \
        --text ../shared/data/lm/reuters21578_news.txt.xz \
        --gold ../shared/data/conll2003/eng.train --sentences 8000 \
        --out runs/ner-silver/train.conll

Each task is written in the format of its gold file: NER as CoNLL-2003 (`WORD -X- -X- TAG`,
IOB1, as eng.train), POS as EWT's `.pos` (`WORD<TAB>TAG`, the model's own EWT tags), CHUNK
as CoNLL-2000 (`WORD POS TAG`, IOB2, the POS column from `--pos` in WSJ conventions).
"""

from __future__ import annotations

import argparse
import json
import lzma
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from senna.document import Sentence
from senna.io.conll_write import write_columns
from senna.runtime.ensemble import EnsembleModel
from senna.runtime.folders import default_model_dir
from senna.runtime.model import TaskModel
from senna.tags import convert
from senna.tagset import to_wsj
from senna.tasks import TaskSpec, get_task
from senna.text.tokenize import tokenize

SHIPPED_POS = default_model_dir() / "pos"
SOURCE_SUFFIX = ".source.json"   # beside the written file: what it was made of (model cards)
MIN_WORDS, MAX_WORDS = 5, 50   # shorter: headings and fragments; longer: run-on lists


def text_lines(path: str | Path) -> Iterator[str]:
    """Lines of a text file, `.xz`-compressed or plain (invalid UTF-8 replaced)."""
    opener = lzma.open if str(path).endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        yield from (line.strip() for line in f)


def sentences(lines: Iterator[str], limit: int, skip: int = 0,
              docs: list[int] | None = None) -> list[list[str]]:
    """`limit` sentences of MIN_WORDS..MAX_WORDS tokens after the first `skip` of them,
    skipping lines mostly in capitals (newswire headlines, whose casing the taggers' caps
    feature misreads).  `skip`: text a student has not been trained on (a second round of
    teachers reproduces the first round's tags on the sentences they learned).  `docs`, when
    given, receives each sentence's article (the text's blank lines separate articles)."""
    out: list[list[str]] = []
    where: list[int] = []
    article = 0
    for line in lines:
        if not line:
            article += 1
            continue
        letters = [c for c in line if c.isalpha()]
        if not letters or sum(c.isupper() for c in letters) > len(letters) / 2:
            continue
        found = [[t.text for t in s] for s in tokenize(line) if MIN_WORDS <= len(s) <= MAX_WORDS]
        out += found
        where += [article] * len(found)
        if len(out) >= skip + limit:
            break
    if docs is not None:
        docs[:] = where[skip : skip + limit]
    return out[skip : skip + limit]


# Each task's gold-file layout (senna.io.conll's readers): the columns after the word and
# their separator.  Columns silver data has no value for are "-X-", as in CoNLL-2003.
LAYOUTS: dict[str, tuple[tuple[str, ...], str]] = {
    "ner": (("pos", "chunk", "ner"), " "), "pos": (("pos",), "\t"),
    "chunk": (("pos", "chunk"), " ")}
NEEDS_POS = {"chunk"}   # CoNLL-2000's POS column (WSJ tags) is read as a feature by its tasks
DOCUMENTS = {"ner"}     # gold files in documents (-DOCSTART-): silver ones keep articles too


def silver_sentence(task: TaskSpec, words: list[str], tags: list[str],
                    pos: list[str] | None = None) -> Sentence:
    """A tagged sentence with the columns of the task's gold file, its tags in the file's
    scheme (IOB1 for CoNLL-2003, IOB2 for CoNLL-2000)."""
    columns = dict.fromkeys(LAYOUTS[task.name][0], ["-X-"] * len(words))
    if pos is not None:
        columns["pos"] = pos
    columns[task.target] = convert(tags, task.source_scheme) if task.scheme == "iobes" else tags
    return Sentence(words, columns)


def teacher(dirs: Sequence[str]) -> TaskModel | EnsembleModel:
    """One model, or several of one task and dictionary combined by vote."""
    models = [TaskModel.load(d) for d in dirs]
    if len({m.task for m in models}) > 1 or models[0].task not in LAYOUTS:
        raise ValueError(f"the teachers must be of one task of {sorted(LAYOUTS)}, "
                         f"got {sorted({m.task for m in models})}")
    return models[0] if len(models) == 1 else EnsembleModel(models, "vote")


def wsj_pos(model_dir: str | Path, sents: list[list[str]]) -> list[list[str]]:
    """A POS model's tags in WSJ conventions (as CoNLL-2000's POS column)."""
    return [to_wsj(w, t) for w, t in zip(sents, TaskModel.load(model_dir).predict(sents),
                                         strict=True)]


def write(out: Path, gold: Path | None, sents: list[list[str]], tags: list[list[str]],
          task: str = "ner", pos: list[list[str]] | None = None,
          docs: Sequence[int] | None = None) -> None:
    """The gold file's sentences (when given), then the silver ones, in the task's format;
    NER's with a `-DOCSTART-` line opening each article of `docs` (CoNLL-2003's documents,
    which NER's document votes read)."""
    spec = get_task(task)
    names, sep = LAYOUTS[task]
    out.parent.mkdir(parents=True, exist_ok=True)
    silver = [silver_sentence(spec, w, t, pos[k] if pos else None)
              for k, (w, t) in enumerate(zip(sents, tags, strict=True))]
    for s, d in zip(silver, docs if docs is not None and task in DOCUMENTS else (), strict=False):
        s.doc = d
    with open(out, "w", encoding="utf-8") as f:
        if gold:
            f.write(gold.read_text(encoding="utf-8").rstrip("\n") + "\n\n")
        write_columns(silver, f, names, sep, docstart=task in DOCUMENTS)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m senna.train.silver", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--teachers", required=True,
                   help="comma-separated model directories of one task (NER, POS or CHUNK)")
    p.add_argument("--text", required=True, help="unlabeled text, one paragraph a line (.xz ok)")
    p.add_argument("--sentences", type=int, default=8000, help="silver sentences to write")
    p.add_argument("--skip", type=int, default=0, help="sentences of the text to pass over")
    p.add_argument("--gold", help="gold training file to put first, in the same format")
    p.add_argument("--pos", default=str(SHIPPED_POS),
                   help="CHUNK: the POS model that fills CoNLL-2000's POS column (WSJ tags)")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    try:
        model = teacher(a.teachers.split(","))
        docs: list[int] = []
        sents = sentences(text_lines(a.text), a.sentences, a.skip, docs)
        pos = wsj_pos(a.pos, sents) if model.task in NEEDS_POS else None
        write(Path(a.out), Path(a.gold) if a.gold else None, sents, model.predict(sents),
              model.task, pos, docs)
        source = {"gold": a.gold, "silver_sentences": len(sents), "text": a.text,
                  **({"skipped_sentences": a.skip} if a.skip else {}),
                  "teachers": a.teachers.split(",")} | ({"pos": a.pos} if pos else {})
        Path(a.out + SOURCE_SUFFIX).write_text(json.dumps(source, indent=1) + "\n",
                                               encoding="utf-8")
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{a.out}: {len(sents):,} silver sentences, {sum(map(len, sents)):,} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
