"""Silver data (senna.train.silver): unlabeled text tagged by a vote of trained taggers,
written in the format of the task's gold file (after its sentences, or alone for --extra-train)."""

import json
import lzma

import pytest
from conftest import FIX, MODELS

from senna.io.conll import read_conll2000, read_conll2003, read_tagged
from senna.train.card import silver_text
from senna.train.silver import SOURCE_SUFFIX, main, sentences, text_lines

TEXT = ("BANK RATES RISE IN LONDON\n"                          # a headline: skipped
        "Too short here.\n"                                     # under 5 tokens: skipped
        "Mr. Smith flew to Paris on Monday to meet the board of Airbus.\n"
        "The European Commission said on Thursday it disagreed with German advice.\n"
        "\n")


def test_sentences_skip_headlines_and_fragments(tmp_path):
    path = tmp_path / "a.txt.xz"
    with lzma.open(path, "wt", encoding="utf-8") as f:
        f.write(TEXT)
    got = sentences(text_lines(path), limit=10)
    assert [s[:2] for s in got] == [["Mr.", "Smith"], ["The", "European"]]
    assert sentences(text_lines(path), limit=1) == got[:1]
    assert sentences(text_lines(path), limit=5, skip=1) == got[1:]


def test_silver_file_follows_the_gold_one_and_reads_back(tmp_path):
    text = tmp_path / "a.txt"
    text.write_bytes(TEXT.encode() + b"Bad \xff bytes do not stop Ms. Jones in Berlin.\n")
    out = tmp_path / "train.conll"
    gold = FIX / "ner_small.conll"
    assert main(["--teachers", f"{MODELS / 'ner'},{MODELS / 'ner'}", "--text", str(text),
                 "--gold", str(gold), "--sentences", "5", "--out", str(out)]) == 0
    n_gold = len(read_conll2003(gold))
    got = read_conll2003(out)
    silver = got[n_gold:]
    assert len(silver) == 3 and silver[0].words[:2] == ["Mr.", "Smith"]
    tags = dict(zip(silver[0].words, silver[0].columns["ner"], strict=True))
    assert tags["Paris"].endswith("LOC") and tags["Smith"].endswith("PER")
    source = json.loads((tmp_path / ("train.conll" + SOURCE_SUFFIX)).read_text())
    assert source["silver_sentences"] == 3 and source["gold"] == str(gold)
    assert "3 sentences of" in silver_text(source) and str(gold) in silver_text(source)


def test_the_shipped_silver_model_card_says_what_its_training_file_holds():
    card = (MODELS / "ner" / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert "8,000 sentences of `../shared/data/lm/reuters21578_news.txt.xz`" in card


def test_pos_silver_sentences_are_written_as_ewt_pos_lines(tmp_path):
    text = tmp_path / "a.txt"
    text.write_text(TEXT, encoding="utf-8")
    out, gold = tmp_path / "train.pos", FIX / "ewt_sample.pos"
    assert main(["--teachers", str(MODELS / "pos"), "--text", str(text), "--gold", str(gold),
                 "--out", str(out)]) == 0
    silver = read_tagged(out)[len(read_tagged(gold)):]
    assert [s.words[:2] for s in silver] == [["Mr.", "Smith"], ["The", "European"]]
    tags = dict(zip(silver[1].words, silver[1].columns["pos"], strict=True))
    assert tags["Commission"] == "NNP" and tags["said"] == "VBD" and tags["on"] == "IN"


def test_chunk_silver_sentences_carry_wsj_pos_and_iob2_chunks(tmp_path):
    text = tmp_path / "a.txt"
    text.write_text(TEXT + "She wants to go; he said -- no.\n", encoding="utf-8")
    out, gold = tmp_path / "train.txt", FIX / "conll2000_sample.txt"
    assert main(["--teachers", str(MODELS / "chunk"), "--text", str(text), "--gold", str(gold),
                 "--out", str(out)]) == 0
    silver = read_conll2000(out)[len(read_conll2000(gold)):]
    assert len(silver) == 3
    first = list(zip(silver[0].words, silver[0].columns["pos"], silver[0].columns["chunk"],
                     strict=True))
    assert first[:2] == [("Mr.", "NNP", "B-NP"), ("Smith", "NNP", "I-NP")]
    pos = dict(zip(silver[2].words, silver[2].columns["pos"], strict=True))
    assert pos["to"] == "TO" and pos[";"] == ":" and pos["--"] == ":"   # WSJ, not EWT
    assert "pos" in json.loads((tmp_path / ("train.txt" + SOURCE_SUFFIX)).read_text())


def test_teachers_of_two_tasks_or_of_srl_are_refused(tmp_path, capsys):
    text = tmp_path / "a.txt"
    text.write_text(TEXT, encoding="utf-8")
    for teachers in (f"{MODELS / 'pos'},{MODELS / 'ner'}", str(MODELS / "vbs")):
        assert main(["--teachers", teachers, "--text", str(text),
                     "--out", str(tmp_path / "o")]) == 1
        assert "one task of ['chunk', 'ner', 'pos']" in capsys.readouterr().err


def test_a_missing_teacher_or_text_is_an_error_not_a_traceback(tmp_path, capsys):
    assert main(["--teachers", str(tmp_path / "none"), "--text", str(tmp_path / "x"),
                 "--out", str(tmp_path / "o")]) == 1
    assert "error:" in capsys.readouterr().err


def test_a_model_trained_on_a_silver_file_that_is_gone_still_finds_its_dev_set(tmp_path):
    # The shipped NER names runs/ner-silver/train.conll, which a fresh checkout lacks.
    from senna.scoring.inputs import recorded_dev_set
    settings = {"train": str(tmp_path / "runs/gone.conll"), "dev": str(FIX / "ner_small.conll"),
                "dev_fraction": 0.1, "extra_columns": None, "predicted_columns": None}
    config = json.loads((MODELS / "ner" / "config.json").read_text())   # a real model's
    config["training"]["config"].update(settings)
    (tmp_path / "config.json").write_text(json.dumps(config))
    _, dev = recorded_dev_set(tmp_path, tmp_path)
    assert len(dev) == len(read_conll2003(FIX / "ner_small.conll"))


def test_extra_training_sentences_never_reach_dev_and_the_card_names_them(tmp_path):
    """--extra-train: silver sentences join the training half after the dev sentences are
    cut from the gold file (CoNLL-2000 has no dev file: dev is its last 10%)."""
    pytest.importorskip("torch")
    from senna.datasets import load_splits
    from senna.tasks import get_task
    from senna.train.config import TrainConfig
    from senna.train.loop import train

    text = tmp_path / "a.txt"
    text.write_text(TEXT, encoding="utf-8")
    silver = tmp_path / "silver.txt"
    assert main(["--teachers", str(MODELS / "chunk"), "--text", str(text),
                 "--out", str(silver)]) == 0
    gold = FIX / "conll2000_sample.txt"
    tiny = dict(epochs=1, hidden=10, word_dim=8, batch_size=4, threads=1, features="basic")
    plain = TrainConfig(task="chunk", train=str(gold), **tiny)
    cfg = TrainConfig(task="chunk", train=str(gold), extra_train=str(silver),
                      out=str(tmp_path / "m"), **tiny)
    (tr0, dev0), (tr, dev) = load_splits(plain, get_task("chunk")), load_splits(
        cfg, get_task("chunk"))
    assert [s.words for s in dev] == [s.words for s in dev0] and dev
    assert [s.words for s in tr] == [s.words for s in tr0] + [s.words for s in
                                                              read_conll2000(silver)]
    train(cfg)
    card = (tmp_path / "m" / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert f"- More training sentences (never in dev): `{silver}`: 2 sentences of" in card
