"""Model folders that load and travel on their own: one model's folder as -path /
senna.load(DIR), task folders combined with the shipped models (models={...}, --model
TASK=DIR, the spaCy config, senna serve), and a model trained from embeddings outside its
folder that keeps the rows it reads, so that a copy tags alike once those are gone."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from conftest import ROOT, shipped, small_config  # noqa: E402

import senna  # noqa: E402
from senna.cli import tag as cli  # noqa: E402
from senna.cli.main import main  # noqa: E402
from senna.embeddings import read_embeddings, save_embeddings, scaled  # noqa: E402
from senna.io.checkpoint import load_model, save_model  # noqa: E402
from senna.io.saved_model import ModelError  # noqa: E402
from senna.runtime.folders import default_model_dir  # noqa: E402
from senna.train.loop import train  # noqa: E402

SENTENCES = [["John", "Smith", "lives", "in", "Paris", "."],
             ["The", "European", "Union", "met", "in", "Brussels", "on", "Monday", "."]]


def ner_tags(tagger: senna.api.Tagger) -> list[list[str]]:
    return [tagger(s).sentences[0].columns["ner"] for s in SENTENCES]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A small NER model trained from embeddings outside its folder, its tags, and a copy
    of its folder made elsewhere; the embeddings are then renamed out of reach.
    -> (model folder, copy, the embeddings' words and vectors, tags)."""
    tmp = tmp_path_factory.mktemp("folders")
    rng = np.random.default_rng(0)
    words = ["PADDING", "RARE"] + [f"w{i}" for i in range(200)] + ["the", "john", "paris", "."]
    save_embeddings(tmp / "emb", words, rng.normal(size=(len(words), 8)), dtype="float16")
    cfg = small_config(tmp, "ner-window-sll", embeddings=str(tmp / "emb"))
    train(cfg)
    tags = ner_tags(senna.load(cfg.out))
    copy = tmp / "elsewhere" / "esp"
    shutil.copytree(cfg.out, copy)
    emb = read_embeddings(tmp / "emb")
    (tmp / "emb").rename(tmp / "emb-gone")
    return Path(cfg.out), copy, emb, tags


def expected_table(model_dir: Path, emb: tuple[list[str], np.ndarray]) -> np.ndarray:
    """The word table as training left it: the model's own rows, the others read from the
    original embeddings (scaled by the recorded divisor), zeros for words in neither."""
    config = json.loads((model_dir / "config.json").read_text())
    from senna.io.checkpoint import vocab_file
    from senna.vocab import Vocab
    words = Vocab.load(vocab_file(model_dir, "word")).items
    index = {w: i for i, w in enumerate(emb[0])}
    with np.load(model_dir / "weights.npz") as z:
        rows, values = z["emb.tables.0.rows"], z["emb.tables.0.values"]
    table = np.zeros((len(words), values.shape[1]), dtype=np.float32)
    for i, w in enumerate(words):
        if w in index:
            row = emb[1][index[w]].astype(np.float16)   # as stored
            table[i] = scaled(row[None], config["word_base"]["divisor"])[0]
    table[rows] = values
    return table


def test_a_copied_model_reads_its_embedding_rows_from_its_own_folder(trained):
    out, copy, emb, _ = trained
    config = json.loads((copy / "config.json").read_text())
    assert config["word_base"]["embeddings"] == "embeddings"
    np.testing.assert_array_equal(load_model(copy).weights["emb.tables.0.weight"],
                                  expected_table(copy, emb))
    assert (copy / "embeddings" / "manifest.json").is_file()
    assert read_embeddings(copy / "embeddings")[0]   # rows it reads, not only its own
    # the checkpoint never leaves its run: it reads the embeddings where they were
    assert not (out / "checkpoint" / "ner" / "embeddings").exists()


def test_the_copy_tags_as_the_original_through_the_cli(trained):
    _, copy, _, tags = trained
    text = "\n".join(" ".join(s) for s in SENTENCES) + "\n"
    res = subprocess.run([sys.executable, "-m", "senna", "-path", str(copy), "-usrtokens"],
                         input=text, capture_output=True, text=True, timeout=300,
                         cwd=copy.parent, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert res.returncode == 0, res.stderr
    blocks = [b for b in res.stdout.split("\n\n") if b.strip()]
    got = [[line.split("\t")[-1].strip() for line in b.splitlines()] for b in blocks]
    assert got == tags   # one column: the folder's task alone


def test_the_copy_tags_as_the_original_through_the_api(trained):
    _, copy, _, tags = trained
    tagger = senna.load(copy)
    assert tagger.tasks == ("ner",)
    assert ner_tags(tagger) == tags
    combined = senna.load(models={"ner": str(copy)}, tasks=["pos", "ner"])
    assert combined.pipeline.folder("ner") == copy
    assert combined.pipeline.folder("pos") == default_model_dir() / "pos"
    assert ner_tags(combined) == tags


def test_the_copy_tags_as_the_original_through_spacy(trained):
    spacy = pytest.importorskip("spacy")
    _, copy, _, tags = trained
    for config in ({"model_dir": str(copy)}, {"models": {"ner": str(copy)}, "tasks": ["ner"]}):
        nlp = spacy.blank("en")
        nlp.add_pipe("senna", config=config)
        for words, want in zip(SENTENCES, tags, strict=True):
            doc = nlp(spacy.tokens.Doc(nlp.vocab, words=words))
            got = ["O"] * len(words)
            for ent in doc.ents:
                got[ent.start:ent.end] = ["I-" + ent.label_] * len(ent)
            assert [t[2:] for t in got] == [t[2:] for t in want]


def test_compact_works_on_the_copy(trained, tmp_path):
    """`senna compact` rewrites the copy in place from its own rows (the rows it keeps
    rounded to float16, those it reads from its folder as they were)."""
    _, copy, emb, _ = trained
    other = tmp_path / "compacted"
    shutil.copytree(copy, other)
    before = (other / "embeddings" / "vectors.npz").read_bytes()
    assert main(["compact", str(other), "--rows", "float16"]) == 0
    assert (other / "embeddings" / "vectors.npz").read_bytes() == before
    with np.load(other / "weights.npz") as z:
        assert z["emb.tables.0.values"].dtype == np.float16
    np.testing.assert_array_equal(load_model(other).weights["emb.tables.0.weight"],
                                  expected_table(other, emb))
    assert senna.load(other).tasks == ("ner",)


def test_the_shipped_layout_shares_the_embeddings_beside_it(trained, tmp_path, monkeypatch):
    """Inside the shipped models' folder a model keeps reading the embeddings beside it
    (one table for all taggers: the shipped models' size), and loads alike."""
    from senna.io import word_base

    _, copy, _, _ = trained
    root = tmp_path / "models"
    shutil.copytree(copy / "embeddings", root / "embeddings")
    monkeypatch.setattr(word_base, "SHIPPED", root)
    model = load_model(copy)
    model.info["word_base"]["embeddings"] = str(root / "embeddings")
    save_model(root / "ner", model)
    assert not (root / "ner" / "embeddings").exists()
    assert json.loads((root / "ner" / "config.json").read_text())["word_base"][
        "embeddings"] == "../embeddings"
    np.testing.assert_array_equal(load_model(root / "ner").weights["emb.tables.0.weight"],
                                  load_model(copy).weights["emb.tables.0.weight"])


def test_a_model_moved_among_the_shipped_ones_reads_their_embeddings(trained, tmp_path,
                                                                     monkeypatch):
    """A model trained elsewhere from the shipped embeddings, then moved among the shipped
    models: compacted there, it drops its own copy of their rows and reads them beside it
    (the same rows: it loads alike); a copy of other embeddings' rows stays."""
    from senna.io import word_base

    _, copy, emb, _ = trained
    for shift, shared in ((0.0, True), (1.0, False)):
        root = tmp_path / f"models-{shift}"
        save_embeddings(root / "embeddings", emb[0], emb[1] + shift, dtype="float16")
        monkeypatch.setattr(word_base, "SHIPPED", root)
        monkeypatch.setattr(word_base, "DEFAULT_EMBEDDINGS", root / "embeddings")
        moved = root / "ner"
        shutil.copytree(copy, moved)
        assert main(["compact", str(moved), "--rows", "float32"]) == 0
        assert (moved / "embeddings").exists() != shared
        base = json.loads((moved / "config.json").read_text())["word_base"]["embeddings"]
        assert base == ("../embeddings" if shared else "embeddings")
        np.testing.assert_array_equal(load_model(moved).weights["emb.tables.0.weight"],
                                      load_model(copy).weights["emb.tables.0.weight"])
        assert senna.load(moved).tasks == ("ner",)


def test_one_models_folder_takes_what_it_reads_from_the_shipped_models(models):
    shipped("pos")
    tagger = senna.load(models / "chunk")   # the tiny CHUNK model reads POS tags
    assert tagger.tasks == ("chunk",)
    assert tagger.pipeline.order == ["pos", "chunk"]
    assert tagger.pipeline.folder("pos") == default_model_dir() / "pos"
    doc = tagger(["The", "cat", "sat", "."])
    alone = senna.load(tasks=["pos"])(["The", "cat", "sat", "."])
    assert doc.sentences[0].columns["pos"] == alone.sentences[0].columns["pos"]


def test_task_folders_win_over_the_folder_of_models(models, tmp_path):
    other = tmp_path / "ner"
    shutil.copytree(models / "ner", other)
    tagger = senna.load(models, tasks=["ner"], models={"ner": other})
    assert tagger.pipeline.folder("ner") == other
    assert tagger.pipeline.folder("pos") == models / "pos"


@pytest.mark.parametrize("option, status, message", [
    (["--model", "nex={m}"], 2, "--model nex={m}: unknown task 'nex'"),
    (["--model", "ner"], 2, "--model: expected TASK=DIR (e.g. ner=runs/esp), got 'ner'"),
    (["--model", "ner={m}", "--model", "ner={m}"], 2, "--model: ner is given twice"),
    (["--model", "ner={m}/none"], 1, "no ner folder: {m}/none is not a directory"),
    (["--model", "pos={m}/ner"], 1, "{m}/ner: holds a ner model, not a pos model"),
    (["--model", "ner={m}"], 1,
     "{m}: not a model's folder (it holds no config.json or ensemble.json)"),
    (["-path", "{m}/none"], 1, "{m}/none: no such directory"),
])
def test_bad_task_folders_give_one_line(capsys, monkeypatch, models, option, status, message):
    """Usage errors (exit 2) and folders that are wrong (exit 1), as docs/cli.md says."""
    from senna.cli.main import run

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a b\n")))
    assert run(cli.main, [*(o.format(m=models) for o in option), "-usrtokens"]) == status
    err = capsys.readouterr().err
    assert err.startswith("senna: error: ") and err.count("\n") == 1, err
    assert message.format(m=models) in err


def test_bad_task_folders_in_the_api(models):
    with pytest.raises(ValueError, match="unknown task 'nex'"):
        senna.load(models={"nex": models / "ner"})
    with pytest.raises(ModelError, match="holds a ner model, not a pos model"):
        senna.load(models={"pos": models / "ner"})
    with pytest.raises(ModelError, match="is not a directory"):
        senna.load(models={"ner": models / "none"})


def test_serve_loads_a_models_own_folder_in_both_lanes(models):
    pytest.importorskip("starlette")
    from senna.serve.app import create_app

    app = create_app(model_dir=str(models / "ner"))
    service = app.state.service
    assert service.base.tasks == ("ner",)
    large = service.tagging.large.load().pipeline
    assert large.folder("ner") == models / "ner" and large.tasks == ("ner",)


def test_serve_takes_model_options(capsys, models):
    """`senna serve --model TASK=DIR` is checked as the tagger's option is."""
    from senna.cli import serve

    assert main(["serve", "--model", "nex=" + str(models)]) == 2
    assert "unknown task 'nex'" in capsys.readouterr().err
    assert serve.parser().parse_args(["--model", "ner=x"]).models == ["ner=x"]
