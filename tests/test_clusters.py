"""Word clusters (senna.lm.clusters, senna.features.kinds.ClusterFeature): the lexicon's file and
keys, the feature's ids, k-means, the tokenised text, and refusals of what cannot work."""

import shutil

import numpy as np
import pytest
from conftest import FIX

from senna.features import specs as F
from senna.features.featurizer import Featurizer
from senna.features.kinds import ClusterFeature
from senna.features.lexicons import Lexicon, cluster_key
from senna.io.checkpoint import load_model
from senna.io.saved_model import ModelError
from senna.lm.clusters import kmeans, tokenise
from senna.tasks import get_task
from senna.vocab import Vocab

LEX = Lexicon((4, 8), {"May": (1, 5), "may": (2, 6), "0,000": (3, 7), "the": (0, 0)})


def featurizer(specs, lexicon=LEX) -> Featurizer:
    return Featurizer.fit(specs, [], words=None, lexicon=lexicon)


def test_keys_keep_case_and_write_digits_as_zero():
    assert cluster_key("1,250") == "0,000"
    assert cluster_key("May") == "May" and cluster_key("B52s") == "B00s"


def test_ids_are_the_cluster_of_the_word_as_written_and_rare_outside():
    fz = featurizer([F.word(4), *F.clusters(4), *F.clusters(8)])
    ids = fz.encode(["May", "may", "7,500", "MAY", "12,500"])
    unk, first = Vocab.unk_id, 2   # cluster c is the vocabulary's item str(c), id c + 2
    assert ids[:, 1].tolist() == [1 + first, 2 + first, 3 + first, unk, unk]
    assert ids[:, 2].tolist() == [5 + first, 6 + first, 7 + first, unk, unk]


def test_presets_add_one_table_per_granularity():
    names = [s.name for s in get_task("ner").features("senna+clusters")]
    assert names[-3:] == ["cluster64", "cluster512", "cluster4096"]
    assert [s.name for s in get_task("pos").features("senna+clusters:512")][-1] == "cluster512"
    with pytest.raises(ValueError):
        get_task("pos").features("senna+clusters:64:8")


def test_lexicon_round_trips_and_bad_files_are_refused(tmp_path):
    LEX.save(tmp_path / "c.lst")
    again = Lexicon.load(tmp_path / "c.lst")
    assert again.sizes == [4, 8] and again.entries == LEX.entries
    for text in (b"word\t1\n", b"#clusters 4\nMay\t9\n", b"#clusters 4 8\nMay\t1\n", b"",
                 b"#clusters x\n", b"#clusters 4\nMay\t1\nMay\t2\n", b"#clusters 4\nM\xe9\t1\n",
                 b"#clusters 4\nMay\t-1\n", b"#clusters\n", b"#clusters 4\nMa y\t1\n",
                 b"#clusters 4\nMay\t1\r\n", b"#clusters 4\nMay\t\n", b"#clusters 4\n\t1\n",
                 b"#clusters 4\nMay\t1\t2\n", b"#clusters 4 8\nMay\t1\t\t2\n",
                 b"#clusters 4\nMay\t1\n\nmay\t2\n", b"#clusters 4\nMay 1\n"):
        (tmp_path / "bad.lst").write_bytes(text)
        with pytest.raises(ValueError, match="not a cluster lexicon"):
            Lexicon.load(tmp_path / "bad.lst")


def test_a_cluster_feature_needs_a_lexicon_of_its_size():
    with pytest.raises(ValueError, match="--clusters"):
        featurizer([*F.clusters(4)], lexicon=None)
    with pytest.raises(ValueError, match="16 clusters"):
        featurizer([*F.clusters(16)])
    assert isinstance(featurizer([*F.clusters(8)]).kinds[0], ClusterFeature)


@pytest.mark.slow
def test_a_model_with_a_corrupt_lexicon_is_a_model_error(tmp_path):
    pytest.importorskip("torch")
    from senna.train.config import TrainConfig
    from senna.train.loop import train

    out = tmp_path / "m"
    train(TrainConfig(task="ner", train=str(FIX / "ner_small.conll"), dev_fraction=0.3,
                      out=str(out), epochs=1, hidden=8, word_dim=4, threads=1,
                      features="basic+clusters:64", clusters=str(FIX / "clusters_small.lst")))
    lexicon = load_model(out).featurizer.lexicon
    assert lexicon.sizes == [64, 512, 4096]
    assert {p.name for p in out.glob("clusters.*")} == {"clusters.words", "clusters.npy"}
    # a model of session 25 kept the text lexicon: it still loads, to the same lexicon
    old = tmp_path / "old"
    shutil.copytree(out, old)
    for name in ("clusters.words", "clusters.npy", "manifest.json"):
        (old / name).unlink()
    lexicon.save(old / "clusters.lst")
    assert load_model(old).featurizer.lexicon.entries == lexicon.entries
    words = (out / "clusters.words").read_bytes()
    header, _, keys = words.partition(b"\n")
    for name, content in (("clusters.lst", None), ("clusters.npy", b"not an array"),
                          ("clusters.npy", np.zeros((3, 3), np.int64)),
                          ("clusters.npy", np.full((len(keys.split()), 3), 64, np.uint16)),
                          ("clusters.npy", np.zeros((2, 3), np.uint16)),
                          ("clusters.words", b"word\n"), ("clusters.words", header + b"\n\xff\n")):
        broken = tmp_path / "broken"
        shutil.rmtree(broken, ignore_errors=True)
        shutil.copytree(out if content is not None else old, broken)
        if content is None:   # the text lexicon of an older model, corrupt
            (broken / name).write_text("#clusters 64\nword\tnot-a-number\n")
        elif isinstance(content, bytes):
            (broken / name).write_bytes(content)
        else:
            np.save(broken / name, content)
        with pytest.raises(ModelError, match="corrupt"):
            load_model(broken)


def test_kmeans_separates_well_apart_directions():
    rng = np.random.default_rng(0)
    centres = np.eye(3) * 10
    x = np.concatenate([c + rng.normal(size=(50, 3)) for c in centres])
    ids = kmeans(x, 3, seed=2)
    groups = [set(ids[i * 50:(i + 1) * 50].tolist()) for i in range(3)]
    assert all(len(g) == 1 for g in groups) and len(set.union(*groups)) == 3


def test_tokenised_text_keeps_case_and_is_the_taggers_tokens(tmp_path):
    src = tmp_path / "raw.txt"
    src.write_text("Mr. Smith paid $1,250 in May.\n\nThe end.\n", encoding="utf-8")
    text = tokenise([src], tmp_path / "out", workers=1, shards=2, progress=False)
    assert text.read_text(encoding="utf-8").split("\n") == [
        "Mr. Smith paid $ 0,000 in May .", "The end .", ""]


def test_build_clusters_the_frequent_words_into_a_lexicon_the_feature_reads(tmp_path):
    pytest.importorskip("gensim")   # not a test dependency: skipped where it is missing
    from senna.lm.clusters import build

    text = tmp_path / "text.txt"
    rng = np.random.default_rng(0)
    days, names = ["Monday", "Tuesday", "Friday"], ["Smith", "Jones", "Brown"]
    text.write_text("".join(f"on {rng.choice(days)} Mr. {rng.choice(names)} left .\n"
                            for _ in range(300)), encoding="utf-8")
    out = build(text, tmp_path / "c", sizes=(2, 3), words=8, dim=8, epochs=2, min_count=1,
                workers=1)
    lexicon = Lexicon.load(out / "clusters.lst")
    assert lexicon.sizes == [2, 3] and len(lexicon.entries) == 8
    assert featurizer([*F.clusters(3)], lexicon).encode(["Smith", "nobody"])[1, 0] == 1


@pytest.mark.parametrize("args, message", [
    (["--sizes", "abc"], "--sizes: expected numbers"),
    (["--sizes", "64,1"], "at least 2"),
    (["--sizes", "64", "--words", "10"], "at most --words"),
])
def test_senna_lm_clusters_refuses_bad_settings_in_one_line(tmp_path, capsys, args, message):
    from senna.cli.main import main

    src = tmp_path / "raw.txt"
    src.write_text("Some text .\n", encoding="utf-8")
    assert main(["lm", "clusters", str(src), "--out", str(tmp_path / "c"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("senna: error:") and message in err and "Traceback" not in err
