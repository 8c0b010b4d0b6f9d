"""Models for other languages: a model keeps the language of its training text, raw text
is tokenised that language's way wherever the model tags it (API, CLI), models of two
languages are not mixed, and --lang / lang= pick the shipped models of a language."""

from __future__ import annotations

import io
import json
import shutil
import sys

import pytest

pytest.importorskip("torch")

from conftest import small_config  # noqa: E402

import senna  # noqa: E402
from senna.cli import tag as cli  # noqa: E402
from senna.cli.main import run  # noqa: E402
from senna.io.saved_model import ModelError  # noqa: E402
from senna.runtime import folders  # noqa: E402
from senna.train.loop import train  # noqa: E402

TEXT = "El 50% de la sub-comisión votó."
SPANISH = ["El", "50%", "de", "la", "sub-comisión", "votó", "."]
ENGLISH = ["El", "50", "%", "de", "la", "sub", "-", "comisión", "votó", "."]


@pytest.fixture(scope="module")
def spanish(tmp_path_factory):
    """A tiny NER model trained with language "es"."""
    cfg = small_config(tmp_path_factory.mktemp("es"), "ner-window-sll", language="es")
    train(cfg)
    return cfg.out


def words(doc) -> list[str]:
    return [w for s in doc.sentences for w in s.words]


def test_the_model_keeps_its_language(spanish):
    config = json.loads((senna.load(spanish).pipeline.folder("ner") / "config.json")
                        .read_text(encoding="utf-8"))
    assert config["language"] == "es"


def test_raw_text_is_split_the_models_way(spanish):
    tagger = senna.load(spanish)
    assert tagger.pipeline.language == "es"
    assert words(tagger(TEXT)) == SPANISH
    assert words(tagger(ENGLISH)) == ENGLISH   # pre-tokenised input is kept as given


def test_the_cli_splits_raw_text_the_models_way(spanish, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TEXT.encode() + b"\n")))
    assert run(cli.main, ["-path", spanish, "-offsettags"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert [r[0] for r in rows] == SPANISH


def test_models_of_two_languages_are_not_mixed(spanish, models):
    with pytest.raises(ModelError, match=r"different languages: pos \(en\), ner \(es\)"):
        senna.load(models, tasks=["pos", "ner"], models={"ner": spanish})


def test_a_bad_language_in_a_model_is_one_error(spanish, tmp_path):
    copy = tmp_path / "ner"
    shutil.copytree(spanish, copy)
    config = json.loads((copy / "config.json").read_text(encoding="utf-8"))
    (copy / "config.json").write_text(json.dumps({**config, "language": "xx"}),
                                      encoding="utf-8")
    (copy / "manifest.json").unlink(missing_ok=True)   # else its checksum refuses it first
    with pytest.raises(ModelError, match="language must be one of en, es, nl, got 'xx'"):
        senna.load(copy)


def test_lang_picks_the_shipped_models_of_a_language(spanish, tmp_path, monkeypatch):
    root = tmp_path / "models"
    shutil.copytree(spanish, root / "es" / "ner")
    monkeypatch.setattr(folders, "default_model_dir", lambda: root)
    tagger = senna.load(lang="es")
    assert tagger.tasks == ("ner",) and tagger.pipeline.language == "es"
    assert words(tagger(TEXT)) == SPANISH
    with pytest.raises(ModelError, match="no shipped models for language 'nl'; shipped: en, es"):
        senna.load(lang="nl")
    with pytest.raises(ValueError, match="model_dir or lang, not both"):
        senna.load(root, lang="es")


@pytest.mark.parametrize("options, message", [
    (["--lang", "xx"], "--lang: no shipped models for language 'xx'"),
    (["--lang", "es", "-path", "x"], "give -path or --lang, not both"),
    (["--lang", "es", "-pos"], "--lang es: the shipped models tag ner only, not pos"),
])
def test_bad_lang_options_are_usage_errors(options, message, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a b\n")))
    assert run(cli.main, options) == 2
    err = capsys.readouterr().err
    assert err.startswith("senna: error: ") and message in err and err.count("\n") == 1


def test_a_folder_of_models_tags_the_tasks_it_holds(spanish, tmp_path):
    shutil.copytree(spanish, tmp_path / "ner")
    assert senna.load(tmp_path).tasks == ("ner",)
