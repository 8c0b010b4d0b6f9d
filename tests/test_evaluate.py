"""conlleval.pl and srl-eval.pl semantics, checked on hand-computed cases."""

from __future__ import annotations

import pytest

from senna.evaluate import (
    SrlScore,
    TypeScore,
    accuracy,
    chunk_scores,
    format_conlleval,
    format_srl_eval,
    srl_arguments,
    srl_scores,
)


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
