"""Bounded memory whatever one input line holds: sentences longer than MAX_WORDS are tagged
as their pieces and written whole, output is written in bounded chunks, and a write that the
output stream does not take in full ends the run with one error line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, WORDS, build_models
from hypothesis import given, settings
from hypothesis import strategies as st

import senna.runtime.model as runtime_model
from senna.api import load
from senna.cli import main as cli_main
from senna.cli import tag as cli
from senna.document import Document, Sentence
from senna.io.output import CHUNK_LINES, OutputOptions
from senna.runtime.model import TaskModel
from senna.runtime.pipeline import Pipeline
from senna.tags import RoleTags
from senna.text.pieces import MAX_WORDS, UNMARKED, piece_bounds

ALL = ("pos", "chunk", "ner", "pt0", "srl")


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> Path:
    return build_models(tmp_path_factory.mktemp("models"))


def line_of(n: int, seed: int = 0) -> list[str]:
    """n words of the tiny models' vocabulary, few of them punctuation."""
    words = [w for w in WORDS if w not in ".,"]
    return [words[(i * 7 + seed + i // 5) % len(words)] for i in range(n)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", ",", ".", ";"]), max_size=60), st.integers(1, 12))
def test_pieces_cover_the_sentence_in_order_and_within_the_limit(words, limit):
    cuts = piece_bounds(words, limit)
    assert cuts[0][0] == 0 and cuts[-1][1] == len(words)
    assert all(a1 == b0 for (_, b0), (a1, _) in zip(cuts, cuts[1:], strict=False))
    assert all(0 < b - a <= limit for a, b in cuts) or cuts == [(0, 0)]


def test_pieces_end_at_the_strongest_boundary_near_the_limit():
    words = ["w"] * 30
    words[3], words[6], words[7] = ".", ",", ";"       # in the first half: not used
    words[12], words[14], words[16] = ".", ",", ";"
    assert piece_bounds(words, 20)[0] == (0, 13)        # sentence end beats ; and ,
    words[12] = "w"
    assert piece_bounds(words, 20)[0] == (0, 17)        # then ; beats ,
    assert piece_bounds(["w"] * 41, 20) == [(0, 14), (14, 28), (28, 41)]   # even hard cuts
    assert piece_bounds(["w"] * 20, 20) == [(0, 20)] and piece_bounds([], 5) == [(0, 0)]
    with pytest.raises(ValueError, match="at least 1"):
        piece_bounds(["w"], 0)


def test_text_without_boundaries_is_cut_near_an_ordinary_sentence():
    """Nothing marks where unpunctuated text's sentences end: its pieces are of equal
    length of at most UNMARKED words, so SRL rows stay short; punctuated text is cut at its
    boundaries as before."""
    cuts = piece_bounds(["w"] * 1000)
    assert len({b - a for a, b in cuts}) <= 2 and max(b - a for a, b in cuts) <= UNMARKED
    assert len(cuts) == -(-1000 // UNMARKED)
    words = (["w"] * 99 + ["."]) * 10
    assert piece_bounds(words) == [(i, i + 100) for i in range(0, 1000, 100)]
    mixed = piece_bounds(["w"] * 300 + ["."] + ["w"] * 50)    # equal pieces up to the mark
    assert (282, 301) in mixed and all(b - a <= UNMARKED for a, b in mixed[:-1])


@pytest.mark.parametrize("radius", [1000, 2])
def test_a_long_sentence_is_tagged_as_its_pieces_alone(models, monkeypatch, radius):
    """Oracle: the whole sentence's columns are its pieces' tagged as sentences of one
    document; a predicate's roles are its piece's, O elsewhere (rows of a piece cover
    SRL_RADIUS words each side: with a radius beyond the piece, the piece whole)."""
    monkeypatch.setattr(runtime_model, "SRL_RADIUS", radius)
    pipe = Pipeline(models, ALL, max_words=10)
    words = line_of(37)
    words[8] = "."
    got = pipe.tag([words])[0]
    cuts = piece_bounds(words, 10)
    assert len(cuts) == 4 and cuts[0] == (0, 9)
    alone = pipe.tag([words[a:b] for a, b in cuts], docs=[0] * len(cuts))
    for task in ("pos", "chunk", "ner", "pt0"):
        assert got.columns[task] == [t for s in alone for t in s.columns[task]]
    srl = pipe.models["srl"]
    want_preds, want_roles = [], []
    for (a, b), piece in zip(cuts, alone, strict=True):
        want_preds += [a + p for p in piece.predicates]
        if radius < 10:   # rows over the predicate's window within the piece
            windows = [[srl.role_window(b - a, p, False) for p in piece.predicates]]
            rows = srl.predict_role_windows([piece.words], [piece.predicates],
                                            [{"pt0": piece.columns["pt0"]}], windows)[0]
            piece_roles = [["O"] * lo + t + ["O"] * (b - a - lo - len(t)) for lo, t in rows]
        else:
            piece_roles = [list(r) for r in piece.roles]
        want_roles += [["O"] * a + r + ["O"] * (len(words) - b) for r in piece_roles]
    assert want_preds and got.predicates == want_preds
    assert [list(r) for r in got.roles] == want_roles
    assert all(isinstance(r, RoleTags) and len(r) == len(words) for r in got.roles)


def test_user_predicates_index_the_whole_sentence(models):
    pipe = Pipeline(models, ["srl"], max_words=10)
    words = line_of(25)
    got = pipe.tag([words], [[3, 12, 24]])[0]
    assert got.predicates == [3, 12, 24]
    assert [f.word for f in got.frames] == [words[3], words[12], words[24]]
    with pytest.raises(ValueError, match="out of range"):
        pipe.tag([words], [[25]])


def record_lengths(monkeypatch) -> list[int]:
    """Lengths of the sentences every network pass sees (window and SRL networks)."""
    seen: list[int] = []
    emissions, role_scores = TaskModel.emissions, TaskModel.role_scores

    def spy_emissions(self, sentences, columns):
        seen.extend(map(len, sentences))
        return emissions(self, sentences, columns)

    def spy_roles(self, sentences, predicates, columns, windows=None):
        seen.extend(map(len, sentences))
        return role_scores(self, sentences, predicates, columns, windows)

    monkeypatch.setattr(TaskModel, "emissions", spy_emissions)
    monkeypatch.setattr(TaskModel, "role_scores", spy_roles)
    return seen


def test_networks_never_see_more_than_max_words(models, monkeypatch):
    """A line of 8 x MAX_WORDS words, through the API and the CLI: every network pass
    works on pieces of at most MAX_WORDS words."""
    text = " ".join(line_of(8 * MAX_WORDS))
    seen = record_lengths(monkeypatch)
    doc = load(models, ALL)(text.split())
    assert len(doc.sentences[0].words) == 8 * MAX_WORDS and doc.sentences[0].predicates
    assert seen and max(seen) <= MAX_WORDS
    seen.clear()
    out = io.BytesIO()
    assert cli.main(["-path", str(models), "-usrtokens", "--tasks", ",".join(ALL)],
                    io.BytesIO(text.encode() + b"\n"), out) == 0
    assert seen and max(seen) <= MAX_WORDS


@pytest.mark.parametrize("fmt", ["senna", "conll", "conllu", "json", "allennlp"])
def test_a_long_line_is_written_as_one_sentence(models, fmt):
    """One -usrtokens line of 3 x MAX_WORDS + 5 words, tagged in pieces, is written as one
    sentence in every format: one block, the line's tokens in order, one role column per
    predicate of the whole line."""
    words = line_of(3 * MAX_WORDS + 5)
    text = " ".join(words) + "\n" + "The cat sat .\n"
    out = io.BytesIO()
    assert cli.main(["-path", str(models), "-usrtokens", "--format", fmt, "--tasks",
                     ",".join(ALL)], io.BytesIO(text.encode()), out) == 0
    got = out.getvalue().decode()
    if fmt in ("json", "allennlp"):
        lines = [json.loads(line) for line in got.splitlines()]
        if fmt == "json":
            assert len(lines) == 2 and [len(d["sentences"]) for d in lines] == [1, 1]
            sent = lines[0]["sentences"][0]
            assert [t["text"] for t in sent["tokens"]] == words
            assert sent["predicates"] and all(len(p["tags"]) == len(words)
                                              for p in sent["predicates"])
        else:
            assert len(lines) == 2 and lines[0]["words"] == words and lines[0]["verbs"]
        return
    blocks = [b.split("\n") for b in got.split("\n\n") if b.strip()]
    assert len(blocks) == 2
    rows = [line for line in blocks[0] if not line.startswith("#")]
    tokens = [r.split("\t")[1 if fmt == "conllu" else 0].strip() for r in rows]
    assert tokens == words
    if fmt != "conllu":
        fields = [r.split("\t") for r in rows]
        preds = sum(f[5].strip() != "-" for f in fields)
        assert preds > 3 and all(len(f) == 6 + preds for f in fields)


def long_sentence(n: int, preds: int) -> Sentence:
    """n words with `preds` predicates whose roles are confined to a window each, and one
    plain column reaching across the whole sentence."""
    words = [f"w{i % 7}" if i % 11 else "." for i in range(n)]
    roles: list = []
    predicates = []
    for k in range(preds - 1):
        p = (k * 37) % n
        lo = max(0, p - 3)
        tags = ["O"] * (p - lo) + ["S-V"] + ["B-ARG1", "E-ARG1"][: max(0, min(2, n - p - 1))]
        predicates.append(p)
        roles.append(RoleTags(n, lo, tags))
    predicates.append(n - 1)
    roles.append(["S-ARG0"] + ["O"] * (n - 2) + ["S-V"])
    return Sentence(words, {"pos": ["NN"] * n}, predicates, roles)


@pytest.mark.parametrize("fmt", ["senna", "conll", "conllu", "json", "allennlp"])
@pytest.mark.parametrize("scheme", ["iobes", "iob", "brackets"])
def test_streamed_rows_are_the_whole_sentence_written_at_once(monkeypatch, fmt, scheme):
    """Oracle: a long sentence written row by row, in chunks of a few fields, gives the
    text of the simple writer that holds every field (`sentence_columns`, json.dumps)."""
    import senna.io.output as output
    from senna.io.allennlp import sentence_json

    sent = long_sentence(MAX_WORDS * 2 + 17, 9)
    doc = Document(" ".join(sent.words), [sent])
    opts = OutputOptions(("pos", "srl"), scheme if fmt in ("senna", "conll", "conllu")
                         else "iobes")
    monkeypatch.setattr(output, "CHUNK_FIELDS", 50)
    chunks = list(output.iter_formatted([doc], fmt, opts))
    assert len(chunks) > 5
    got = "".join(chunks)
    if fmt == "json":
        assert got == json.dumps(doc.to_dict(opts.tasks), ensure_ascii=False) + "\n"
    elif fmt == "allennlp":
        assert got == json.dumps(sentence_json(sent), ensure_ascii=False) + "\n"
    elif fmt == "conllu":
        srl = [line.split("\t")[9] for line in got.splitlines() if line[:1].isdigit()]
        cols = output.sentence_columns(sent, opts)[-len(sent.roles):]
        assert srl == ["|".join(["Pred=Yes"] * (i in sent.predicates)
                                + [f"SRL{k + 1}={c[i]}" for k, c in enumerate(cols)])
                       for i in range(len(sent.words))]
    else:
        cols = output.sentence_columns(sent, opts)
        rows = ["\t".join(f for f in fields) for fields in zip(*cols, strict=True)]
        if fmt == "senna":
            widths = output._widths(opts, len(cols))
            rows = ["\t".join(f.rjust(w) for f, w in zip(fields, widths, strict=True))
                    for fields in zip(*cols, strict=True)]
        assert got == "\n".join(rows) + "\n\n"


class Recorder(io.RawIOBase):
    """A binary stream that takes at most `most` bytes per write (0: none at all after
    `allow` bytes) and records the size of each write."""

    def __init__(self, most: int, allow: int = 1 << 60):
        self.most, self.allow, self.data, self.sizes = most, allow, bytearray(), []

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        self.sizes.append(len(b))
        n = min(len(b), self.most, max(0, self.allow - len(self.data)))
        self.data += bytes(b[:n])
        return n


def test_a_stream_that_takes_part_of_a_write_gets_the_rest(models):
    want = io.BytesIO()
    args = ["-path", str(models), "--tasks", ",".join(ALL)]
    text = ("The cat sat on the mat. John runs in New York.\n" * 20).encode()
    assert cli.main(args, io.BytesIO(text), want) == 0
    short = Recorder(most=100)
    assert cli.main(args, io.BytesIO(text), short) == 0
    assert bytes(short.data) == want.getvalue() and len(short.data) > 1000


def test_a_stream_that_takes_nothing_is_one_error_line(models, capsys):
    stuck = Recorder(most=100, allow=300)
    code = cli_main.run(lambda argv: cli.main(argv, io.BytesIO(b"The cat sat .\n" * 50),
                                              stuck), ["-path", str(models)])
    err = capsys.readouterr().err
    assert code == 1 and len(stuck.data) == 300
    assert err.startswith("senna: error: could not write the output after 300 bytes")
    assert err.count("\n") == 1


def test_output_is_written_in_bounded_chunks(models):
    """Many sentences in one batch: written a chunk at a time, not as one string."""
    text = ("The cat sat on the mat .\n" * 3000).encode()
    rec = Recorder(most=1 << 30)
    assert cli.main(["-path", str(models), "-usrtokens", "-pos", "--batch-size", "5000"],
                    io.BytesIO(text), rec) == 0
    lines = bytes(rec.data).count(b"\n")
    assert lines > 2 * CHUNK_LINES and len(rec.sizes) >= 3
    assert max(rec.sizes) < len(rec.data) / 2


@pytest.mark.parametrize("target", ["/dev/full"])
def test_a_full_device_is_one_error_line_and_status_1(models, target):
    if not Path(target).exists():
        pytest.skip(f"no {target}")
    with open(target, "wb") as sink:
        res = subprocess.run([sys.executable, "-m", "senna", "-path", str(models)],
                             input=b"The cat sat on the mat .\n" * 200, stdout=sink,
                             stderr=subprocess.PIPE, cwd=ROOT, timeout=120)
    err = res.stderr.decode()
    assert res.returncode == 1 and err.count("\n") == 1, err
    assert err.startswith("senna: error: could not write the output")


def test_a_closed_pipe_stays_quiet(models, tmp_path):
    """`senna ... | head`: the reader leaves early; no error, no traceback."""
    src = tmp_path / "in.txt"
    src.write_bytes(b"The cat sat on the mat .\n" * 20000)
    with open(src, "rb") as inp:
        proc = subprocess.Popen([sys.executable, "-m", "senna", "-path", str(models)],
                                stdin=inp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=ROOT)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.read(100)
        proc.stdout.close()
        assert proc.wait(timeout=120) == 0
        assert proc.stderr.read() == b""


def test_the_server_tags_a_long_sentence_in_pieces(models, monkeypatch):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from starlette.testclient import TestClient

    from senna.serve.app import Limits, create_app

    words = line_of(4 * MAX_WORDS)
    seen = record_lengths(monkeypatch)
    app = create_app(load(models, ALL), Limits(max_body_bytes=100_000, max_tokens=5000))
    with TestClient(app) as client:
        r = client.post("/tag", json={"text": " ".join(words)})
    assert r.status_code == 200, r.text
    got = r.json()["documents"][0]["sentences"]
    assert [t["text"] for s in got for t in s["tokens"]] == words
    assert seen and max(seen) <= MAX_WORDS
