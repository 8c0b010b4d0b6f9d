"""`senna install-nltk-shim`: NLTK's unmodified SENNA wrappers run this project's tagger
(tiny random models from conftest.py, so only the structure of the output is checked)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CHUNK, NER, POS

from senna.cli import nltk_shim
from senna.cli.main import main as senna_main

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the shim is a POSIX sh script")
SENT = "The cat sat on the mat .".split()


def iob2(tags: list[str]) -> set[str]:
    """The -iobtags forms of an IOBES tag set."""
    return {"O"} | {f"{p}-{t[2:]}" for t in tags if t != "O" for p in "BI"}


@pytest.fixture(scope="module")
def private_dir(tmp_path_factory) -> Iterator[Path]:
    """A fresh directory NLTK (3.10+) trusts: nothing from / down group/world-writable,
    which rules out /tmp, where pytest's tmp_path lives."""
    for base in (tmp_path_factory.getbasetemp(), Path.home() / ".cache"):
        try:
            base.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if nltk_shim.untrusted_reason(base) is None:
            break
    else:
        pytest.skip("no directory NLTK would trust a tool in")
    path = Path(tempfile.mkdtemp(prefix="senna-nltk-", dir=base))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def shim(private_dir, models) -> str:
    pytest.importorskip("nltk")
    directory = private_dir / "shim"
    nltk_shim.install(directory, models)
    return str(directory)


def test_install_command_writes_executables_and_keeps_foreign_files(tmp_path, models, capsys):
    target = tmp_path / "a" / "shim"
    assert senna_main(["install-nltk-shim", str(target), "--model-dir", str(models)]) == 0
    assert str(target) in capsys.readouterr().out
    for name in nltk_shim.SHIM_NAMES:
        path = target / name
        assert path.is_file() and os.access(path, os.X_OK)
        text = path.read_text()
        assert text.startswith("#!/bin/sh\n") and f"--model-dir {models}" in text
    assert oct(target.stat().st_mode & 0o777) == "0o755"
    assert senna_main(["install-nltk-shim", str(target)]) == 0     # re-install: fine
    assert "--model-dir" not in (target / "senna-linux64").read_text()
    (target / "senna-osx").write_text("a real SENNA binary")
    assert senna_main(["install-nltk-shim", str(target)]) == 1
    assert "not a senna shim" in capsys.readouterr().err
    assert (target / "senna-osx").read_text() == "a real SENNA binary"
    nltk_shim.install(target, force=True)
    assert nltk_shim.MARKER in (target / "senna-osx").read_text()
    with pytest.raises(ValueError, match="model directory not found"):
        nltk_shim.install(target, tmp_path / "missing")


def test_script_quotes_paths_and_untrusted_locations_are_named(tmp_path):
    text = nltk_shim.shim_script("/opt/my python/bin/python", Path("/m's"), "/src dir")
    assert "exec '/opt/my python/bin/python' -m senna.cli.main --model-dir '/m'\"'\"'s'" in text
    assert "PYTHONPATH='/src dir'; export PYTHONPATH" in text
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert "world-writable" in (nltk_shim.untrusted_reason(shared / "shim") or "")


def test_senna_tagger(shim):
    from nltk.tag import SennaTagger

    tagged = SennaTagger(shim).tag(SENT)
    assert [w for w, _ in tagged] == SENT
    assert {t for _, t in tagged} <= set(POS)


def test_senna_chunk_tagger_several_sentences(shim):
    from nltk.tag import SennaChunkTagger

    sents = [SENT, ["John"], "a dog runs in new york".split()]
    tagged = SennaChunkTagger(shim).tag_sents(sents)
    assert [[w for w, _ in s] for s in tagged] == sents
    assert {t for s in tagged for _, t in s} <= iob2(CHUNK)


def test_senna_ner_tagger(shim):
    from nltk.tag import SennaNERTagger

    tagged = SennaNERTagger(shim).tag(SENT)
    assert [w for w, _ in tagged] == SENT
    assert {t for _, t in tagged} <= iob2(NER)


def test_senna_pipeline_pos_chk_ner(shim):
    from nltk.classify import Senna

    tagged = Senna(shim, ["pos", "chk", "ner"]).tag(SENT)
    assert [t["word"] for t in tagged] == SENT
    for t in tagged:
        assert t["pos"] in POS and t["chk"] in iob2(CHUNK) and t["ner"] in iob2(NER)


def test_no_break_space_inside_a_token(shim):
    from nltk.tag import SennaTagger

    words = ["New\u00a0York", "is", "big"]
    assert [w for w, _ in SennaTagger(shim).tag(words)] == words
