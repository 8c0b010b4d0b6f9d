"""Raw-text tokenisation of Spanish and Dutch (senna.text.tokenize): abbreviations syntok
does not know, dialogue dashes, Dutch words with an apostrophe; and the bench that measures
agreement with CoNLL gold tokens (bench/conll_tokenize.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import FIX, ROOT

from senna.text.tokenize import tokenize


def words(text: str) -> list[list[str]]:
    """Sentences of token texts, checking that every token is its slice of `text`."""
    sents = tokenize(text)
    assert all(text[t.start:t.end] == t.text for s in sents for t in s)
    return [[t.text for t in s] for s in sents]


@pytest.mark.parametrize(("text", "expected"), [
    ("Vive en Cd. Juárez desde 1990.", [["Vive", "en", "Cd.", "Juárez", "desde", "1990", "."]]),
    ("Habló la Dra. Ruiz.", [["Habló", "la", "Dra.", "Ruiz", "."]]),
    ("Lo dijo la Sra. López.", [["Lo", "dijo", "la", "Sra.", "López", "."]]),
    ("¿Viene Ud. mañana?", [["¿", "Viene", "Ud.", "mañana", "?"]]),
    ("Uds. también.", [["Uds.", "también", "."]]),
    ("Véase la pág. 23 del libro.", [["Véase", "la", "pág.", "23", "del", "libro", "."]]),
    ("Lo firmó el Lic. Ramos.", [["Lo", "firmó", "el", "Lic.", "Ramos", "."]]),
    ("Zie blz. 12 en bijv. hoofdstuk 3.",
     [["Zie", "blz.", "12", "en", "bijv.", "hoofdstuk", "3", "."]]),
])
def test_spanish_and_dutch_abbreviations_keep_their_period_and_the_sentence(text, expected):
    assert words(text) == expected


def test_an_abbreviation_before_a_word_that_starts_sentences_still_ends_one():
    # syntok's own rule for the abbreviations it knows ("Dr." before "The" ends a sentence)
    assert words("Fue a la Cd. El resto se quedó.") == [
        ["Fue", "a", "la", "Cd", "."], ["El", "resto", "se", "quedó", "."]]


@pytest.mark.parametrize(("text", "expected"), [
    # the narrator's words after "?", "!" or an ellipsis go on with the sentence
    ("—¿Vienes? —preguntó Juan—. Te espero.",
     [["—", "¿", "Vienes", "?", "—", "preguntó", "Juan", "—", "."], ["Te", "espero", "."]]),
    ("—¡No! —gritó—. ¡Jamás!",
     [["—", "¡", "No", "!", "—", "gritó", "—", "."], ["¡", "Jamás", "!"]]),
    ("–¿Vienes? –preguntó Juan–. Te espero.",
     [["–", "¿", "Vienes", "?", "–", "preguntó", "Juan", "–", "."], ["Te", "espero", "."]]),
    ("—Sí... —dijo—. Bueno.", [["—", "Sí", "...", "—", "dijo", "—", "."], ["Bueno", "."]]),
    # after a word, the dash never ended the sentence; the period after the closing dash does
    ("—Sí —respondió Ana María—. Vamos.",
     [["—", "Sí", "—", "respondió", "Ana", "María", "—", "."], ["Vamos", "."]]),
    # a new speaker (capital letter) is a new sentence
    ("—¿Qué? —Nada.", [["—", "¿", "Qué", "?"], ["—", "Nada", "."]]),
])
def test_spanish_dialogue_dashes(text, expected):
    assert words(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Hij woont in 's-Hertogenbosch.", ["Hij", "woont", "in", "'s-Hertogenbosch", "."]),
    ("In 's-Gravenhage-Noord.", ["In", "'s-Gravenhage-Noord", "."]),
    ("Hij pakte z'n fiets.", ["Hij", "pakte", "z'n", "fiets", "."]),
    ("Zo'n huis en m'n kat.", ["Zo'n", "huis", "en", "m'n", "kat", "."]),
    ("Dat is d'r kat.", ["Dat", "is", "d'r", "kat", "."]),
    ("Dat is 't mooiste en 'n beetje raar.",
     ["Dat", "is", "'t", "mooiste", "en", "'n", "beetje", "raar", "."]),
    ("Hij komt, d.w.z. o.a. morgen.", ["Hij", "komt", ",", "d.w.z.", "o.a.", "morgen", "."]),
])
def test_dutch_words_with_an_apostrophe_stay_whole(text, expected):
    assert words(text) == [expected]


@pytest.mark.parametrize(("text", "expected"), [
    ("Rock 'n' roll.", ["Rock", "'", "n", "'", "roll", "."]),   # a quoted letter
    ("He can't go.", ["He", "ca", "n't", "go", "."]),
    ("It's 's good.", ["It", "'s", "'s", "good", "."]),
    ("the 's-curve", ["the", "'", "s", "-", "curve"]),           # 's- and a small letter
])
def test_english_apostrophes_as_before(text, expected):
    assert words(text) == [expected]


def test_conll_bench_scores_a_file_and_dumps_one_line_per_sentence(tmp_path):
    dump = tmp_path / "tokens.txt"
    run = subprocess.run([sys.executable, "-m", "bench.conll_tokenize",
                          str(FIX / "conll2002_esp_sample.txt"), "--format", "conll2002",
                          "--dump", str(dump)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    row = run.stdout.splitlines()[-1].split(" | ")
    assert row[0] == "| conll2002_esp_sample.txt"
    lines = dump.read_text(encoding="utf-8").splitlines()
    assert len(lines) == int(row[1]) == 2
    assert float(row[5]) > 0.9   # token F1 on two plain newswire headlines


def test_conll_bench_refuses_a_file_it_cannot_read_in_one_line(tmp_path):
    bad = tmp_path / "esp.bad"
    bad.write_text("one two three four five\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "bench.conll_tokenize", str(bad)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "cannot tell the CoNLL-2002 layout" in run.stderr.splitlines()[-1]


def test_conll_bench_writes_text_as_typed():
    code = ("from bench.conll_tokenize import join_words; print(repr(join_words(['¿', 'Dijo', "
            "'\"', 'sí', '\"', ',', '(', 'hoy', ')', '?'], False)))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    text, spans = eval(run.stdout)
    assert text == '¿Dijo "sí", (hoy)?'
    assert [text[s:e] for s, e in spans] == ["¿", "Dijo", '"', "sí", '"', ",", "(", "hoy",
                                             ")", "?"]
