"""The word lists of a folder without a manifest (a model's vocabularies, an embeddings
folder's words.lst) are read in bounded pieces: no more lines than the settings call for,
no line longer than a MiB, so that a small gzip of gigabytes is refused within a few MiB
of memory, with one line naming the file."""

from __future__ import annotations

import gzip
import shutil
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from conftest import models  # noqa: F401 (the tiny models, built once per session)

from senna.embeddings import read_embeddings, save_embeddings
from senna.io.checkpoint import load_model
from senna.io.saved_model import ModelError

# the most Python memory refusing a bomb may take (the bombs expand to 2 GiB)
FEW_MIB = 16 << 20


def gzip_bomb(path: Path, block: bytes, gib: int = 2) -> None:
    """`gib` GiB of `block` repeated, as about 2 MB of gzip (one member per 64 MiB)."""
    member = gzip.compress(block * ((64 << 20) // len(block)), compresslevel=9, mtime=0)
    with open(path, "wb") as f:
        for _ in range(gib * 16):
            f.write(member)


def peak_of(call) -> tuple[BaseException, int]:
    """(what `call` raised, the peak of Python memory it took)."""
    tracemalloc.start()
    try:
        call()
    except (ModelError, ValueError) as e:
        raised = e
    else:
        raise AssertionError("no error")
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return raised, peak


@pytest.fixture
def pos(models, tmp_path) -> Path:  # noqa: F811
    """A copy of the tiny POS model without its manifest (as an older senna saved it)."""
    shutil.copytree(models / "pos", tmp_path / "pos")
    (tmp_path / "pos" / "manifest.json").unlink()
    return tmp_path / "pos"


@pytest.mark.parametrize(("block", "message"), ids=["newlines", "one-line"], argvalues=[
    (b"\n", r"word\.lst\.gz: more than \d+ entries, but net\.vocab_sizes\[0\] in "
            r"config\.json is \d+"),
    (b"x" * 4096, r"word\.lst\.gz:1: a line longer than 1,048,576 bytes"),
])
def test_a_gzip_of_gigabytes_as_a_vocabulary_is_refused_within_a_few_mib(pos, block, message):
    (pos / "vocab" / "word.lst").unlink()
    gzip_bomb(pos / "vocab" / "word.lst.gz", block)
    assert (pos / "vocab" / "word.lst.gz").stat().st_size < 3 << 20
    error, peak = peak_of(lambda: load_model(pos))
    assert isinstance(error, ModelError) and len(str(error).splitlines()) == 1
    assert error.args[0].startswith(str(pos / "vocab" / "word.lst.gz"))
    assert pytest.raises(ModelError, load_model, pos).match(message)
    assert peak < FEW_MIB, f"{peak / 2**20:.0f} MiB"


def test_a_vocabulary_of_the_right_length_still_loads(pos):
    (pos / "vocab" / "word.lst.gz").write_bytes(
        gzip.compress((pos / "vocab" / "word.lst").read_bytes()))
    (pos / "vocab" / "word.lst").unlink()
    assert load_model(pos).featurizer.vocabs["word"].items[:2] == ["PADDING", "RARE"]


def test_embeddings_words_beyond_their_count_are_refused_as_read(tmp_path):
    emb = tmp_path / "emb"
    save_embeddings(emb, ["a", "b"], np.ones((2, 3), dtype=np.float32))
    (emb / "manifest.json").unlink()
    (emb / "words.lst").write_bytes(b"a\nb\n" + b"\n" * (40 << 20))   # 40 MiB of lines
    error, peak = peak_of(lambda: read_embeddings(emb))
    assert str(error) == f"{emb / 'words.lst'}: more than 2 entries, but embeddings.json " \
                         "says 2 words"
    assert peak < FEW_MIB, f"{peak / 2**20:.0f} MiB"
