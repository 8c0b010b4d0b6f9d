"""Every core when asked: `Tagger.pipe(processes=N)`, `senna --jobs N` and spaCy's
`nlp.pipe(n_process=N)` give what one process gives, in input order; bad counts and dead
workers are one clear error.  Worker processes are spawned (about a second each), so the
tests are few and use two workers."""

from __future__ import annotations

import io
import multiprocessing
import os
import signal

import pytest

import senna
from senna.api import Tagger
from senna.cli import tag as cli
from senna.cli.main import main as senna_main
from senna.runtime.processes import IN_FLIGHT, WorkerError, ordered_map

TEXTS = ["The cat sat on the mat. John runs.", ["John", "is", "in", "New", "York", "."],
         "", "a dog runs in a new mat , and is .", "John sat.\nThe dog is new."]


def test_pipe_in_processes_is_pipe_in_one_in_order(models):
    tagger = senna.load(models)
    texts = TEXTS * 8
    one = [d.to_dict() for d in tagger.pipe(texts, batch_size=3)]
    read = []

    def endless():   # what pipe has read of it, when the first document comes
        for k in range(10**6):
            read.append(k)
            yield texts[k % len(texts)]

    docs = tagger.pipe(endless(), batch_size=3, processes=2)
    got = [next(docs).to_dict() for _ in texts]
    docs.close()
    assert got == one
    assert len(read) <= (IN_FLIGHT * 2 + 2) * 3 + len(texts)   # chunks in flight, no more


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True, 4 * (os.cpu_count() or 1) + 1])
def test_bad_process_counts_say_what_is_allowed(models, bad):
    tagger = senna.load(models, tasks="pos")
    with pytest.raises(ValueError, match=r"processes must be a whole number from 1 to \d+"):
        tagger.pipe(["A dog."], processes=bad)


def test_a_tagger_not_from_load_cannot_spread(models):
    tagger = Tagger(senna.load(models, tasks="pos").pipeline)   # no load arguments to pass
    with pytest.raises(ValueError, match=r"needs a tagger made by senna.load\(\)"):
        tagger.pipe(["A dog."], processes=2)


def test_a_dead_worker_is_an_error_not_a_hang():
    # the worker's state is its own pid (os.getpid); its work kills it (os.kill, SIGKILL)
    with pytest.raises(WorkerError, match="worker process stopped"):
        list(ordered_map(os.kill, [signal.SIGKILL], 1, os.getpid))


def test_a_worker_setup_error_is_raised_as_itself():
    with pytest.raises(ValueError, match="invalid literal"):
        list(ordered_map(pow, [1, 2], 1, int, ("not a number",)))


DOCS = ("-DOCSTART-\nJohn runs in New York.\nJohn sat.\n\n-DOCSTART-\n-DOCSTART-\n"
        "The dog is new. A cat sat on the mat.\nYork is John .\n")


@pytest.mark.parametrize("fmt", ["conll", "json"])
def test_cli_jobs_output_is_jobs_1_output(models, fmt):
    text = ("The cat sat on the mat.\n\nJohn is in New York .\n" * 5 + DOCS * 6).encode()
    outs = []
    for jobs in ("1", "2"):
        out = io.BytesIO()
        assert cli.main(["-path", str(models), "--format", fmt, "--batch-size", "3",
                         "--jobs", jobs], io.BytesIO(text), out) == 0
        outs.append(out.getvalue())
    assert outs[0] and outs[1] == outs[0]


@pytest.mark.parametrize("args, message", [
    (["--jobs", "-2"], "--jobs must be a whole number from 1 to"),
    (["--jobs", "2", "-srl", "-usrvbs", os.devnull], "--jobs does not apply with -usrvbs"),
])
def test_cli_bad_jobs_is_a_usage_error(models, capsys, args, message):
    assert senna_main(["-path", str(models), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("senna: error: ") and message in err and err.count("\n") == 1


def test_chunks_keep_documents_whole():
    lines = ["a\n", "b\n", "-DOCSTART-\n", "c\n", "\n", "d\n", "e\n", "-DOCSTART-\n",
             "-DOCSTART-\n", "f\n", None, "g\n", "-DOCSTART-\n", "h\n"]
    chunks = list(cli.line_chunks(lines, 2))
    assert chunks == [["a\n", "b\n"], ["-DOCSTART-\n", "c\n", "d\n", "e\n"],
                      None,   # at the pause, the open block waits for the rest
                      ["-DOCSTART-\n", "f\n", "g\n"], ["-DOCSTART-\n", "h\n"]]


def test_a_long_block_is_cut_as_one_process_cuts_it(monkeypatch):
    monkeypatch.setattr(cli, "DOCUMENT_SENTENCES", 3)
    chunks = list(cli.line_chunks(["-DOCSTART-\n"] + [f"{k}\n" for k in range(7)], 100))
    assert chunks == [["-DOCSTART-\n", "0\n", "1\n", "2\n"],
                      ["-DOCSTART-\n", "3\n", "4\n", "5\n"], ["-DOCSTART-\n", "6\n"]]


@pytest.mark.parametrize("start", ["default", "spawn"])
def test_spacy_n_process_is_n_process_1(models, monkeypatch, start):
    """spaCy's own worker processes: forked with the loaded component (Linux's default),
    or spawned, where the component is pickled as its settings and reloads its models."""
    spacy = pytest.importorskip("spacy")
    language = pytest.importorskip("spacy.language")
    if start == "spawn":
        monkeypatch.setattr(language, "mp", multiprocessing.get_context("spawn"))
    nlp = spacy.blank("en")
    nlp.add_pipe("senna", config={"model_dir": str(models)})
    texts = [t for t in TEXTS if isinstance(t, str)] * 3

    def seen(doc):
        return ([(t.text, t.tag_, t.pos_) for t in doc], [(e.start, e.end, e.label_)
                                                          for e in doc.ents],
                [(s.start, s.end, s.label_) for s in doc.spans["chunks"]], doc._.srl_data)

    one = [seen(d) for d in nlp.pipe(texts, batch_size=2)]
    assert [seen(d) for d in nlp.pipe(texts, batch_size=2, n_process=2)] == one
