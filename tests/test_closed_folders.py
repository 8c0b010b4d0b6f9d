"""Model folders are closed worlds: every path a model names (ensemble members, the
parser's own taggers, its embeddings, manifest entries) stays inside its folder; sizes are
checked before a file is parsed and every read is bounded; a FIFO, a symlink loop or deeply
nested JSON is one error line, never a hang or a traceback; settings that would make the
tags meaningless are refused; the manifest records ensembles and the parser's sub-folders."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import MODELS
from test_model_files import copy_shipped, copy_tiny, edit_config, fails, run

from senna.cli.main import main as senna_main
from senna.io.checkpoint import load_model
from senna.io.manifest import ManifestError, read_json, verify
from senna.io.saved_model import ModelError
from senna.runtime.ensemble import ENSEMBLE_FILE, FORMAT, EnsembleModel, load_tagger


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    from conftest import build_models
    return build_models(tmp_path_factory.mktemp("tiny"))


@contextlib.contextmanager
def no_hang(seconds: int = 20) -> Iterator[None]:
    """Fail (rather than hang the run) if the body blocks, e.g. on a FIFO."""
    def stop(*_):
        raise AssertionError(f"blocked for {seconds} s")
    before = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def ensemble(tiny: Path, tmp_path: Path, members: object, task: str = "ner") -> Path:
    """tmp_path/e: an ensemble.json naming `members`, with seed-1 and seed-2 copies of the
    tiny `task` model inside."""
    root = tmp_path / "e"
    for seed in ("seed-1", "seed-2"):
        shutil.copytree(tiny / task, root / seed)
    spec = {"format": FORMAT, "version": 1, "task": task, "members": members,
            "combine": "mean"}
    (root / ENSEMBLE_FILE).write_text(json.dumps(spec))
    return root


# -- paths that lead out of the folder --------------------------------------------------

@pytest.mark.parametrize(("members", "message"), [
    (["seed-1", "../../ner"], "member '../../ner' leads outside"),
    (["seed-1", "{tiny}/ner"], "is an absolute path"),
    ([5], "members[0] must be a folder's name, got 5"),
    (["seed-1"] * 2000, "2,000 members, more than 64"),
    (["seed-1", "seed-1"], "member 'seed-1' is listed twice"),
    (["seed-1", "./seed-1"], "member './seed-1' is listed twice"),
    (["seed-1", "."], "member '.' is not a model's folder"),
    ([], "'members' must be a non-empty list"),
])
def test_bad_members_are_refused(tiny, tmp_path, members, message):
    members = [m.format(tiny=tiny) if isinstance(m, str) else m for m in members]
    root = ensemble(tiny, tmp_path, members)
    (root / "vocab").mkdir()
    with pytest.raises(ModelError, match="^" + str(root / ENSEMBLE_FILE)) as e:
        load_tagger(root)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_member_linked_out_of_the_folder_is_refused(tiny, tmp_path):
    root = ensemble(tiny, tmp_path, ["seed-1", "other"])
    (root / "other").symlink_to(tiny / "ner")
    with pytest.raises(ModelError, match="member 'other' leads outside"):
        load_tagger(root)


def test_a_member_of_another_task_is_refused(tiny, tmp_path):
    root = ensemble(tiny, tmp_path, ["seed-1", "seed-2"], task="pos")
    spec = json.loads((root / ENSEMBLE_FILE).read_text())
    (root / ENSEMBLE_FILE).write_text(json.dumps({**spec, "task": "ner"}))
    with pytest.raises(ModelError, match="member 'seed-1' is a pos model, the ensemble's "
                                         "task is ner"):
        EnsembleModel.load(root)


def test_a_joined_layer_outside_is_refused(tiny, tmp_path):
    root = ensemble(tiny, tmp_path, ["seed-1", "seed-2"])
    spec = json.loads((root / ENSEMBLE_FILE).read_text())
    (root / ENSEMBLE_FILE).write_text(json.dumps({**spec, "joined": "../x.npz",
                                                  "combine": "joined"}))
    with pytest.raises(ModelError, match=r"joined '\.\./x\.npz' leads outside"):
        EnsembleModel.load(root)


def test_spanish_ner_cannot_name_the_english_model(capsys, monkeypatch, tmp_path):
    root = copy_shipped(tmp_path, "ner")
    shutil.copytree(MODELS / "es", root / "es")
    spec = json.loads((root / "es" / "ner" / ENSEMBLE_FILE).read_text())
    (root / "es" / "ner" / "manifest.json").unlink()
    (root / "es" / "ner" / ENSEMBLE_FILE).write_text(json.dumps(
        {**spec, "members": ["../../ner"]}))
    err = fails(capsys, monkeypatch, root / "es", "ner")
    assert "es/ner/ensemble.json: member '../../ner' leads outside" in err


@pytest.mark.parametrize("entry", ["../../../../../../etc/passwd", "/etc/passwd",
                                   "vocab/../../x"])
def test_manifest_entries_outside_the_folder_are_refused(capsys, monkeypatch, tiny,
                                                         tmp_path, entry):
    root = copy_tiny(tiny, tmp_path)
    manifest = json.loads((root / "pos" / "manifest.json").read_text())
    manifest["files"][entry] = {"size": os.path.getsize("/etc/passwd"), "sha256": "0" * 64}
    (root / "pos" / "manifest.json").write_text(json.dumps(manifest))
    err = fails(capsys, monkeypatch, root, "pos")
    assert f"pos/manifest.json: entry {entry!r} is not a path inside" in err


def test_a_manifest_entry_linked_outside_is_refused(tiny, tmp_path):
    root = copy_tiny(tiny, tmp_path)
    (root / "pos" / "vocab" / "out").symlink_to(tmp_path)
    manifest = json.loads((root / "pos" / "manifest.json").read_text())
    manifest["files"]["vocab/out/x"] = {"size": 1, "sha256": "0" * 64}
    (root / "pos" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ManifestError, match=r"entry 'vocab/out/x' leads outside"):
        verify(root / "pos", [])


@pytest.mark.parametrize(("where", "message"), [
    ("/tmp", "word_base.embeddings '/tmp' is an absolute path"),
    ("../../embeddings-x", "word_base.embeddings '../../embeddings-x' leads outside"),
    ("../../../../etc", "word_base.embeddings '../../../../etc' leads outside"),
])
def test_embeddings_outside_the_folder_are_refused(capsys, monkeypatch, tmp_path, where,
                                                   message):
    root = copy_shipped(tmp_path, "pos")
    edit_config(root / "pos", lambda c: c["word_base"].__setitem__("embeddings", where))
    assert message in fails(capsys, monkeypatch, root, "pos")


def test_the_shared_embeddings_beside_the_models_still_load(tmp_path):
    root = copy_shipped(tmp_path, "pos")
    assert load_model(root / "pos").task == "pos"   # ../embeddings: the folder of models'


# -- the parser's own taggers ------------------------------------------------------------

@pytest.fixture()
def parser_copy(tmp_path) -> Path:
    root = copy_shipped(tmp_path)
    shutil.copytree(MODELS / "psg", root / "psg")
    return root / "psg"


def test_a_deleted_sub_model_of_the_parser_is_an_error(parser_copy):
    shutil.rmtree(parser_copy / "pt0")
    with pytest.raises(ModelError, match=r"psg/pt0: a sub-model deleted since .*psg was "
                                         r"saved; restore it"):
        load_tagger(parser_copy)


def test_a_replaced_sub_model_of_the_parser_is_an_error(parser_copy, tmp_path):
    shutil.rmtree(parser_copy / "nml")
    shutil.copytree(MODELS / "psg" / "pt0", parser_copy / "nml")
    with pytest.raises(ModelError, match=r"psg/nml: a sub-model replaced since"):
        load_tagger(parser_copy)


def test_a_sub_model_linked_outside_the_parser_is_refused(parser_copy, tmp_path):
    shutil.rmtree(parser_copy / "pt0")
    shutil.copytree(MODELS / "psg" / "pt0", tmp_path / "pt0")
    (parser_copy / "pt0").symlink_to(tmp_path / "pt0")
    with pytest.raises(ModelError, match=r"psg/manifest\.json: entry 'pt0/manifest\.json' "
                                         "leads outside"):
        load_tagger(parser_copy)


def test_a_sub_model_added_after_the_save_warns_until_recorded(parser_copy, capsys):
    shutil.rmtree(parser_copy / "nml")
    senna_main(["manifest", str(parser_copy)])
    shutil.copytree(MODELS / "psg" / "nml", parser_copy / "nml")   # trained in later
    capsys.readouterr()
    assert load_tagger(parser_copy).flattened
    assert "psg/nml: a sub-model not in" in capsys.readouterr().err
    assert senna_main(["manifest", str(parser_copy)]) == 0
    capsys.readouterr()
    assert load_tagger(parser_copy).flattened and capsys.readouterr().err == ""
    shutil.rmtree(parser_copy / "nml")
    with pytest.raises(ModelError, match="psg/nml: a sub-model deleted"):
        load_tagger(parser_copy)


def test_the_manifest_records_an_ensemble(tiny, tmp_path, capsys):
    root = ensemble(tiny, tmp_path, ["seed-1", "seed-2"])
    assert senna_main(["manifest", str(root)]) == 0
    listed = json.loads((root / "manifest.json").read_text())["files"]
    assert set(listed) == {ENSEMBLE_FILE, "seed-1/manifest.json", "seed-2/manifest.json"}
    capsys.readouterr()
    assert len(load_tagger(root).members) == 2 and capsys.readouterr().err == ""
    spec = json.loads((root / ENSEMBLE_FILE).read_text())
    (root / ENSEMBLE_FILE).write_text(json.dumps({**spec, "members": ["seed-2", "seed-1"]}))
    with pytest.raises(ModelError, match=r"e/ensemble\.json: changed since the model was "
                                         r"saved \(same size, different content\)"):
        load_tagger(root)


def test_the_shipped_parser_and_ensemble_record_their_sub_models():
    for folder, subs in (("psg", {"pt0", "nml"}), ("es/ner", {"seed-1", "seed-2", "seed-3"})):
        listed = json.loads((MODELS / folder / "manifest.json").read_text())["files"]
        assert {n.split("/")[0] for n in listed if n.endswith("/manifest.json")} == subs
        assert verify(MODELS / folder, list(listed))


# -- sizes before parsing, bounded reading -----------------------------------------------

def newline_bomb(file: Path, megabytes: int) -> None:
    """A gzip of `megabytes` MB of newlines (1,000 times smaller)."""
    block = gzip.compress(b"\n" * (1 << 20), compresslevel=9)
    file.write_bytes(block * megabytes)   # gzip members, one after another


def test_a_vocabulary_bomb_is_refused_by_its_size_before_decompressing(
        capsys, monkeypatch, tmp_path):
    root = copy_shipped(tmp_path, "pos")
    newline_bomb(root / "pos" / "vocab" / "word.lst.gz", 200)
    monkeypatch.setattr(gzip, "decompress", None)          # never reached
    err = fails(capsys, monkeypatch, root, "pos")
    assert "pos/vocab/word.lst.gz: changed since the model was saved" in err
    assert "saved with 547,801)" in err


def test_without_a_manifest_a_vocabulary_stops_at_its_limit(capsys, monkeypatch, tmp_path):
    from senna import vocab

    root = copy_shipped(tmp_path, "pos")
    (root / "pos" / "manifest.json").unlink()
    line = b"x" * 999 + b"\n"   # long lines: the byte limit comes before the lines' count
    (root / "pos" / "vocab" / "word.lst.gz").write_bytes(gzip.compress(line * 20_000))
    monkeypatch.setattr(vocab, "MAX_BYTES", 4 << 20)
    err = fails(capsys, monkeypatch, root, "pos")
    assert "pos/vocab/word.lst.gz: more than 4,194,304 bytes once decompressed" in err


def test_a_long_plain_vocabulary_is_refused_unread(monkeypatch, tmp_path):
    from senna import vocab

    file = tmp_path / "word.lst"
    file.write_bytes(b"PADDING\nRARE\n" + b"x\n" * 600_000)
    monkeypatch.setattr(vocab, "MAX_BYTES", 1 << 20)
    with pytest.raises(ValueError, match=r"word\.lst: 1,200,013 bytes, more than a "
                                         r"vocabulary may have \(1,048,576\)"):
        vocab.Vocab.load(file)


# -- FIFOs, symlink loops, deep JSON -----------------------------------------------------

@pytest.mark.parametrize("name", ["config.json", "weights.npz", "vocab/word.lst",
                                  "manifest.json"])
@pytest.mark.parametrize("sealed", [True, False])
def test_a_fifo_is_one_line_not_a_hang(capsys, monkeypatch, tiny, tmp_path, name, sealed):
    root = copy_tiny(tiny, tmp_path)
    if not sealed and name != "manifest.json":
        (root / "pos" / "manifest.json").unlink()
    (root / "pos" / name).unlink()
    os.mkfifo(root / "pos" / name)
    with no_hang():
        err = fails(capsys, monkeypatch, root, "pos")
    assert f"pos/{name}: a FIFO, where a regular file is expected" in err or \
        f"pos/{name}: not in manifest" in err, err


@pytest.mark.parametrize("name", ["config.json", "weights.npz", "vocab/word.lst",
                                  "gazetteer.lst"])
def test_a_symlink_loop_is_one_line(capsys, monkeypatch, tiny, tmp_path, name):
    root = copy_tiny(tiny, tmp_path)
    (root / "ner" / name).unlink(missing_ok=True)
    (root / "ner" / name).symlink_to(root / "ner" / name)
    err = fails(capsys, monkeypatch, root, "ner")
    assert f"ner/{name}: a symlink loop" in err, err


def test_a_member_that_is_a_symlink_loop(tiny, tmp_path):
    root = ensemble(tiny, tmp_path, ["seed-1", "loop"])
    (root / "loop").symlink_to(root / "loop")
    with pytest.raises(ModelError, match="loop: a symlink loop"):
        load_tagger(root)


def test_embeddings_words_in_a_symlink_loop(tmp_path):
    from senna.embeddings import read_embeddings, save_embeddings

    save_embeddings(tmp_path / "emb", ["a", "b"], [[1.0, 2.0], [3.0, 4.0]])
    (tmp_path / "emb" / "words.lst").unlink()
    (tmp_path / "emb" / "words.lst").symlink_to(tmp_path / "emb" / "words.lst")
    with pytest.raises(ValueError, match="words.lst: a symlink loop"):
        read_embeddings(tmp_path / "emb")


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("name", ["config.json", "manifest.json"])
def test_deep_json_in_a_model_is_one_line(capsys, monkeypatch, tiny, tmp_path, name):
    root = copy_tiny(tiny, tmp_path)
    (root / "pos" / name).write_text(DEEP)
    if name == "config.json":   # refused by its size first, then without a manifest
        assert "pos/config.json: changed since the model was saved (200,000 bytes" \
            in fails(capsys, monkeypatch, root, "pos")
        (root / "pos" / "manifest.json").unlink()
    err = fails(capsys, monkeypatch, root, "pos")
    assert f"pos/{name}: corrupt (nested more than 64 deep)" in err


def test_deep_json_in_an_ensemble_and_embeddings(tiny, tmp_path):
    from senna.embeddings import read_embeddings, save_embeddings

    root = ensemble(tiny, tmp_path, ["seed-1"])
    (root / ENSEMBLE_FILE).write_text('{"format": ' + DEEP + "}")
    with pytest.raises(ModelError, match=r"ensemble\.json: corrupt \(nested more than 64"):
        load_tagger(root)
    save_embeddings(tmp_path / "emb", ["a", "b"], [[1.0, 2.0], [3.0, 4.0]])
    (tmp_path / "emb" / "manifest.json").unlink()
    (tmp_path / "emb" / "embeddings.json").write_text(DEEP)
    with pytest.raises(ValueError, match=r"embeddings\.json: .*nested more than 64"):
        read_embeddings(tmp_path / "emb")


def test_the_json_reader_keeps_brackets_in_strings_apart(tmp_path):
    file = tmp_path / "a.json"
    file.write_text(json.dumps({"text": "[" * 1000 + '\\"', "deep": [[["x"]]]}))
    assert read_json(file)["deep"] == [[["x"]]]


# -- settings that would change the tags beyond sense ------------------------------------

@pytest.mark.parametrize("divisor", [1e-300, 1e-6])
def test_a_divisor_that_blows_the_embeddings_up_is_refused(capsys, monkeypatch, tmp_path,
                                                          divisor):
    root = copy_shipped(tmp_path, "pos")
    (root / "pos" / "manifest.json").unlink()   # as if sealed so: `senna manifest` refuses
    edit_config(root / "pos", lambda c: c["word_base"].__setitem__("divisor", divisor))
    assert senna_main(["manifest", str(root / "pos")]) == 1
    assert "word_base.divisor" in capsys.readouterr().err
    err = fails(capsys, monkeypatch, root, "pos")
    assert f"pos/config.json: word_base.divisor {divisor!r} scales the embeddings' values" \
        in err and "beyond ±10000" in err


@pytest.mark.parametrize("arg", ["100000", "0", "-1", "x", "²"])
def test_an_absurd_suffix_length_is_refused(capsys, monkeypatch, tmp_path, arg):
    root = copy_shipped(tmp_path, "pos")

    def edit(c):
        spec = next(f for f in c["features"] if f["kind"] == "suffix")
        spec["arg"] = arg
    edit_config(root / "pos", edit)
    err = fails(capsys, monkeypatch, root, "pos")
    assert "a suffix feature's arg must be a whole number from 1 to 64" in err


@pytest.mark.parametrize("tag", ["B-N(P", "S-NP*", "I-NP)", "E-NP##VP"])
def test_a_parser_tag_outside_its_grammar_is_refused(parser_copy, tag):
    edit_config(parser_copy, lambda c: c["tags"].__setitem__(3, tag))
    with pytest.raises(ModelError, match=re.escape(f"psg/config.json: tag {tag!r} is not "
                                                   "a parser's tag")):
        load_tagger(parser_copy)


def test_the_shipped_models_load_without_a_word(capsys, monkeypatch):
    for task in ("pos", "psg"):
        code, out, err = run(capsys, monkeypatch, MODELS, task)
        assert code == 0 and out and err == "", err


def same_size_edit(file: Path, old: bytes, new: bytes) -> None:
    """Replace `old` by `new` (as long) in `file`: a change only the checksum tells."""
    assert len(old) == len(new)
    data = file.read_bytes()
    assert old in data
    file.write_bytes(data.replace(old, new, 1))


def test_checksums_are_compared_before_any_file_is_parsed(capsys, monkeypatch, tiny,
                                                          tmp_path):
    """A file of its recorded size but other content is refused by its checksum before
    anything is parsed: a config.json that would fail its own checks, a vocabulary that
    would not decompress."""
    root = copy_tiny(tiny, tmp_path)
    same_size_edit(root / "pos" / "config.json", b'"senna-model"', b'"senna-mOdel"')
    err = fails(capsys, monkeypatch, root, "pos")
    assert err.endswith("pos/config.json: changed since the model was saved (same size, "
                        "different content); retrain or restore it"), err
    shutil.copy(tiny / "pos" / "config.json", root / "pos" / "config.json")
    vocab = next((root / "pos" / "vocab").iterdir())
    vocab.write_bytes(b"\0" * vocab.stat().st_size)    # no list, no gzip: unparseable
    with pytest.raises(ModelError, match=rf"{re.escape(vocab.name)}: changed since the model "
                                         r"was saved \(same size, different content\)"):
        load_model(root / "pos")


def test_an_ensembles_checksums_come_before_its_json_is_parsed(tiny, tmp_path):
    root = ensemble(tiny, tmp_path, ["seed-1", "seed-2"])
    assert senna_main(["manifest", str(root)]) == 0
    same_size_edit(root / ENSEMBLE_FILE, b'"senna-ensemble"', b'"senna-Ensemble"')
    with pytest.raises(ModelError, match=r"ensemble\.json: changed since the model was saved "
                                         r"\(same size, different content\)"):
        load_tagger(root)


def test_embeddings_checksums_come_before_their_metadata_is_parsed(tmp_path):
    from senna.embeddings import read_embeddings, save_embeddings

    save_embeddings(tmp_path / "emb", ["a", "b"], [[1.0, 2.0], [3.0, 4.0]])
    same_size_edit(tmp_path / "emb" / "embeddings.json", b'"senna-embeddings"',
                   b'"senna-Embeddings"')
    with pytest.raises(ManifestError, match=r"embeddings\.json: changed since the model was "
                                            r"saved \(same size, different content\)"):
        read_embeddings(tmp_path / "emb")
