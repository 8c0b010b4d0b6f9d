"""`senna models` and `Tagger.model_info()`: each model's task, data, dev score and the terms
that follow from its data and from the text of the embeddings its word table started
from (one research-only source makes the model research-only)."""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stdout

import pytest
from conftest import ROOT

import senna
from senna.cli.main import main
from senna.runtime.catalog import catalog, embeddings_texts, model_info, text_licences

SHIPPED = ROOT / "senna" / "models"


def test_the_shipped_models_are_listed_with_the_terms_of_their_embeddings():
    models = {m.name: m for m in catalog(SHIPPED)}
    assert {"pos", "chunk", "ner", "srl", "es/ner", "nl/ner"} <= set(models)
    assert "psg/pt0" not in models and "es/ner/seed-1" not in models
    texts = embeddings_texts(SHIPPED / "embeddings")
    research = any("reuters" in t for t in texts)
    assert models["pos"].terms.startswith("research use only") == research
    assert models["ner"].terms.startswith("research use only")   # CoNLL-2003
    assert models["pos"].dev.startswith("accuracy ") and models["chunk"].dev.startswith("F1 ")


def test_free_embeddings_and_free_data_give_a_model_a_product_may_use(tmp_path):
    shutil.copytree(SHIPPED / "pos", tmp_path / "pos")
    (tmp_path / "pos" / "manifest.json").unlink()   # its config is changed below
    emb = tmp_path / "embeddings"
    emb.mkdir()
    (emb / "embeddings.json").write_text(json.dumps({"corpus": {"sources": [
        {"path": "lm/enwiki_a_2015_core.txt.xz"}, {"path": "lm/en_voa_gmb_news.txt.xz"}]}}))
    config = json.loads((tmp_path / "pos" / "config.json").read_text())
    config["word_base"]["embeddings"] = "../embeddings"
    (tmp_path / "pos" / "config.json").write_text(json.dumps(config))
    info = model_info(tmp_path / "pos", "pos")
    assert set(info.terms.split("; ")) == {"CC BY-SA 4.0", "CC BY-SA 3.0", "public domain"}
    assert "Voice of America" in info.licence and "research" not in info.licence


def test_an_unknown_text_is_said_so_and_counts_against_a_product():
    assert text_licences(["x/mystery.txt.xz", "enwiki_c.txt.xz"]) == [
        "mystery.txt.xz: licence not recorded", "Wikipedia: CC BY-SA 3.0"]


def test_the_command_lists_models_and_refuses_a_bad_folder(tmp_path, capsys):
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["models", "--json"]) == 0
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert {"name", "task", "language", "data", "dev", "licence", "terms"} == set(rows[0])
    assert main(["models", str(tmp_path / "none")]) == 1
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "config.json").write_text("{")
    capsys.readouterr()
    assert main(["models", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_loaded_tagger_reports_its_models():
    tagger = senna.load(tasks="pos")
    (info,) = tagger.model_info()
    assert info.task == "pos" and info.data == "ewt.train.pos" and info.terms
    with pytest.raises(AttributeError):
        info.task = "x"   # frozen
