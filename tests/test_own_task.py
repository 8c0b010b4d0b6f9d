"""A task of the user's own: a made-up tag set (DATE, MONEY) in its own column layout
(`word _ dates`, IOB2), trained with `senna train --task dates --columns word,_,dates`,
then loaded from its folder by the CLI, the API and the spaCy component, and copied
elsewhere; bad declarations are one error line naming the file and line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from conftest import FIX, ROOT  # noqa: E402

import senna  # noqa: E402
from senna.cli.main import main  # noqa: E402

DATA = FIX / "dates_small.txt"
TEXT = "Anna paid $ 5 on March 3 . The bank lost 3 million euros in July 2019 ."
TRAIN = ["train", "--task", "dates", "--columns", "word,_,dates", "--train", str(DATA),
         "--dev", str(DATA), "--epochs", "4", "--hidden", "20", "--word-dim", "8",
         "--threads", "1"]


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("own") / "dates"
    assert main([*TRAIN, "--out", str(out)]) == 0
    return out


def cli_tags(model_dir: Path) -> str:
    return subprocess.run([sys.executable, "-m", "senna", "-path", str(model_dir)],
                          input=TEXT, capture_output=True, text=True, check=True,
                          cwd=ROOT).stdout


def test_the_model_records_its_task_and_the_files_scheme(model):
    config = json.loads((model / "config.json").read_text())
    assert config["task"] == "dates" and config["source_scheme"] == "iob2"
    assert config["task_spec"]["metric"] == "chunk"            # spans: scored by span F1
    assert config["dev"]["score"] > 50
    every = {"O", *(f"{p}-{t}" for p in "BIES" for t in ("DATE", "MONEY"))}
    assert {"O", "B-DATE", "E-DATE", "B-MONEY", "I-MONEY"} <= set(config["tags"]) <= every


def test_the_cli_the_api_and_spacy_tag_from_the_models_folder(model):
    out = cli_tags(model)
    assert "B-MONEY" in out and "DATE" in out
    tagger = senna.load(model)
    assert tagger.tasks == ("dates",)
    spans = [(s.label, s.text) for s in tagger(TEXT).sentences[0].spans("dates")]
    assert ("MONEY", "$ 5") in spans
    both = senna.load(models={"dates": model}, tasks=["pos", "dates"])
    sent = both(TEXT).sentences[0]
    assert sent.columns["dates"] == tagger(TEXT).sentences[0].columns["dates"]
    assert sent.columns["pos"][0] == "NNP"
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    nlp.add_pipe("senna", config={"model_dir": str(model)})
    doc = nlp("Anna paid $ 5 on March 3 .")
    assert [(s.text, s.label_) for s in doc.spans["dates"]] == \
        [(s.text, s.label) for s in tagger("Anna paid $ 5 on March 3 .").sentences[0]
         .spans("dates")]


def test_a_copied_folder_tags_the_same(model, tmp_path):
    copy = tmp_path / "elsewhere" / "dates"
    shutil.copytree(model, copy)
    assert cli_tags(copy) == cli_tags(model)
    assert senna.load(copy)(TEXT).to_dict() == senna.load(model)(TEXT).to_dict()


def test_labels_without_spans_train_as_a_tagging_task(tmp_path):
    labels = tmp_path / "labels.txt"
    labels.write_text("".join(line.rsplit("\t", 1)[0] + "\t"
                              + ("NUM" if line.split("\t")[0][:1].isdigit() else "W") + "\n"
                              if line.strip() else "\n"
                              for line in DATA.read_text().splitlines()))
    out = tmp_path / "kinds"
    assert main(["train", "--task", "kinds", "--columns", "word,_,kinds", "--train",
                 str(labels), "--out", str(out), "--epochs", "1", "--hidden", "10",
                 "--word-dim", "8", "--threads", "1"]) == 0
    config = json.loads((out / "config.json").read_text())
    assert config["scheme"] == "tags" and config["task_spec"]["metric"] == "accuracy"


@pytest.mark.parametrize("args, message", [
    (["--columns", "word,foo,dates"], "unknown column name 'foo'"),
    (["--columns", "word,_,other"], "has no dates column"),
    ([], "declare its file's columns"),
    (["--columns", "word,_,_,dates"], r"dates_small.txt:1: wrong number of columns "
                                      r"\(expected 4: word,_,_,dates, got 3"),
    (["--columns", "word,_,dates", "--scheme", "iobes"],
     r"dates_small.txt:4: tag 'B-MONEY' shows IOB2 tags, not the declared IOBES"),
])
def test_bad_declarations_are_one_line(capsys, tmp_path, args, message):
    argv = ["train", "--task", "dates", "--train", str(DATA), "--out", str(tmp_path / "m"),
            "--epochs", "1", *args]
    assert main(argv) in (1, 2)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("senna: error: ")
    assert __import__("re").search(message, err), err


def test_tags_fitting_no_scheme_name_their_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("Anna\tx\tB-PER\npaid\tx\tO\n\nBob\tx\tO\nleft\tx\tI-PER\n")
    assert main(["train", "--task", "people", "--columns", "word,_,people", "--train",
                 str(bad), "--out", str(tmp_path / "m"), "--epochs", "1"]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:5: tag 'I-PER' does not fit the IOB2 scheme" in err, err


def test_evaluate_prints_trainings_dev_score_and_writes_the_layout(model, tmp_path, capsys):
    """No --task, no --format: the model knows both; --out writes the file's own columns
    (the column not read kept), which the same layout reads back."""
    from senna.io.formats import read_dataset

    config = json.loads((model / "config.json").read_text())
    capsys.readouterr()
    out = tmp_path / "pred.txt"
    assert main(["evaluate", "--model", str(model), "--data", str(DATA), "--out", str(out)]) == 0
    report = capsys.readouterr().out
    assert f"FB1: {config['dev']['score']:6.2f}" in report, report
    gold, written = (read_dataset(p, "columns:word,_,dates") for p in (DATA, out))
    assert [s.words for s in written] == [s.words for s in gold]
    assert [s.columns["_1"] for s in written] == [s.columns["_1"] for s in gold]
    assert all(t[:2] in ("O", "B-", "I-") for s in written for t in s.columns["dates"])


def test_the_task_record_states_the_runs_licence_which_does_not_make_it_another_task(
        monkeypatch):
    """--licence reaches the model's task record (as its card states it); two models of one
    task whose data differ only in licence, or in their files' layout, load side by side,
    each keeping its own; one whose tags are written otherwise (labels, not spans) does not."""
    from types import SimpleNamespace

    from senna import tasks
    from senna.datasets import declared_task

    monkeypatch.setattr(tasks, "TASKS", dict(tasks.TASKS))
    monkeypatch.setattr(tasks, "ALIASES", dict(tasks.ALIASES))
    settings = SimpleNamespace(task="dates", columns="word,_,dates", scheme="iob2",
                               approach="window", licence="CC BY 4.0 (my annotations)")
    mine = tasks.task_record(declared_task(settings))
    assert mine["licence"] == "CC BY 4.0 (my annotations)"
    unstated = tasks.task_record(declared_task(SimpleNamespace(**{**vars(settings),
                                                                  "licence": ""})))
    assert unstated["licence"] == "not stated"
    tasks.register(mine)
    assert tasks.register(unstated).name == "dates"
    known = tasks.TASKS["dates"]
    assert tasks.register({**mine, "fmt": "columns:word,dates"}).fmt == "columns:word,dates"
    assert tasks.TASKS["dates"] is known   # not replaced
    with pytest.raises(ValueError, match="another model of a task named dates is loaded"):
        tasks.register({**mine, "scheme": "tags", "metric": "accuracy"})


def composed(*args: str) -> list[list[str]]:
    """Rows of `senna -usrtokens ARGS` on TEXT's first sentence, run in this process."""
    import io

    from senna.cli import tag as cli_tag

    out = io.BytesIO()
    assert cli_tag.main(["-usrtokens", *args], io.BytesIO(b"Anna paid $ 5 on March 3 .\n"),
                        out) == 0
    return [line.split("\t") for line in out.getvalue().decode().strip().split("\n")]


def test_the_users_model_composes_with_the_shipped_ones_from_the_cli(model):
    """--model NAME=DIR, --tasks pos,NAME and -path DIR with a flag all tag the user's
    column beside the shipped models' (a model given by its own folder is always tagged)."""
    dates = [r[1].strip() for r in composed("-path", str(model))]
    with_pos = composed("-pos", "-ner", "--model", f"dates={model}")
    assert [len(r) for r in with_pos] == [4] * 8
    assert [r[1].strip() for r in with_pos][:2] == ["NNP", "VBD"]
    assert [r[3].strip() for r in with_pos] == dates
    assert composed("--tasks", "pos,dates", "--model", f"dates={model}") == \
        [r[:2] + r[3:] for r in with_pos]
    assert [r[-1].strip() for r in composed("-path", str(model), "-pos")] == dates


def test_a_folder_of_another_task_is_refused(model, capsys):
    assert main(["--model", f"dates={ROOT / 'senna' / 'models' / 'pos'}"]) == 1
    assert "holds a pos model, not a dates model" in capsys.readouterr().err
