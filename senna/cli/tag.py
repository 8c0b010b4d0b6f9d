"""`senna [options] < input > output`: the tagger, with SENNA v3.0's options.

Input is read from stdin line by line and streamed: output for a batch of sentences is
written (in chunks, every write checked: `write_chunks`) and flushed as soon as
`--batch-size` sentences are pending, when the input pauses (no more bytes ready to read,
e.g. at an interactive prompt), or at EOF, so memory stays bounded for endless streams.
"""

from __future__ import annotations

import argparse
import gc
import io
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import BinaryIO

from senna import __version__
from senna.api import Tagger, load, pretokenized_document, raw_document
from senna.cli.args import (
    Parser,
    UsageError,
    add_model_options,
    chosen_model_dir,
    task_folders,
)
from senna.cli.reading import open_usrvbs, read_lines
from senna.document import Document
from senna.io.conll import DOCSTART
from senna.io.output import FORMATS, OutputOptions, iter_formatted, write_chunks
from senna.runtime.ensemble import model_folders_in
from senna.runtime.folders import model_folders
from senna.runtime.parser import BEAM
from senna.runtime.processes import checked_processes, ordered_map
from senna.tagset import DEFAULT_TAGSET, TAGSETS
from senna.tasks import DEFAULT_TASKS, TASKS, normalize_tasks
from senna.text.pieces import MAX_WORDS

DESCRIPTION = f"""\
Tag text read from stdin (UTF-8; invalid bytes are replaced by U+FFFD) with POS, chunks (CHK),
named entities (NER), PT0 (SENNA's shallow-parse feature) and semantic roles (SRL).
Raw-text mode (default): each input line is a paragraph, split into sentences and tokens;
empty lines produce no output (as in SENNA). With -usrtokens each line is one sentence of
space-separated tokens. SRL predicates come from the verb detector (VBS, as in SENNA) unless
-posvbs (words the POS tagger tagged VB*) or -usrvbs (given positions) says otherwise.
Control characters, zero-width characters and a byte-order mark are left out of tokens
(offsets still index the line), and with -usrtokens so are spaces at a token's edge (a
no-break space may sit inside one): a token made of them alone is dropped.
A sentence longer than {MAX_WORDS} tokens is tagged in pieces of at most {MAX_WORDS} (an SRL
predicate gets roles within its piece) and written whole, as one sentence, so memory stays
bounded whatever a line holds; output that cannot be written in full (a full disk) ends the
run with an error."""


GC_THRESHOLD = 50_000   # allocations between collections of the youngest generation
# Sentences per batch.  With SRL a batch holds every predicate's role scores, and half the
# batch lowers the peak memory of all four tasks on EWT dev and eng.testa from 152 to 146 MB
# (the target is 150) for about 10% more CPU time, which that run can spare; the window
# taggers alone keep the larger batch (POS tags at the edge of its speed target).
BATCH, SRL_BATCH = 1024, 512


def epilog() -> str:
    """The other commands, for `senna -h`."""
    from senna.cli.main import SUMMARIES

    width = max(map(len, SUMMARIES))
    lines = [f"  senna {name:<{width}}  {what}" for name, what in SUMMARIES.items()
             if name != "tag"]
    return ("other commands (senna COMMAND -h for their options):\n" + "\n".join(lines)
            + "\n\nAlso: python -m senna ...; the Python API: tagger = senna.load(); "
              "tagger('Text.')")


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna", usage="senna [COMMAND] [options] < input > output",
               description=DESCRIPTION, epilog=epilog(), add_help=False, allow_abbrev=False,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-h", "-help", "--help", action="help", help="show this help and exit")
    p.add_argument("--version", action="version", version=f"senna {__version__}",
                   help="print the version and exit")
    for t in TASKS.values():
        p.add_argument(f"-{t.column.lower()}", dest=t.name, action="store_true",
                       help=("output the parse tree, one bracket fragment per token"
                             if t.tree else f"output {t.column} tags")
                       + ("" if t.default else
                                                         " (not in the default output)")
                       + ("; task flags select: with any of them given, exactly those tasks "
                          "are output" if t is next(iter(TASKS.values())) else ""))
    p.add_argument("-usrtokens", action="store_true",
                   help="input lines are sentences of space-separated tokens")
    p.add_argument("-usrvbs", metavar="FILE",
                   help="SRL predicates: one line per token, '-' for non-predicates, a blank "
                        "line after each sentence; must match the input's sentences")
    p.add_argument("-posvbs", action="store_true",
                   help="SRL predicates from POS tags VB* instead of the verb detector")
    p.add_argument("-iobtags", action="store_true", help="IOB2 tags instead of IOBES")
    p.add_argument("-brackettags", action="store_true",
                   help="bracket tags, e.g. (NP* * *), instead of IOBES")
    p.add_argument("-notokentags", action="store_true", help="do not print the tokens")
    p.add_argument("-offsettags", action="store_true",
                   help="print (start end) character offsets of each token in its line")
    add_model_options(p, "a folder of models holding pos/ chunk/ ner/ pt0/ srl/ vbs/")
    p.add_argument("-verbose", "--verbose", action="store_true",
                   help="report models and speed on stderr")
    p.add_argument("--tasks", help=f"comma-separated tasks: {','.join(TASKS)} (added to "
                                   "those the task flags select; chk is chunk too; default: "
                                   f"{','.join(DEFAULT_TASKS)})")
    p.add_argument("--format", default="senna", choices=FORMATS, help="output format")
    p.add_argument("--tagset", default=DEFAULT_TAGSET, choices=TAGSETS,
                   help="POS tags: the Penn Treebank's 45 tags in WSJ conventions (wsj, as "
                        "SENNA; default) or the English Web Treebank tags the tagger predicts "
                        "(ewt: HYPH, NFP, ADD, ...; 'to' may be IN)")
    p.add_argument("--batch-size", type=int, default=None,
                   help="sentences per batch; output is flushed after each and whenever "
                        f"the input pauses (default {BATCH}; {SRL_BATCH} when SRL runs)")
    p.add_argument("--psg-beam", type=int, metavar="N",
                   help=f"partial parses -psg keeps per sentence (default {BEAM}: greedy, level by "
                        "level; 2 or more: a beam, 2 taking about 1.4 times the parse time)")
    p.add_argument("--preload", action="store_true",
                   help="build every model's indexes at start-up instead of when the input "
                        "first needs them (a steady first response; timing tagging alone)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="BLAS threads while tagging (default 1, or as OMP_NUM_THREADS / "
                        "OPENBLAS_NUM_THREADS / MKL_NUM_THREADS say; 0: the library's "
                        "default)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="worker processes tagging at once, each loading the models (default "
                        "1: this process; 0: one per core); the output is the same, in "
                        "input order")
    return p


def requested_tasks(a: argparse.Namespace,
                    default: Callable[[], Sequence[str]] = lambda: DEFAULT_TASKS
                    ) -> tuple[str, ...]:
    """The task flags (-pos, -chk, -ner, -pt0, -vbs, -srl) and --tasks select tasks, as
    SENNA's task flags do (with any given, exactly those are output); none: `default()`
    (called only then: the task of a model's own folder given as -path).  UsageError for
    an empty or unknown task name."""
    chosen = [t.name for t in TASKS.values() if getattr(a, t.name, False)]
    if a.tasks is not None:
        names = [n.strip() for n in a.tasks.split(",")]
        if not all(names):
            raise UsageError(f"--tasks: expected comma-separated task names "
                             f"({','.join(TASKS)}), got {a.tasks!r}", "senna")
        chosen += names
    if not chosen:
        return normalize_tasks(default())
    try:
        return normalize_tasks(chosen)
    except ValueError as e:
        raise UsageError(str(e), "senna") from None


# Flags that contradict each other: (flag, attribute) pairs, and formats that ignore a flag.
# JSON keeps IOBES tags, tokens and offsets whatever the flags say; AllenNLP's SRL schema
# fixes words and BIO tags (-iobtags agrees with it) and has no place for offsets.
CONFLICTS = ((("-iobtags", "iobtags"), ("-brackettags", "brackettags")),
             (("-usrvbs", "usrvbs"), ("-posvbs", "posvbs")))
COLUMN_ONLY = {"json": (("-iobtags", "iobtags"), ("-brackettags", "brackettags"),
                        ("-notokentags", "notokentags"), ("-offsettags", "offsettags")),
               "conllu": (("-notokentags", "notokentags"), ("-offsettags", "offsettags")),
               "allennlp": (("-brackettags", "brackettags"), ("-notokentags", "notokentags"),
                            ("-offsettags", "offsettags"))}


def check_options(a: argparse.Namespace, tasks: tuple[str, ...]) -> None:
    """UsageError for options that contradict each other or that the request ignores, so
    that nothing is resolved silently."""
    for (f1, a1), (f2, a2) in CONFLICTS:
        if getattr(a, a1) and getattr(a, a2):
            raise UsageError(f"{f1} and {f2} contradict each other: give one", "senna")
    for flag, attr in COLUMN_ONLY.get(a.format, ()):
        if getattr(a, attr):
            applies = [f for f in FORMATS if (flag, attr) not in COLUMN_ONLY.get(f, ())]
            raise UsageError(f"--format {a.format} does not apply {flag} (it applies to the "
                             f"formats {', '.join(applies[:-1])} and {applies[-1]})", "senna")
    if a.usrvbs and not any(TASKS[t].per_predicate for t in tasks):
        raise UsageError("-usrvbs needs SRL among the tasks (-srl)", "senna")
    if a.batch_size is not None and a.batch_size < 1:
        raise UsageError(f"--batch-size must be at least 1, got {a.batch_size}", "senna")
    if a.threads is not None and a.threads < 0:
        raise UsageError(f"--threads must be 0 or more, got {a.threads}", "senna")
    try:
        a.jobs = checked_processes(a.jobs, "--jobs")
    except ValueError as e:
        raise UsageError(str(e), "senna") from None
    if a.jobs > 1 and a.usrvbs:
        raise UsageError("--jobs does not apply with -usrvbs (its predicates are matched to "
                         "the sentences in order): give --jobs 1", "senna")
    if a.psg_beam is not None and a.psg_beam < 1:
        raise UsageError(f"--psg-beam must be at least 1, got {a.psg_beam}", "senna")
    if a.psg_beam is not None and "psg" not in tasks:
        raise UsageError("--psg-beam is for the parser: add -psg", "senna")


def check_language(a: argparse.Namespace, tasks: Sequence[str], models: dict) -> None:
    """UsageError for a task --lang's shipped models do not tag (Spanish and Dutch ship
    NER only), said as such rather than as a missing folder."""
    if a.lang in (None, "en"):
        return
    held = {p.name for p in model_folders_in(Path(a.model_dir))}
    missing = [t for t in tasks if t not in held and t not in models]
    if missing:
        raise UsageError(f"--lang {a.lang}: the shipped models tag {', '.join(sorted(held))} "
                         f"only, not {', '.join(missing)} (give a model of your own with "
                         f"--model TASK=DIR)", "senna")


def output_options(a: argparse.Namespace, tasks: tuple[str, ...]) -> OutputOptions:
    scheme = "brackets" if a.brackettags else "iob" if a.iobtags else "iobes"
    return OutputOptions(tasks, scheme, not a.notokentags, a.offsettags)


@dataclass
class Stream:
    """Input lines -> batches of documents -> formatted output, flushed per batch."""

    tagger: Tagger
    out: BinaryIO
    fmt: str = "senna"
    opts: OutputOptions = OutputOptions()
    usrtokens: bool = False
    usrvbs: Iterator[list[bool]] | None = None
    usrvbs_name: str = ""
    sentences: int = 0      # written so far
    tokens: int = 0
    vbs_read: int = 0       # -usrvbs sentences consumed

    def document(self, line: bytes | str) -> Document:
        """One input line (raw paragraph or -usrtokens sentence), untagged."""
        text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
        text = text.rstrip("\r\n")
        if self.usrtokens:
            return pretokenized_document(text)
        return raw_document(text, self.tagger.pipeline.language)

    def predicates(self, doc: Document) -> list[list[int]]:
        """This document's -usrvbs predicate positions; ValueError on any mismatch."""
        out = []
        for sent in doc.sentences:
            self.vbs_read += 1
            n = self.vbs_read
            flags = next(self.usrvbs, None) if self.usrvbs is not None else None
            if flags is None:
                raise ValueError(f"{self.usrvbs_name}: -usrvbs file ends before input "
                                 f"sentence {n}")
            if len(flags) != len(sent.tokens):
                raise ValueError(f"{self.usrvbs_name}: sentence {n} has {len(flags)} lines, "
                                 f"the input sentence has {len(sent.tokens)} tokens")
            out.append([i for i, f in enumerate(flags) if f])
        return out

    def flush(self, docs: list[Document], preds: list[list[int]] | None,
              groups: list[int]) -> None:
        if not docs:
            return
        tagged = self.tagger.tag_documents(docs, preds, groups)
        write_chunks(self.out, iter_formatted(tagged, self.fmt, self.opts))
        self.sentences += sum(len(d.sentences) for d in docs)
        self.tokens += sum(len(s.tokens) for d in docs for s in d.sentences)

    def run(self, lines: Iterable[bytes | str | None], batch_size: int) -> None:
        """Tag every line; None items (input paused) flush what is pending.  Each line is
        a document of its own, until a `-DOCSTART-` line: from then on the lines up to the
        next one are one document (NER gives a name one type within it, as `senna
        evaluate` does), tagged together; a document over DOCUMENT_SENTENCES sentences is
        tagged in parts of that many."""
        pending = Pending(self.usrvbs is not None)
        for line in lines:
            if line is not None and is_docstart(line):
                pending.start_document()
            elif line is not None:
                doc = self.document(line)
                if not doc.sentences:
                    continue
                preds = None
                if self.usrvbs is not None:
                    try:
                        preds = self.predicates(doc)
                    except ValueError:
                        self.flush(*pending.take(pending.closed))
                        raise
                pending.add(doc, preds)
            if pending.closed and (line is None or pending.size >= batch_size):
                self.flush(*pending.take(pending.closed))
            elif pending.open_sentences >= DOCUMENT_SENTENCES:
                self.flush(*pending.take(len(pending.docs)))
        self.flush(*pending.take(len(pending.docs)))
        if self.usrvbs is not None and next(self.usrvbs, None) is not None:
            raise ValueError(f"{self.usrvbs_name}: more sentences than the input's "
                             f"{self.sentences}")


# The most sentences tagged as one document (a -DOCSTART- block): beyond it, a block is
# tagged in parts of this many, so that memory stays bounded.  CoNLL's longest documents
# hold a few hundred sentences.
DOCUMENT_SENTENCES = 10_000


def is_docstart(line: bytes | str) -> bool:
    """A `-DOCSTART-` line (CoNLL's document mark), alone on its line."""
    return line.strip() == (DOCSTART.encode() if isinstance(line, bytes) else DOCSTART)


@dataclass
class Pending:
    """Documents read but not yet tagged, their predicates and document numbers; the
    first `closed` of them are complete (the block they belong to has ended)."""

    usrvbs: bool
    docs: list[Document] = field(default_factory=list)
    preds: list[list[int]] = field(default_factory=list)
    groups: list[int] = field(default_factory=list)
    closed: int = 0
    size: int = 0              # sentences pending
    open_sentences: int = 0    # of them, in the block still open
    blocks: bool = False       # a -DOCSTART- line was read: lines join into documents
    group: int = 0

    def add(self, doc: Document, preds: list[list[int]] | None) -> None:
        if not self.blocks:
            self.group += 1
        self.docs.append(doc)
        self.groups.append(self.group)
        self.preds += preds or []
        self.size += len(doc.sentences)
        if self.blocks:
            self.open_sentences += len(doc.sentences)
        else:
            self.closed = len(self.docs)

    def start_document(self) -> None:
        self.blocks, self.group = True, self.group + 1
        self.closed, self.open_sentences = len(self.docs), 0

    def take(self, n: int) -> tuple[list[Document], list[list[int]] | None, list[int]]:
        """The first n documents, their predicates and numbers, removed."""
        docs, groups = self.docs[:n], self.groups[:n]
        k = sum(len(d.sentences) for d in docs)
        preds = self.preds[:k] if self.usrvbs else None
        del self.docs[:n], self.groups[:n], self.preds[:k]
        self.closed, self.size = max(0, self.closed - n), self.size - k
        if not self.docs:
            self.open_sentences = 0
        return docs, preds, groups


def setup_tagger(load_args: dict, preload: bool) -> Tagger:
    """The loaded tagger, its models' indexes built now with `preload`, and the collector
    set for tagging."""
    tagger = load(**load_args)
    if preload:
        tagger.pipeline.preload()
    gc.freeze()   # the loaded models and modules: the collector need not scan them again
    # A batch allocates hundreds of thousands of containers (tokens, tag lists) that live
    # until it is written; at the default threshold (700 allocations) the collector runs
    # hundreds of times per batch and rescans them each time (15% of POS tagging time).
    # Cycles are still collected, every GC_THRESHOLD allocations.
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    return tagger


def models_report(tagger: Tagger) -> str:
    """-verbose's lines on the loaded models."""
    return "".join(f"senna: {task}: {tagger.pipeline.folder(task)} "
                   f"({tagger.pipeline.models[task].cfg.approach}, "
                   f"{len(tagger.pipeline.models[task].tags)} tags)\n"
                   for task in tagger.pipeline.order)


def main(argv: list[str], stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    a = parser().parse_args(argv)
    models = task_folders(a.models, "senna")
    a.model_dir = chosen_model_dir(a, "senna")
    folders = model_folders(a.model_dir, models)
    tasks = requested_tasks(a, folders.default_tasks)
    own = [t for t in (folders.single, *models) if t is not None and t not in tasks]
    if own:   # a model given by its own folder is always tagged with
        tasks = normalize_tasks((*tasks, *own))
    check_options(a, tasks)
    check_language(a, tasks, models)
    usrvbs = open_usrvbs(a.usrvbs) if a.usrvbs else None
    started = time.perf_counter()
    load_args = dict(model_dir=a.model_dir, tasks=tasks,
                     predicates="pos" if a.posvbs else "auto", tagset=a.tagset,
                     models=models, beam=a.psg_beam, threads=a.threads)
    batch = a.batch_size or (SRL_BATCH if any(TASKS[t].per_predicate for t in tasks)
                             else BATCH)
    out = stdout or getattr(sys.stdout, "buffer", sys.stdout)
    lines = read_lines(stdin or getattr(sys.stdin, "buffer", sys.stdin))
    if a.jobs > 1:
        done = tag_in_workers(a, (load_args, a.preload, a.format, output_options(a, tasks),
                                  a.usrtokens, batch), lines, out)
    else:
        tagger = setup_tagger(load_args, a.preload)
        if a.verbose:
            print(models_report(tagger), end="", file=sys.stderr)
        stream = Stream(tagger, out, a.format, output_options(a, tasks), a.usrtokens)
        if usrvbs is not None:
            stream.usrvbs, stream.usrvbs_name = usrvbs, a.usrvbs
        stream.run(lines, batch)
        done = stream.sentences, stream.tokens
    if a.verbose:
        secs = time.perf_counter() - started
        print(f"senna: {done[0]} sentences, {done[1]} tokens in {secs:.2f} s "
              f"({done[1] / max(secs, 1e-9):.0f} tokens/s)", file=sys.stderr)
    return 0


# --jobs N: the input cut into chunks of whole documents, each tagged by a worker process
# as `Stream.run` tags its input, the outputs written in input order.

def line_chunks(lines: Iterable[bytes | str | None], size: int
                ) -> Iterator[list[bytes | str] | None]:
    """Input lines in chunks that `Stream.run` tags as it would tag them in one stream:
    `size` lines with text, cut only between documents (before a `-DOCSTART-` line, once a
    block of them is read), a block of DOCUMENT_SENTENCES lines being cut there as
    `Stream.run` cuts it (a `-DOCSTART-` line starts the rest).  Blank lines, which give no
    output, are left out, and repeated `-DOCSTART-` lines kept once, so a chunk's memory is
    bounded.  At a pause (None) the complete documents read so far come out, then None."""
    chunk: list[bytes | str] = []
    count = in_block = start = 0   # text lines in chunk, in its open block; where it starts
    blocks = False
    for line in lines:
        if line is None:
            done, chunk = (chunk[:start], chunk[start:]) if blocks else (chunk, [])
            if count > (in_block if blocks else 0):
                yield done
            count, start = (in_block if blocks else 0), 0
            yield None
        elif is_docstart(line):
            if chunk and is_docstart(chunk[-1]):
                continue
            if count >= size:
                yield chunk
                chunk, count = [], 0
            chunk.append(line)
            blocks, start, in_block = True, len(chunk) - 1, 0
        elif line.strip():
            chunk.append(line)
            count += 1
            in_block += blocks
            if blocks and in_block >= DOCUMENT_SENTENCES:
                yield chunk
                mark = DOCSTART + "\n"
                chunk = [mark.encode() if isinstance(line, bytes) else mark]
                count = in_block = start = 0
            elif not blocks and count >= size:
                yield chunk
                chunk, count = [], 0
    if count:
        yield chunk


def tag_in_workers(a: argparse.Namespace, setup_args: tuple, lines: Iterable[bytes | None],
                   out: BinaryIO) -> tuple[int, int]:
    """Tag the input in `a.jobs` worker processes (`line_chunks`), writing each chunk's
    output in input order; (sentences, tokens) written.  An empty first chunk starts the
    workers whatever the input, so that a model that cannot load is reported even for an
    empty input."""
    sentences = tokens = 0
    chunks = chain([[]], line_chunks(lines, setup_args[-1]))
    with closing(ordered_map(tag_chunk, chunks, a.jobs, chunk_worker, setup_args)) as done:
        for text, n_sents, n_tokens, report in done:
            if report and a.verbose:
                print(report, end="", file=sys.stderr)
            if text:
                write_chunks(out, [text])
            sentences, tokens = sentences + n_sents, tokens + n_tokens
    return sentences, tokens


def chunk_worker(load_args: dict, preload: bool, fmt: str, opts: OutputOptions,
                 usrtokens: bool, batch: int) -> tuple[Tagger, str, OutputOptions, bool, int]:
    """A worker process's state: its tagger, loaded once, and how the output is written."""
    from senna.cli.main import keep_freed_memory

    keep_freed_memory()
    return setup_tagger(load_args, preload), fmt, opts, usrtokens, batch


def tag_chunk(state: tuple, lines: list[bytes | str]) -> tuple[str, int, int, str]:
    """One chunk tagged in a worker: (its output, sentences, tokens, the -verbose lines on
    the models for the empty first chunk)."""
    tagger, fmt, opts, usrtokens, batch = state
    out = io.StringIO()
    stream = Stream(tagger, out, fmt, opts, usrtokens)   # type: ignore[arg-type]
    stream.run(lines, batch)
    return out.getvalue(), stream.sentences, stream.tokens, "" if lines else \
        models_report(tagger)
