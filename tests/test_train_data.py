"""Training data whose tags fall outside the task's scheme is refused when it is read, with
one line naming the file and the line (a tag `FOO` in NER data used to become a chunk of no
type, `X-PER` a prefix nobody declared)."""

from pathlib import Path

import pytest
from conftest import FIX

from senna.cli.main import main
from senna.datasets import load_splits
from senna.io.lines import DataFormatError
from senna.tasks import get_task
from senna.train.config import TrainConfig

NER = (FIX / "ner_small.conll").read_text().split("\n")   # line 5: LEICESTERSHIRE ... I-ORG


def with_tag(tmp_path: Path, lines: list[str], number: int, tag: str, name: str) -> Path:
    """A copy of `lines` whose line `number` (1-based) ends in `tag`."""
    out, sep = list(lines), "\t" if "\t" in lines[number - 1] else " "
    out[number - 1] = sep.join([*lines[number - 1].split(sep)[:-1], tag])
    path = tmp_path / name
    path.write_text("\n".join(out))
    return path


def read(path: Path, task: str) -> tuple[list, list]:
    cfg = TrainConfig(task=task, train=str(path), dev=str(path))
    return load_splits(cfg, get_task(task))


@pytest.mark.parametrize("tag", ["X-PER", "FOO", "B-", "S-ORG", "O-ORG"])
def test_ner_tags_outside_iob1_are_refused_naming_file_and_line(tmp_path, tag):
    path = with_tag(tmp_path, NER, 5, tag, "bad.conll")
    with pytest.raises(DataFormatError, match=rf"^{path}:5: tag '{tag}' is not in the IOB1 "
                                              rf"scheme of ner data \(expected O or B-/I- and "
                                              rf"a type, e.g. B-LOC\)$"):
        read(path, "ner")


def test_the_line_is_found_past_documents_and_blank_lines(tmp_path):
    last = max(i for i, line in enumerate(NER, 1) if line.strip())
    path = with_tag(tmp_path, NER, last, "I-", "bad.conll")
    with pytest.raises(DataFormatError, match=rf"^{path}:{last}: tag 'I-'"):
        read(path, "ner")


def test_iobes_data_takes_s_and_e_but_not_other_prefixes(tmp_path):
    lines = (FIX / "pt0_small.pt0").read_text().split("\n")
    assert read(FIX / "pt0_small.pt0", "pt0")[0]
    path = with_tag(tmp_path, lines, 2, "L-NP", "bad.pt0")
    with pytest.raises(DataFormatError, match=rf"^{path}:2: tag 'L-NP' is not in the IOBES "
                                              r"scheme of pt0 data \(expected O or "
                                              r"B-/I-/E-/S- and a type"):
        read(path, "pt0")


def test_plain_labels_take_any_tag(tmp_path):
    lines = (FIX / "ewt_sample.pos").read_text().split("\n")
    path = with_tag(tmp_path, lines, 1, "FOO", "odd.pos")
    train, _ = read(path, "pos")
    assert train[0].columns["pos"][0] == "FOO"


def test_a_format_without_the_tasks_column_is_refused(tmp_path):
    cfg = TrainConfig(task="ner", train=str(FIX / "ewt_sample.pos"), format="tagged")
    with pytest.raises(DataFormatError, match=r"no ner column to train ner on \(format "
                                              r"tagged reads pos\)"):
        load_splits(cfg, get_task("ner"))


def test_senna_train_refuses_the_file_in_one_line(tmp_path, capsys):
    pytest.importorskip("torch")
    path = with_tag(tmp_path, NER, 5, "FOO", "bad.conll")
    args = ["train", "--task", "ner", "--train", str(path), "--out", str(tmp_path / "m"),
            "--epochs", "1", "--hidden", "10", "--word-dim", "6", "--threads", "1"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err == (f"senna: error: {path}:5: tag 'FOO' is not in the IOB1 scheme of ner data "
                   "(expected O or B-/I- and a type, e.g. B-LOC)\n")
    assert not (tmp_path / "m").exists()
