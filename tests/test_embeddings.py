"""Word vectors: text and directory formats, nearest neighbours, maps, and their CLIs, on tiny
hand-made embeddings whose answers are known."""

from __future__ import annotations

import gzip
import json
import lzma

import numpy as np
import pytest

from senna.cli.main import main
from senna.embeddings import (
    DEFAULT_EMBEDDINGS,
    find_word,
    frequency_rank,
    nearest_neighbors,
    normalize_key,
    project_2d,
    read_embeddings,
    read_metadata,
    save_embeddings,
    write_embeddings,
)

# Cities near each other, fruits near each other; PADDING/RARE placed to be the closest rows
# to 'paris' so that excluding them is tested.
WORDS = ["PADDING", "RARE", "paris", "london", "berlin", "apple", "pear", "NUMBER,NUMBER"]
VECTORS = np.array([
    [1.0, 0.05, 0.0],     # PADDING, almost 'paris'
    [1.0, 0.0, 0.05],     # RARE, almost 'paris'
    [1.0, 0.0, 0.0],      # paris
    [0.9, 0.2, 0.0],      # london
    [0.7, 0.5, 0.1],      # berlin
    [0.0, 0.1, 1.0],      # apple
    [0.1, 0.0, 0.9],      # pear
    [-1.0, -1.0, -1.0],   # NUMBER,NUMBER
], dtype=np.float32)


@pytest.fixture
def emb_dir(tmp_path):
    path = tmp_path / "emb"
    save_embeddings(path, WORDS, VECTORS, meta={"corpus": "tiny", "epochs": 3})
    return path


def test_directory_round_trip_float32_exact(emb_dir):
    words, vectors = read_embeddings(emb_dir)
    assert words == WORDS
    assert vectors.dtype == np.float32 and np.array_equal(vectors, VECTORS)
    meta = read_metadata(emb_dir)
    assert meta["format"] == "senna-embeddings" and meta["version"] == 1
    assert (meta["count"], meta["dim"], meta["dtype"]) == (8, 3, "float32")
    assert (meta["corpus"], meta["epochs"]) == ("tiny", 3)
    with np.load(emb_dir / "vectors.npz", allow_pickle=False) as z:
        assert list(z.keys()) == ["vectors"]
    assert (emb_dir / "words.lst").read_text(encoding="utf-8").split("\n")[:3] == WORDS[:3]
    assert read_embeddings(emb_dir, limit=3)[0] == WORDS[:3]


def test_float16_directory_within_1e_3(tmp_path):
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(8, 3)).astype(np.float32)
    save_embeddings(tmp_path / "h", WORDS, vectors, dtype="float16")
    with np.load(tmp_path / "h" / "vectors.npz", allow_pickle=False) as z:
        assert z["vectors"].dtype == np.float16
    words, back = read_embeddings(tmp_path / "h")
    assert back.dtype == np.float32
    np.testing.assert_allclose(back, vectors, atol=1e-3 * max(1.0, np.abs(vectors).max()))
    with pytest.raises(ValueError, match="too large for float16"):
        save_embeddings(tmp_path / "big", ["a"], np.array([[1e6]]), dtype="float16")
    with pytest.raises(ValueError, match="dtype"):
        save_embeddings(tmp_path / "f64", ["a"], np.array([[1.0]]), dtype="float64")


@pytest.mark.parametrize("name", ["vec.txt", "vec.txt.gz", "vec.txt.xz"])
def test_text_round_trip_exact(tmp_path, emb_dir, name):
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(8, 3)).astype(np.float32) / 7
    write_embeddings(tmp_path / name, WORDS, vectors)
    words, back = read_embeddings(tmp_path / name)
    assert words == WORDS                     # NUMBER, PADDING, RARE survive normalisation
    assert np.array_equal(back, vectors)
    save_embeddings(tmp_path / "dir", words, back)
    assert np.array_equal(read_embeddings(tmp_path / "dir")[1], vectors)


def test_compressed_text_is_really_compressed_and_read(tmp_path):
    (tmp_path / "g.txt.gz").write_bytes(gzip.compress(b"Paris 1 0\nLondon 0.5 0.5\n"))
    (tmp_path / "x.txt.xz").write_bytes(lzma.compress(b"2 2\nParis 1 0\nLondon 0.5 0.5\n"))
    for name in ("g.txt.gz", "x.txt.xz"):
        words, vectors = read_embeddings(tmp_path / name)
        assert words == ["paris", "london"] and vectors.shape == (2, 2)
    write_embeddings(tmp_path / "w.gz", ["a"], np.ones((1, 2)))
    assert gzip.decompress((tmp_path / "w.gz").read_bytes()).decode() == "1 2\na 1.0 1.0\n"
    (tmp_path / "bad.gz").write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match="bad.gz"):
        read_embeddings(tmp_path / "bad.gz")


def test_text_keys_are_normalised_first_wins(tmp_path):
    (tmp_path / "v.txt").write_text("Paris 1 0\nparis 0 1\n2010 3 3\nNUMBER 4 4\n")
    words, vectors = read_embeddings(tmp_path / "v.txt")
    assert words == ["paris", "NUMBER"] and vectors[0].tolist() == [1, 0]
    assert normalize_key("NUMBER,NUMBER") == "NUMBER,NUMBER" == normalize_key("12,000")
    assert normalize_key("Paris") == "paris" and normalize_key("RARE") == "RARE"


def test_unwritable_words_are_refused(tmp_path):
    with pytest.raises(ValueError, match="cannot store"):
        write_embeddings(tmp_path / "v.txt", ["new york"], np.ones((1, 2)))
    with pytest.raises(ValueError, match="cannot store"):
        save_embeddings(tmp_path / "d", ["a\nb"], np.ones((1, 2)))
    with pytest.raises(ValueError, match="twice"):
        save_embeddings(tmp_path / "d", ["a", "a"], np.ones((2, 2)))
    with pytest.raises(ValueError, match="2 words but 1 vectors"):
        save_embeddings(tmp_path / "d", ["a", "b"], np.ones((1, 2)))


def corrupt(path, how: str) -> None:
    if how == "no words":
        (path / "words.lst").unlink()
    elif how == "no vectors":
        (path / "vectors.npz").unlink()
    elif how == "no meta":
        (path / "embeddings.json").unlink()
    elif how == "bad npz":
        (path / "vectors.npz").write_bytes(b"PK\x03\x04 truncated")
    elif how == "truncated npz":
        data = (path / "vectors.npz").read_bytes()
        (path / "vectors.npz").write_bytes(data[: len(data) // 2])
    elif how == "pickled":
        np.savez(path / "vectors.npz", vectors=np.array([object()] * 8, dtype=object))
    elif how == "wrong name":
        np.savez(path / "vectors.npz", weights=VECTORS)
    elif how == "short words":
        (path / "words.lst").write_text("\n".join(WORDS[:-1]) + "\n", encoding="utf-8")
    elif how == "wrong dim":
        meta = json.loads((path / "embeddings.json").read_text())
        (path / "embeddings.json").write_text(json.dumps({**meta, "dim": 4}))
    elif how == "wrong count":
        meta = json.loads((path / "embeddings.json").read_text())
        (path / "embeddings.json").write_text(json.dumps({**meta, "count": 9}))
    elif how == "bad json":
        (path / "embeddings.json").write_text("{")
    elif how == "other format":
        (path / "embeddings.json").write_text(json.dumps({"format": "glove"}))
    elif how == "future version":
        meta = json.loads((path / "embeddings.json").read_text())
        (path / "embeddings.json").write_text(json.dumps({**meta, "version": 99}))
    elif how == "1-D":
        np.savez(path / "vectors.npz", vectors=VECTORS.ravel())
    elif how == "bad utf-8":
        (path / "words.lst").write_bytes(b"\xff\xfe\n" * 8)


@pytest.mark.parametrize("how", [
    "no words", "no vectors", "no meta", "bad npz", "truncated npz", "pickled", "wrong name",
    "short words", "wrong dim", "wrong count", "bad json", "other format", "future version",
    "1-D", "bad utf-8"])
def test_corrupt_directory_is_one_clear_value_error(emb_dir, how):
    corrupt(emb_dir, how)
    with pytest.raises(ValueError) as info:
        read_embeddings(emb_dir)
    message = str(info.value)
    assert str(emb_dir) in message and "\n" not in message


def test_nearest_neighbors_known_answer_and_exclusions():
    found = nearest_neighbors(WORDS, VECTORS, ["Paris", "apple", "xyzzy"], k=3)
    assert [w for w, _ in found["Paris"]] == ["london", "berlin", "pear"]
    assert [w for w, _ in found["apple"]] == ["pear", "berlin", "london"]
    assert found["xyzzy"] == []
    sims = [s for _, s in found["Paris"]]
    assert sims == sorted(sims, reverse=True)
    assert sims[0] == pytest.approx(0.9 / np.hypot(0.9, 0.2), abs=1e-6)
    everything = nearest_neighbors(WORDS, VECTORS, ["paris"], k=100)["paris"]
    assert {w for w, _ in everything} == set(WORDS) - {"paris", "PADDING", "RARE"}
    assert nearest_neighbors(WORDS, VECTORS, ["2,000"], k=1)["2,000"][0][0] == "paris"


def test_nearest_neighbors_matches_brute_force_on_random_vectors():
    rng = np.random.default_rng(2)
    words = ["PADDING", "RARE"] + [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(300)]
    vectors = rng.normal(size=(302, 5)).astype(np.float32)
    found = nearest_neighbors(words, vectors, [words[9]], k=10)[words[9]]
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = unit @ unit[9]
    order = [i for i in np.argsort(-sims) if i not in (0, 1, 9)][:10]
    assert [w for w, _ in found] == [words[i] for i in order]


def test_rank_and_lookup():
    assert find_word(WORDS, "LONDON") == 3 and find_word(WORDS, "rome") is None
    assert frequency_rank(WORDS, 2) == 1 and frequency_rank(WORDS, 4) == 3
    assert frequency_rank(["a", "b"], 1) == 2           # no special rows: external vectors


def test_project_2d():
    points = project_2d(VECTORS, "pca")
    assert points.shape == (8, 2)
    centred = VECTORS - VECTORS.mean(axis=0)
    _, s, _ = np.linalg.svd(centred)
    assert np.var(points[:, 0]) * 8 == pytest.approx(s[0] ** 2, rel=1e-5)
    assert project_2d(VECTORS[:1]).shape == (1, 2)
    with pytest.raises(ValueError, match="unknown projection"):
        project_2d(VECTORS, "umap")
    try:
        import sklearn  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="scikit-learn"):
            project_2d(VECTORS, "tsne")
    else:
        assert project_2d(VECTORS, "tsne").shape == (8, 2)


def test_default_location():
    assert DEFAULT_EMBEDDINGS.parts[-2:] == ("models", "embeddings")
    assert DEFAULT_EMBEDDINGS.parent.parent.name == "senna"


def test_cli_table(emb_dir, capsys):
    assert main(["neighbors", "PARIS", "apple", "-k", "2", "--embeddings", str(emb_dir)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split() == ["PARIS", "1", "apple", "4"]
    assert set(lines[1]) == {"-", " "}
    assert [line.split() for line in lines[2:]] == [["london", "pear"], ["berlin", "berlin"]]
    assert err == ""
    assert main(["neighbors", "paris", "-k", "1", "--scores", "--embeddings",
                 str(emb_dir)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[2] == f"london {0.9 / np.hypot(0.9, 0.2):.3f}"


def test_cli_unknown_words_and_exit_codes(emb_dir, tmp_path, capsys):
    assert main(["neighbors", "xyz", "paris", "--embeddings", str(emb_dir)]) == 0
    out, err = capsys.readouterr()
    assert err == "senna: 'xyz' is not in the dictionary\n"
    assert out.splitlines()[0] == "paris 1"
    assert main(["neighbors", "xyz", "qqq", "--embeddings", str(emb_dir)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("is not in the dictionary") == 2
    assert main(["neighbors", "paris", "--embeddings", str(tmp_path / "none")]) == 1
    assert capsys.readouterr().err.startswith("senna: error: ")
    corrupt(emb_dir, "short words")
    assert main(["neighbors", "paris", "--embeddings", str(emb_dir)]) == 1
    assert "8 words but" not in capsys.readouterr().err    # 7 words, 8 vectors
    if not DEFAULT_EMBEDDINGS.exists():
        assert main(["neighbors", "paris"]) == 1
        assert "--embeddings" in capsys.readouterr().err


def test_cli_json(emb_dir, capsys):
    assert main(["neighbors", "paris", "NOPE", "-k", "2", "--format", "json",
                 "--embeddings", str(emb_dir)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["paris"]
    assert data["paris"]["rank"] == 1
    assert [n["word"] for n in data["paris"]["neighbors"]] == ["london", "berlin"]


def test_cli_plot(emb_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "map.png"
    assert main(["neighbors", "paris", "apple", "-k", "2", "--embeddings", str(emb_dir),
                 "--plot", str(out), "--with-neighbors"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 1000
    assert "map of 5 words" in capsys.readouterr().err   # pear and berlin drawn once


def test_cli_export_round_trip(emb_dir, tmp_path, capsys):
    text = tmp_path / "vec.txt.gz"
    assert main(["export-embeddings", "--from", str(emb_dir), "--to", str(text)]) == 0
    assert read_embeddings(text)[0] == WORDS
    back = tmp_path / "back"
    assert main(["export-embeddings", "--from", str(text), "--to", str(back),
                 "--dtype", "float16", "--limit", "5"]) == 0
    words, vectors = read_embeddings(back)
    assert words == WORDS[:5]
    np.testing.assert_allclose(vectors, VECTORS[:5], atol=1e-3)
    meta = read_metadata(back)
    assert (meta["dtype"], meta["limit"], meta["count"]) == ("float16", 5, 5)
    again = tmp_path / "again"
    assert main(["export-embeddings", "--from", str(emb_dir), "--to", str(again),
                 "--format", "senna"]) == 0
    assert read_metadata(again)["corpus"] == "tiny"
    assert np.array_equal(read_embeddings(again)[1], VECTORS)
    capsys.readouterr()
    assert main(["export-embeddings", "--from", str(emb_dir), "--to", str(tmp_path / "t.txt"),
                 "--dtype", "float16"]) == 2       # a usage error
    assert "--dtype" in capsys.readouterr().err


def test_shipped_embeddings_put_related_words_together():
    """The shipped language-model embeddings: Table 7's query words have related neighbours."""
    from senna.embeddings import DEFAULT_EMBEDDINGS, read_metadata

    if not DEFAULT_EMBEDDINGS.is_dir():
        pytest.skip("no shipped embeddings")
    words, vectors = read_embeddings(DEFAULT_EMBEDDINGS)
    assert len(words) >= 100_000 and vectors.shape[1] == 50
    assert read_metadata(DEFAULT_EMBEDDINGS)["history"][-1]["error"] < 0.02
    near = nearest_neighbors(words, vectors, ["france", "monday", "red", "megabits"], k=10)
    expect = {"france": {"germany", "spain", "italy", "russia", "england", "ireland",
                         "austria", "poland", "europe", "britain"},
              "monday": {"tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"},
              "red": {"blue", "green", "yellow", "white", "black", "orange", "purple"},
              "megabits": {"gigabytes", "terabytes", "megabytes", "kilobytes", "gb/s", "mb/s"}}
    for query, related in expect.items():
        got = {w for w, _ in near[query]}
        assert len(got & related) >= 2, (query, got)
