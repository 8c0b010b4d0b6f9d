"""A model that loads is the model that was saved: corrupted copies of small and shipped
models give one `senna: error:` line naming the file (exit 1, nothing on stdout), never a
traceback, a MemoryError or wrong tags; the manifest's checksums catch valid-looking
changes."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import MODELS, build_models

from senna.cli.main import main as senna_main
from senna.io.checkpoint import load_model, save_model

SENTENCE = b"John Smith lives in New York .\n"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build_models(tmp_path_factory.mktemp("tiny"))


def copy_tiny(tiny: Path, tmp_path: Path) -> Path:
    shutil.copytree(tiny, tmp_path / "m")
    return tmp_path / "m"


def copy_shipped(tmp_path: Path, *tasks: str) -> Path:
    """Shipped models under tmp_path/m, their embeddings linked (a folder of its own)."""
    root = tmp_path / "m"
    root.mkdir()
    (root / "embeddings").symlink_to(MODELS / "embeddings")
    for task in tasks:
        shutil.copytree(MODELS / task, root / task)
    return root


def run(capsys, monkeypatch, root: Path, task: str, data: bytes = SENTENCE) -> tuple[int, str, str]:
    """`senna -path root -task` in-process -> (exit status, stdout, stderr)."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8"))
    code = senna_main(["-path", str(root), "-" + {"chunk": "chk"}.get(task, task)])
    sys.stdout.flush()
    return code, out.getvalue().decode(), capsys.readouterr().err


def fails(capsys, monkeypatch, root: Path, task: str, data: bytes = SENTENCE) -> str:
    """Expect exit 1, no output and one error line (after warnings); return the error."""
    code, out, err = run(capsys, monkeypatch, root, task, data)
    lines = [x for x in err.splitlines() if not x.startswith("senna: warning: ")]
    assert code == 1 and out == "", (code, out[:200], err)
    assert len(lines) == 1 and lines[0].startswith("senna: error: "), err
    return lines[0]


def edit_config(model: Path, edit) -> None:
    """Edit config.json and its manifest entry alike, as someone who rewrites both: the
    checks of the config's content are what then stands in the way."""
    from senna.io.manifest import digest

    config = json.loads((model / "config.json").read_text())
    edit(config)
    (model / "config.json").write_text(json.dumps(config, indent=1))
    if (model / "manifest.json").exists():
        manifest = json.loads((model / "manifest.json").read_text())
        manifest["files"]["config.json"] = digest(model / "config.json")
        (model / "manifest.json").write_text(json.dumps(manifest))


def edit_weights(model: Path, edit) -> None:
    with np.load(model / "weights.npz") as z:
        arrays = {k: z[k] for k in z.files}
    edit(arrays)
    np.savez(model / "weights.npz", **arrays)


def test_compressed_member_claiming_terabytes_is_refused_before_allocating(
        capsys, monkeypatch, tiny, tmp_path):
    root = copy_tiny(tiny, tmp_path)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (300_000, 1_000_000)})
    with zipfile.ZipFile(root / "pos" / "weights.npz", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("l1.weight.npy", header.getvalue() + bytes(1000))
    assert "pos/weights.npz: changed since the model was saved (207 bytes, saved with " \
        in fails(capsys, monkeypatch, root, "pos")     # its size, before it is read
    (root / "pos" / "manifest.json").unlink()             # checked without checksums
    err = fails(capsys, monkeypatch, root, "pos")
    assert "pos/weights.npz" in err and "l1.weight" in err and "(300000, 1000000)" in err


def test_an_ensembles_joined_layer_claiming_terabytes(tiny, tmp_path):
    from senna.io.saved_model import ModelError
    from senna.runtime.ensemble import ENSEMBLE_FILE, FORMAT, EnsembleModel

    shutil.copytree(tiny / "pos", tmp_path / "e" / "seed-1")
    spec = {"format": FORMAT, "version": 1, "members": ["seed-1"], "joined": "joined.npz",
            "combine": "joined"}
    (tmp_path / "e" / ENSEMBLE_FILE).write_text(json.dumps(spec))
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (300_000, 1_000_000)})
    with zipfile.ZipFile(tmp_path / "e" / "joined.npz", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("weight.npy", header.getvalue() + bytes(1000))
    with pytest.raises(ModelError, match=r"joined\.npz: weight\.npy is not as long as its "
                                         r"header says"):
        EnsembleModel.load(tmp_path / "e")


def test_compressed_member_claiming_more_than_deflate_can_hold(tmp_path):
    from senna.io.npz import load_npz

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (300_000, 1_000_000)})
    with zipfile.ZipFile(tmp_path / "a.npz", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.npy", header.getvalue() + bytes(1000))
    data = bytearray((tmp_path / "a.npz").read_bytes())
    # the central directory's uncompressed size, as the header claims (1.2 TB): zip64 not
    # needed to lie, a 32-bit field that says 4 GB will do
    at = data.rfind(b"PK\x01\x02")
    data[at + 24 : at + 28] = (0xFFFFFFF0).to_bytes(4, "little")
    (tmp_path / "a.npz").write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"a\.npz: a\.npy claims 4,294,967,280 bytes"):
        load_npz(tmp_path / "a.npz")


def test_absurd_weights_are_refused(capsys, monkeypatch, tiny, tmp_path):
    root = copy_tiny(tiny, tmp_path)
    edit_weights(root / "pos", lambda a: a["l2.weight"].__setitem__((0, 0), 3e38))
    assert "pos/weights.npz: changed since the model was saved (same size, different " \
        "content)" in fails(capsys, monkeypatch, root, "pos")   # checksum, before parsing
    (root / "pos" / "manifest.json").unlink()             # checked without checksums
    err = fails(capsys, monkeypatch, root, "pos")
    assert "pos/weights.npz: array 'l2.weight' holds 1 value beyond ±10000" in err


@pytest.mark.parametrize("divisor", [0, -2.0, "x", None, True])
def test_word_base_divisor_is_checked(capsys, monkeypatch, tmp_path, divisor):
    root = copy_shipped(tmp_path, "pos")
    edit_config(root / "pos", lambda c: c["word_base"].__setitem__("divisor", divisor))
    err = fails(capsys, monkeypatch, root, "pos")
    assert f"pos/config.json: word_base.divisor must be a positive number, got {divisor!r}" \
        in err


@pytest.mark.parametrize(("edit", "message"), [
    (lambda c: c.__setitem__("tags", list(range(len(c["tags"])))),
     "chunk/config.json: 'tags' must be a list of tag names"),
    (lambda c: c["tags"].__setitem__(1, "Q-NP"),
     "chunk/config.json: tag 'Q-NP' is not one of the iobes scheme"),
    (lambda c: c["net"].__setitem__("hidden", -1),
     "chunk/config.json: net.hidden must be a positive whole number, got -1"),
    (lambda c: c["net"].__setitem__("hidden", "6"),
     "chunk/config.json: net.hidden must be a positive whole number, got '6'"),
    (lambda c: c["features"][0].__setitem__("name", "../../word"),
     "chunk/config.json: features[0].name must be a plain file name"),
])
def test_config_fields_are_checked(capsys, monkeypatch, tiny, tmp_path, edit, message):
    root = copy_tiny(tiny, tmp_path)
    edit_config(root / "chunk", edit)
    assert message in fails(capsys, monkeypatch, root, "chunk")


def test_reordered_tags_are_a_changed_file(capsys, monkeypatch, tiny, tmp_path):
    root = copy_tiny(tiny, tmp_path)
    text = (root / "chunk" / "config.json").read_text()
    config = json.loads(text)
    config["tags"][1], config["tags"][2] = config["tags"][2], config["tags"][1]
    (root / "chunk" / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    assert len((root / "chunk" / "config.json").read_text()) == len(text)
    err = fails(capsys, monkeypatch, root, "chunk")
    assert "chunk/config.json: changed since the model was saved (same size, different " \
           "content); retrain or restore it" in err


def test_gazetteer_of_random_bytes(capsys, monkeypatch, tmp_path):
    root = copy_shipped(tmp_path, "ner")
    (root / "ner" / "gazetteer.lst").write_bytes(np.random.default_rng(0).bytes(5000))
    assert "ner/gazetteer.lst: changed since the model was saved" \
        in fails(capsys, monkeypatch, root, "ner")
    (root / "ner" / "manifest.json").unlink()   # checked without checksums
    assert "ner/gazetteer.lst: corrupt" in fails(capsys, monkeypatch, root, "ner")


@pytest.mark.parametrize(("content", "message"), [
    (b"root:x:0:0:root:/root:/bin/bash\n", "ner/gazetteer.lst:1: expected 'TYPE word ...'"),
    (b"PER John Smith\n", "ner/gazetteer.lst: no LOC entries, which feature gaz_LOC reads"),
])
def test_gazetteer_of_other_text(capsys, monkeypatch, tmp_path, content, message):
    root = copy_shipped(tmp_path, "ner")
    (root / "ner" / "manifest.json").unlink(missing_ok=True)   # checked without checksums
    (root / "ner" / "gazetteer.lst").write_bytes(content)
    assert message in fails(capsys, monkeypatch, root, "ner")


def test_gazetteer_linked_outside_the_model(capsys, monkeypatch, tmp_path):
    root = copy_shipped(tmp_path, "ner")
    outside = tmp_path / "passwd"
    outside.write_text("root:x:0:0:root:/root:/bin/bash\nlist:x:38:38:Mailing List Manager\n")
    (root / "ner" / "gazetteer.lst").unlink()
    (root / "ner" / "gazetteer.lst").symlink_to(outside)
    err = fails(capsys, monkeypatch, root, "ner")
    assert "ner/manifest.json: entry 'gazetteer.lst' leads outside" in err   # never hashed
    (root / "ner" / "manifest.json").unlink()
    err = fails(capsys, monkeypatch, root, "ner")
    assert "ner/gazetteer.lst: a link to" in err and "outside" in err


def test_links_inside_the_model_and_a_linked_model_folder_load(tiny, tmp_path):
    root = copy_tiny(tiny, tmp_path)
    (root / "pos" / "vocab" / "caps.lst").rename(root / "pos" / "caps.lst")
    (root / "pos" / "vocab" / "caps.lst").symlink_to(root / "pos" / "caps.lst")
    (tmp_path / "linked").symlink_to(root / "pos")
    assert load_model(tmp_path / "linked").task == "pos"


def test_truncated_clusters_npy_is_named(capsys, monkeypatch, tmp_path):
    root = copy_shipped(tmp_path, "ner")
    ids = root / "ner" / "clusters.npy"
    ids.write_bytes(ids.read_bytes()[:1000])
    err = fails(capsys, monkeypatch, root, "ner")
    assert "ner/clusters.npy" in err and "clusters.words" not in err


def test_duplicate_dictionary_entry_is_found_before_any_output(capsys, monkeypatch,
                                                               tmp_path):
    import gzip

    root = copy_shipped(tmp_path, "pos")
    words = root / "pos" / "vocab" / "word.lst.gz"    # compacted: gzip-compressed
    lines = gzip.decompress(words.read_bytes()).split(b"\n")
    lines[-2] = lines[5]          # the count stays right, the ids after it do not
    words.write_bytes(gzip.compress(b"\n".join(lines)))
    # a model saved before manifests: checked in full
    (root / "pos" / "manifest.json").unlink(missing_ok=True)
    err = fails(capsys, monkeypatch, root, "pos")
    assert "pos/vocab/word.lst.gz: lists an entry twice" in err


def test_every_shipped_directory_has_a_valid_manifest_and_a_finished_run():
    from senna.io.checkpoint import model_files
    from senna.io.manifest import verify
    from senna.text.tokenize import LANGUAGES

    dirs = sorted(p for p in MODELS.iterdir() if p.is_dir())
    assert {d.name for d in dirs} >= {"pos", "chunk", "ner", "pt0", "srl", "vbs", "embeddings"}
    languages = [p for p in dirs if p.name in LANGUAGES]    # es/ner, nl/ner: models too
    assert {p.name for p in languages} == {"es", "nl"}
    models = [p for p in dirs if p not in languages]
    models += [m for lang in languages for m in sorted(lang.iterdir())]
    for ensemble in [m for m in models if (m / "ensemble.json").exists()]:   # es/ner
        models.remove(ensemble)
        members = json.loads((ensemble / "ensemble.json").read_text())["members"]
        assert members, ensemble
        models += [ensemble / m for m in members]
    for d in models:
        if d.name == "embeddings":
            from senna.embeddings import embedding_files
            names = embedding_files(d)
        else:
            config = json.loads((d / "config.json").read_text())
            from senna.features.specs import FeatureSpec
            names = model_files(d, [FeatureSpec(**s) for s in config["features"]])
            assert config.get("training", {}).get("finished") is not False, \
                f"{d}: the best model so far of a training run that has not ended"
        assert verify(d, names), d


def test_changed_missing_and_unexpected_files_are_refused(capsys, monkeypatch, tiny, tmp_path):
    root = copy_tiny(tiny, tmp_path)
    pos = root / "pos"
    listed = json.loads((pos / "manifest.json").read_text())["files"]
    assert set(listed) == {"config.json", "weights.npz", "vocab/word.lst", "vocab/caps.lst"}
    words = (pos / "vocab" / "word.lst").read_bytes()
    (pos / "vocab" / "word.lst").write_bytes(words.replace(b"cat\n", b"cut\n"))
    assert "pos/vocab/word.lst: changed since the model was saved" \
        in fails(capsys, monkeypatch, root, "pos")
    (pos / "vocab" / "word.lst").write_bytes(words)
    (pos / "gazetteer.lst").write_text("LOC york\n")
    assert "pos/gazetteer.lst: not in manifest.json" in fails(capsys, monkeypatch, root, "pos")
    (pos / "gazetteer.lst").unlink()
    manifest = json.loads((pos / "manifest.json").read_text())
    manifest["files"]["clusters.lst"] = {"size": 1, "sha256": "0" * 64}
    (pos / "manifest.json").write_text(json.dumps(manifest))
    assert "pos/clusters.lst: missing" in fails(capsys, monkeypatch, root, "pos")


def test_a_model_without_manifest_loads_with_one_warning(capsys, monkeypatch, tiny, tmp_path):
    root = copy_tiny(tiny, tmp_path)
    (root / "pos" / "manifest.json").unlink(missing_ok=True)
    code, out, err = run(capsys, monkeypatch, root, "pos")
    assert code == 0 and out.count("\n") == 8
    assert err.count("\n") == 1 and err.startswith("senna: warning: ") and "pos" in err
    assert senna_main(["manifest", str(root / "pos")]) == 0
    capsys.readouterr()
    code, out, err = run(capsys, monkeypatch, root, "pos")
    assert code == 0 and err == ""


def test_every_save_writes_the_manifest(tiny, tmp_path):
    from senna.embeddings import save_embeddings

    model = load_model(tiny / "ner")
    save_model(tmp_path / "ner", model)
    (tmp_path / "ner" / "weights.npz").write_bytes(b"")
    save_model(tmp_path / "ner", model)          # a second save replaces the manifest
    assert load_model(tmp_path / "ner").tags == model.tags
    save_embeddings(tmp_path / "emb", ["a", "b"], np.ones((2, 3)))
    listed = json.loads((tmp_path / "emb" / "manifest.json").read_text())["files"]
    assert set(listed) == {"words.lst", "vectors.npz", "embeddings.json"}
    assert listed["words.lst"]["size"] == os.path.getsize(tmp_path / "emb" / "words.lst")


def test_embeddings_are_checked_like_models(tmp_path):
    from senna.embeddings import read_embeddings, save_embeddings

    emb = tmp_path / "emb"
    save_embeddings(emb, ["a", "b"], np.ones((2, 3)))
    (emb / "words.lst").write_text("b\na\n")
    with pytest.raises(ValueError, match=r"emb/words\.lst: changed since the model was saved"):
        read_embeddings(emb)
    (emb / "words.lst").write_text("a\nb\n")
    read_embeddings(emb)
    np.savez(emb / "vectors.npz", vectors=np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match=r"emb/vectors\.npz: changed since the model was "
                                         r"saved \(300 bytes, saved with 292\)"):
        read_embeddings(emb)
    (emb / "manifest.json").unlink()   # checked without checksums
    with pytest.raises(ValueError, match=r"emb/vectors\.npz: array 'vectors' \(float32, shape "
                                         r"\(2, 4\)\), expected .* shape \(2, 3\)"):
        read_embeddings(emb)
    save_embeddings(emb, ["a", "b"], np.ones((2, 3)))
    (tmp_path / "other.lst").write_text("a\nb\n")
    (emb / "words.lst").unlink()
    (emb / "words.lst").symlink_to(tmp_path / "other.lst")
    with pytest.raises(ValueError, match=r"emb/words\.lst: a link to .*, outside"):
        read_embeddings(emb)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_weight_limit_holds_for_every_layout(dtype):
    from senna.io.model_checks import WEIGHT_LIMIT, within_limit

    a = np.full((3, 4), WEIGHT_LIMIT, dtype=dtype)
    a[1, 1] = -WEIGHT_LIMIT
    assert within_limit(a, WEIGHT_LIMIT) and within_limit(a[:, ::2], WEIGHT_LIMIT)
    for bad in (np.nan, np.inf, -np.inf, -2 * WEIGHT_LIMIT):
        b = a.copy()
        b[2, 2] = bad
        assert not within_limit(b, WEIGHT_LIMIT) and not within_limit(b[:, ::2], WEIGHT_LIMIT)
