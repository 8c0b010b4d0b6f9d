"""conlleval.pl and srl-eval.pl semantics, checked on hand-computed cases."""

from __future__ import annotations

import pytest

from senna.scoring.conlleval import TypeScore, chunk_scores, format_conlleval
from senna.scoring.metrics import accuracy
from senna.scoring.srl_eval import SrlScore, format_srl_eval, srl_arguments, srl_scores


def test_accuracy_and_misalignment() -> None:
    assert accuracy([["A", "B"], ["C"]], [["A", "X"], ["C"]]) == pytest.approx(2 / 3)
    assert accuracy([], []) == 0.0
    with pytest.raises(ValueError, match="expected 2 predicted sentences .* got 1"):
        accuracy([["A"], ["B"]], [["A"]])
    with pytest.raises(ValueError, match="sentence 1: expected 1 predicted tags .* got 2"):
        accuracy([["A"], ["B"]], [["A"], ["B", "C"]])


def test_iob1_chunk_beginning_with_i() -> None:
    score = chunk_scores([["I-PER", "I-PER", "O", "I-LOC"]], [["B-PER", "I-PER", "O", "I-LOC"]])
    assert (score.gold_phrases, score.found_phrases, score.correct_phrases) == (2, 2, 2)
    assert score.precision == score.recall == score.f1 == 100.0
    assert score.accuracy == 75.0           # I-PER vs B-PER: same chunk, different tag


def test_chunk_beginning_with_i_after_other_type() -> None:
    score = chunk_scores([["B-PER", "I-LOC", "I-LOC"]], [["B-PER", "I-PER", "I-LOC"]])
    assert (score.gold_phrases, score.found_phrases, score.correct_phrases) == (2, 2, 0)
    assert score.per_type["LOC"] == TypeScore(0.0, 0.0, 0.0, 1)


def test_right_span_wrong_type() -> None:
    score = chunk_scores([["B-ORG", "I-ORG", "O"]], [["B-LOC", "I-LOC", "O"]])
    assert score.correct_phrases == 0
    assert score.per_type == {"LOC": TypeScore(0.0, 0.0, 0.0, 1),
                              "ORG": TypeScore(0.0, 0.0, 0.0, 0)}
    assert score.accuracy == pytest.approx(100 / 3)


def test_boundaries_off_by_one() -> None:
    gold = [["B-X", "I-X", "O", "B-Y"], ["O", "B-X", "I-X"]]
    pred = [["B-X", "I-X", "I-X", "B-Y"], ["B-X", "I-X", "I-X"]]
    score = chunk_scores(gold, pred)
    assert (score.gold_phrases, score.found_phrases, score.correct_phrases) == (3, 3, 1)
    assert score.per_type["X"] == TypeScore(0.0, 0.0, 0.0, 2)
    assert score.per_type["Y"] == TypeScore(100.0, 100.0, 100.0, 1)


def test_iobes_input_keeps_adjacent_chunks_apart() -> None:
    score = chunk_scores([["S-X", "S-X"]], [["B-X", "E-X"]])
    assert (score.gold_phrases, score.found_phrases, score.correct_phrases) == (2, 1, 0)


def test_zero_predictions_score_zero() -> None:
    score = chunk_scores([["B-X", "O"]], [["O", "O"]])
    assert (score.precision, score.recall, score.f1) == (0.0, 0.0, 0.0)
    assert format_conlleval(score) == (
        "processed 2 tokens with 1 phrases; found: 0 phrases; correct: 0.\n"
        "accuracy:  50.00%; precision:   0.00%; recall:   0.00%; FB1:   0.00\n"
        "                X: precision:   0.00%; recall:   0.00%; FB1:   0.00  0\n")


def test_no_tokens_prints_no_accuracy_line() -> None:
    text = format_conlleval(chunk_scores([], []))
    assert text == "processed 0 tokens with 0 phrases; found: 0 phrases; correct: 0.\n"


def test_per_type_numbers_and_report() -> None:
    gold = [["B-PER", "I-PER", "O", "B-LOC", "O"], ["B-ORG", "O", "B-LOC", "I-LOC"]]
    pred = [["B-PER", "I-PER", "O", "B-ORG", "O"], ["B-ORG", "O", "B-LOC", "O"]]
    score = chunk_scores(gold, pred)
    assert (score.tokens, score.gold_phrases, score.found_phrases) == (9, 4, 4)
    assert score.correct_phrases == 2
    assert list(score.per_type) == ["LOC", "ORG", "PER"]
    assert score.per_type["ORG"].f1 == pytest.approx(200 / 3)
    assert format_conlleval(score).splitlines() == [
        "processed 9 tokens with 4 phrases; found: 4 phrases; correct: 2.",
        "accuracy:  77.78%; precision:  50.00%; recall:  50.00%; FB1:  50.00",
        "              LOC: precision:   0.00%; recall:   0.00%; FB1:   0.00  1",
        "              ORG: precision:  50.00%; recall: 100.00%; FB1:  66.67  2",
        "              PER: precision: 100.00%; recall: 100.00%; FB1: 100.00  1",
    ]


def test_chunk_scores_misalignment() -> None:
    with pytest.raises(ValueError, match="expected 1 predicted sentences"):
        chunk_scores([["O"]], [])
    with pytest.raises(ValueError, match="sentence 0: expected 2 predicted tags"):
        chunk_scores([["O", "O"]], [["O"]])


def test_srl_arguments_merge_c_and_keep_r_apart() -> None:
    spans = [("A1", 0, 1), ("V", 1, 2), ("C-A1", 2, 3), ("R-A1", 3, 4)]
    assert srl_arguments(spans) == {("A1", ((0, 1), (2, 3))), ("R-A1", ((3, 4),))}
    assert srl_arguments([("C-A2", 0, 1)]) == {("C-A2", ((0, 1),))}


def _one(gold: list[str], pred: list[str]) -> SrlScore:
    return srl_scores([[gold]], [[pred]])


def test_srl_exact_span_rule_and_v_excluded() -> None:
    score = _one(["(A0*", "*)", "(V*)", "(A1*", "*)", "*"],
                 ["(A0*", "*)", "*", "(V*)", "(A1*)", "*"])
    assert (score.correct, score.excess, score.missed) == (1, 1, 1)
    assert (score.precision, score.recall, score.f1) == (50.0, 50.0, 50.0)
    assert "V" not in score.per_label
    assert score.verb[:3] == (0, 1, 1)


def test_srl_continuation_correct_only_if_all_pieces_match() -> None:
    gold = ["(A1*)", "(V*)", "(C-A1*)", "*"]
    assert _one(gold, gold).per_label["A1"][:3] == (1, 0, 0)
    assert "C-A1" not in _one(gold, gold).per_label
    for pred in (["(A1*)", "(V*)", "*", "*"], ["(A1*)", "(V*)", "(C-A1*", "*)"]):
        score = _one(gold, pred)
        assert (score.correct, score.excess, score.missed) == (0, 1, 1)


def test_srl_reference_counted_under_own_label() -> None:
    score = _one(["(A0*)", "(R-A0*)", "(V*)"], ["(A0*)", "(A0*)", "(V*)"])
    assert score.per_label["A0"][:3] == (1, 1, 0)
    assert score.per_label["R-A0"][:3] == (0, 0, 1)


def test_srl_counts_over_sentences_and_report() -> None:
    gold = [[["(A0*)", "(V*)", "(A1*", "*)"], ["(A0*)", "*", "(V*)", "(A1*)"]],
            [["(V*)", "(AM-TMP*)", "*"]]]
    pred = [[["(A0*)", "(V*)", "(A1*", "*)"], ["*", "*", "(V*)", "(A1*)"]],
            [["(V*)", "(A1*", "*)"]]]
    score = srl_scores(gold, pred)
    assert (score.correct, score.excess, score.missed) == (3, 1, 2)
    assert (score.sentences, score.propositions, score.perfect_propositions) == (2, 3, 1)
    assert score.precision == 75.0 and score.recall == 60.0
    lines = format_srl_eval(score).splitlines()
    assert lines[:9] == [
        "Number of Sentences    :           2",
        "Number of Propositions :           3",
        "Percentage of perfect props :  33.33",
        "",
        "              corr.  excess  missed    prec.    rec.      F1",
        "-" * 60,
        "   Overall        3       1       2    75.00   60.00   66.67",
        "-" * 10,
        "        A0        1       0       1   100.00   50.00   66.67",
    ]
    assert lines[10:] == ["    AM-TMP        0       0       1     0.00    0.00    0.00",
                          "-" * 60,
                          "         V        3       0       0   100.00  100.00  100.00",
                          "-" * 60]


def test_srl_misalignment_messages() -> None:
    col = ["(V*)", "*"]
    with pytest.raises(ValueError, match="expected 1 predicted sentences"):
        srl_scores([[col]], [])
    with pytest.raises(ValueError, match="sentence 0: expected 1 predicted predicate columns"):
        srl_scores([[col]], [[col, col]])
    with pytest.raises(ValueError, match="sentence 0, predicate 1: expected 2 predicted tokens"):
        srl_scores([[col, col]], [[col, ["(V*)"]]])
    with pytest.raises(ValueError, match="sentence 0, predicate 0: predicted: unbalanced"):
        srl_scores([[col]], [[["(V*", "*"]]])


# --- senna evaluate (CLI) -----------------------------------------------------


def _evaluate(capsys, args: list[str]) -> tuple[int, str, str]:
    from senna.cli.main import main
    code = main(["evaluate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_evaluate_refuses_a_model_of_another_task(capsys, models):
    from pathlib import Path

    gold = str(Path(__file__).parent / "fixtures" / "conll2000_sample.txt")
    code, out, err = _evaluate(capsys, ["--task", "chunk", "--model", str(models / "ner"),
                                        "--gold", gold])
    assert code == 1 and out == ""
    assert err.startswith("senna: error: ") and err.count("\n") == 1
    assert f"{models / 'ner'} holds a ner model, not a chunk model" in err
    code, out, _ = _evaluate(capsys, ["--task", "chunk", "--model", str(models / "chunk"),
                                      "--gold", gold])
    assert code == 0 and out.startswith("processed ")


def test_evaluate_refuses_predictions_of_other_words(capsys, tmp_path):
    from pathlib import Path

    gold = Path(__file__).parent / "fixtures" / "conll2000_sample.txt"
    pred = tmp_path / "pred.txt"
    pred.write_text(gold.read_text().replace("talked VBD", "walked VBD", 1))
    code, out, err = _evaluate(capsys, ["--task", "chunk", "--gold", str(gold),
                                        "--pred", str(pred)])
    assert code == 1 and out == "" and err.count("\n") == 1
    assert f"{pred}: sentence 2, token 2 is 'walked', the gold file has 'talked'" in err
    pred.write_text(gold.read_text())
    assert _evaluate(capsys, ["--task", "chunk", "--gold", str(gold), "--pred", str(pred)])[0] == 0


# --- senna evaluate = training's dev score ---------------------------------------------


def _iob2_without_documents(tmp_path):
    """ner_small.conll as a user's NER data: IOB2 tags, no -DOCSTART- lines, cut in a
    training and a dev file."""
    from conftest import FIX

    from senna.io.conll import read_conll2003
    from senna.io.conll_write import write_columns
    from senna.tags import convert

    sents = read_conll2003(FIX / "ner_small.conll")
    for s in sents:
        s.columns["ner"] = convert(s.columns["ner"], "iob2")
    cut = len(sents) * 2 // 3
    paths = tmp_path / "train.iob2", tmp_path / "dev.iob2"
    for part, path in zip((sents[:cut], sents[cut:]), paths, strict=True):
        write_columns(part, path, ("pos", "chunk", "ner"))
    return paths


@pytest.fixture(scope="module")
def iob2_model(tmp_path_factory):
    """A tiny NER model trained on IOB2 data without documents: (model dir, dev file)."""
    pytest.importorskip("torch")
    from conftest import small_config

    from senna.train.loop import train

    tmp = tmp_path_factory.mktemp("iob2")
    train_file, dev_file = _iob2_without_documents(tmp)
    cfg = small_config(tmp, "ner-window-sll", train=str(train_file), dev=str(dev_file),
                       epochs=3)
    train(cfg)
    return tmp / "ner-window-sll", dev_file


def test_evaluate_prints_the_dev_score_training_recorded(capsys, iob2_model):
    """No --task, no --format: the model's; the same documents and vote as training."""
    import json

    model, dev = iob2_model
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    assert config["source_scheme"] == "iob2"   # read off the training file's tags
    code, out, _ = _evaluate(capsys, ["--model", str(model), "--data", str(dev)])
    assert code == 0
    assert f"FB1: {config['dev']['score']:6.2f}\n" in out.splitlines(keepends=True)[1]


def test_gold_against_itself_is_100_percent_on_iob2(capsys, iob2_model):
    """Token accuracy compares tags in the file's scheme (IOB2), not NER's usual IOB1."""
    _, dev = iob2_model
    code, out, _ = _evaluate(capsys, ["--task", "ner", "--gold", str(dev), "--pred", str(dev)])
    assert code == 0
    assert "accuracy: 100.00%; precision: 100.00%; recall: 100.00%; FB1: 100.00" in out


def test_evaluate_out_round_trips(capsys, iob2_model, tmp_path):
    """--out writes the gold file with the model's tags, in IOB2; scoring that file as a
    prediction file gives the same report."""
    from senna.io.formats import read_dataset
    from senna.scoring.predictions import gold_scheme
    from senna.tasks import get_task

    model, dev = iob2_model
    pred = tmp_path / "pred.iob2"
    code, report, _ = _evaluate(capsys, ["--model", str(model), "--data", str(dev),
                                         "--out", str(pred)])
    assert code == 0
    written, gold = read_dataset(pred, "conll2003"), read_dataset(dev, "conll2003")
    assert [s.words for s in written] == [s.words for s in gold]
    assert [(s.columns["pos"], s.columns["chunk"]) for s in written] == \
        [(s.columns["pos"], s.columns["chunk"]) for s in gold]
    assert gold_scheme(get_task("ner"), written, "iob2")[0] == "iob2"
    assert "-DOCSTART-" not in pred.read_text(encoding="utf-8")
    code, again, said = _evaluate(capsys, ["--task", "ner", "--gold", str(dev),
                                           "--pred", str(pred)])
    assert (code, again) == (0, report) and said.startswith(f"{dev}: gold tags read as IOB")


def test_evaluate_out_keeps_documents_and_srl_brackets(capsys, models, tmp_path):
    from conftest import FIX

    from senna.io.formats import read_dataset

    pt0 = ["--extra-columns", str(FIX / "ewt_sample.pt0")]
    for task, gold, fmt, more in (("ner", FIX / "ner_small.conll", "conll2003", []),
                                  ("srl", FIX / "ewt_sample.verbs-args.conll", "srl", pt0)):
        pred = tmp_path / f"{task}.out"
        code, report, _ = _evaluate(capsys, ["--model", str(models / task), "--data",
                                             str(gold), "--out", str(pred), *more])
        assert code == 0
        assert [s.doc for s in read_dataset(pred, fmt)] == [s.doc for s in
                                                            read_dataset(gold, fmt)]
        code, again, said = _evaluate(capsys, ["--task", task, "--gold", str(gold), "--pred",
                                               str(pred)])
        assert (code, again) == (0, report)
        assert said == "" if task == "srl" else said.startswith(f"{gold}: gold tags read as")


def test_evaluate_needs_a_task_with_pred_and_a_model_with_out(capsys, models, tmp_path):
    from conftest import FIX

    gold = str(FIX / "conll2000_sample.txt")
    code, _, err = _evaluate(capsys, ["--gold", gold, "--pred", gold])
    assert code == 2 and "--task is needed with --pred" in err and err.count("\n") == 1
    code, _, err = _evaluate(capsys, ["--task", "chunk", "--gold", gold, "--pred", gold,
                                      "--out", str(tmp_path / "x")])
    assert code == 2 and "--out writes a model's predictions" in err
    code, _, err = _evaluate(capsys, ["--task", "ner", "--model", str(models / "ner"), "--gold",
                                      gold, "--format", "conllu", "--out", str(tmp_path / "x")])
    assert code == 2 and "--out writes conll2000, " in err and "not conllu" in err


def test_training_dev_score_votes_one_type_per_name_in_each_document(monkeypatch):
    """The dev score is computed on the tags users get: "Smith" takes the type of "John
    Smith" within a document, not across documents."""
    from senna.document import Sentence
    from senna.tasks import get_task
    from senna.train import dev as scoring

    words = [["John", "Smith", "won"], ["Smith", "lost"], ["Smith", "won"], ["Smith", "won"]]
    gold = [["B-PER", "I-PER", "O"], ["B-PER", "O"], ["B-PER", "O"], ["B-ORG", "O"]]
    predicted = [["B-PER", "E-PER", "O"], ["S-ORG", "O"], ["S-PER", "O"], ["S-ORG", "O"]]
    dev = [Sentence(w, {"ner": g}, doc=d)
           for w, g, d in zip(words, gold, (0, 0, 0, 1), strict=True)]
    monkeypatch.setattr(scoring, "predict_tags", lambda *a: [list(t) for t in predicted])
    score = scoring.evaluate_model(None, None, get_task("ner"), dev, [])
    # document 0 votes "Smith" PER; document 1's stays ORG (without the vote: 75)
    assert score["score"] == 100.0


def test_the_gold_files_scheme_is_read_once_per_scoring(monkeypatch):
    """Reading the scheme walks every gold tag: once per scoring, not once per sentence
    (which made a dev score of a few thousand sentences take most of a training epoch)."""
    from types import SimpleNamespace

    import senna.scoring.predictions as scoring
    from senna.tasks import get_task

    calls = []
    real = scoring.scheme_evidence
    monkeypatch.setattr(scoring, "scheme_evidence", lambda cols: calls.append(1) or real(cols))
    sentences = [SimpleNamespace(words=["a", "b"], columns={"ner": ["B-PER", "I-PER"]})] * 5
    result, _ = scoring.score_predictions(get_task("ner"), sentences, [["B-PER", "E-PER"]] * 5)
    assert result["score"] == 100.0 and len(calls) == 1


# --- senna evaluate --pred on a task of the user's own; --out never over an input ------


def _phrases_file(path, wrong: int = 0):
    """conll2000_sample.txt as a user's file `PHRASES WORD _ POS`; the first `wrong` phrase
    tags B-NP made B-VP."""
    from conftest import FIX

    lines = []
    for line in (FIX / "conll2000_sample.txt").read_text(encoding="utf-8").splitlines():
        cells = line.split()
        if len(cells) == 3:
            tag = cells[2]
            if wrong and tag == "B-NP":
                tag, wrong = "B-VP", wrong - 1
            line = f"{tag} {cells[0]} x {cells[1]}"
        lines.append(line)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_pred_scores_a_users_span_task_named_by_the_layout(capsys, tmp_path):
    gold, pred = _phrases_file(tmp_path / "gold"), _phrases_file(tmp_path / "pred", wrong=1)
    layout = ["--format", "columns:phrases,word,_,pos"]
    for task in ([], ["--task", "phrases"]):
        code, out, err = _evaluate(capsys, [*task, "--gold", gold, "--pred", gold, *layout])
        assert code == 0 and "FB1: 100.00" in out.splitlines()[1]
        assert "gold tags read as IOB2" in err
    code, out, _ = _evaluate(capsys, ["--gold", gold, "--pred", pred, *layout])
    assert code == 0 and "found: 9 phrases; correct: 8." in out


def test_pred_scores_a_users_label_task_by_accuracy(capsys, tmp_path):
    gold = _phrases_file(tmp_path / "gold")
    code, out, _ = _evaluate(capsys, ["--task", "tagged", "--gold", gold, "--pred", gold,
                                      "--format", "columns:_,word,_,tagged"])
    assert (code, out) == (0, "processed 17 tokens; accuracy: 100.00%\n")


@pytest.mark.parametrize("args, message", [
    (["--task", "chunk"], "has no chunk column to score (its columns: words, phrases, pos); "
                          "to score the phrases column as a task of your own, pass --task "
                          "phrases"),
    (["--task", "stuff"], "the file has no stuff column to score"),
])
def test_a_layout_without_the_tasks_column_is_one_line(capsys, tmp_path, args, message):
    gold = _phrases_file(tmp_path / "gold")
    code, out, err = _evaluate(capsys, [*args, "--gold", gold, "--pred", gold, "--format",
                                        "columns:phrases,word,_,pos"])
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"senna: error: {gold}: ") and message in err


def test_a_users_task_without_a_layout_is_a_usage_error(capsys, tmp_path):
    gold = _phrases_file(tmp_path / "gold")
    code, _, err = _evaluate(capsys, ["--task", "phrases", "--gold", gold, "--pred", gold])
    assert code == 2 and err.count("\n") == 1
    assert "task 'phrases' is not built in" in err and "--format columns:word,phrases" in err


def test_out_is_never_an_input_file(capsys, models, tmp_path):
    import os

    from conftest import FIX

    gold = tmp_path / "gold.pos"
    gold.write_bytes((FIX / "ewt_sample.pos").read_bytes())
    before = gold.read_bytes()
    (tmp_path / "link").symlink_to(gold)
    os.link(gold, tmp_path / "hard")
    for out in (gold, tmp_path / "link", tmp_path / "hard"):
        code, stdout, err = _evaluate(capsys, ["--model", str(models / "pos"), "--data",
                                               str(gold), "--out", str(out)])
        assert (code, stdout) == (2, "") and err.count("\n") == 1
        assert f"--out {out} is the --data file {gold}" in err
    assert gold.read_bytes() == before
    code, _, err = _evaluate(capsys, ["--model", str(models / "pos"), "--data", str(gold),
                                      "--out", str(tmp_path / "pred.pos")])
    assert code == 0 and (tmp_path / "pred.pos").exists()


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="no /dev/full")
def test_out_on_a_full_disk_names_the_file(capsys, models):
    from conftest import FIX

    code, _, err = _evaluate(capsys, ["--model", str(models / "pos"), "--data",
                                      str(FIX / "ewt_sample.pos"), "--out", "/dev/full"])
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("senna: error: /dev/full: ") and "No space left on device" in err
