"""A model reading another task's column (`--features basic+pos`): a file without that
column is one error line naming the file and the fixes; a column taken from the file, not
predicted, is warned about (at run time the column is the shipped tagger's, maybe in another
tag set) and the model's config says where each column it reads came from."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from conftest import FIX, shipped  # noqa: E402

from senna.cli import tag as cli_tag  # noqa: E402
from senna.cli.main import main  # noqa: E402

DATA = FIX / "dates_small.txt"
SMALL = ["--epochs", "1", "--hidden", "8", "--word-dim", "8", "--threads", "1"]


def with_pos(path: Path, odd: str = "ZZZ") -> Path:
    """dates_small.txt with its unread column turned into POS tags: 'x' -> NN, 'y' -> `odd`."""
    lines = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if len(cells) == 3:
            cells[1] = "NN" if cells[1] == "x" else odd
        lines.append("\t".join(cells))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_file_without_the_column_a_feature_reads_is_one_line(tmp_path, capsys):
    code = main(["train", "--task", "dates", "--columns", "word,_,dates", "--features",
                 "basic+pos", "--train", str(DATA), *SMALL, "--out", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"senna: error: {DATA}: ")
    assert "'pos' column" in err and "--predicted-columns pos=senna/models/pos" in err


def test_a_column_read_from_the_file_is_warned_about_and_recorded(tmp_path, capsys):
    shipped("pos")
    data = with_pos(tmp_path / "pos.txt")
    # a name of its own: a user's task is known once per process (test_own_task's "dates")
    code = main(["train", "--task", "stamps", "--columns", "word,pos,stamps", "--features",
                 "basic+pos", "--train", str(data), "--dev", str(data), *SMALL,
                 "--out", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert code == 0
    warning = next(line for line in err.splitlines() if "warning" in line)
    y_tokens = sum(1 for line in data.read_text().splitlines() if "\tZZZ\t" in line)
    assert f"1 of the file's 2 pos tags ({y_tokens} tokens) are not in its tag set: ZZZ" \
        in warning
    assert "--predicted-columns pos=" in warning and "POS tagger" in warning
    config = json.loads((tmp_path / "m" / "config.json").read_text())
    assert config["column_sources"] == {"pos": {"source": "file", "file": str(data)}}
    err = tag_with(tmp_path / "m", "stamps", capsys)
    assert f"learnt its pos column from the tags of {data}, but here reads the pos " \
        "model's" in err and err.count("learnt its pos column") == 1


def test_a_predicted_column_is_recorded_with_its_model_and_not_warned_about(
        tmp_path, capsys, models):
    code = main(["train", "--task", "sums", "--columns", "word,_,sums", "--features",
                 "basic+pos", "--train", str(DATA), "--predicted-columns",
                 f"pos={models / 'pos'}", *SMALL, "--out", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert code == 0 and "warning" not in err, err
    config = json.loads((tmp_path / "m" / "config.json").read_text())
    assert config["column_sources"] == {"pos": {"source": "predicted",
                                                "model": str(models / "pos")}}
    assert "warning" not in tag_with(tmp_path / "m", "sums", capsys, models / "pos")


def tag_with(model: Path, task: str, capsys, pos: Path | None = None) -> str:
    """stderr of tagging two lines with the POS tagger and `model` from the CLI."""
    out = io.BytesIO()
    pos_model = ["--model", f"pos={pos}"] if pos else []
    assert cli_tag.main(["--model", f"{task}={model}", *pos_model, "--tasks", f"pos,{task}"],
                        io.BytesIO(b"one two\nthree four\n"), out) == 0
    return capsys.readouterr().err
