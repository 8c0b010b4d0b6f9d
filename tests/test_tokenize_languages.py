"""Raw-text tokenisation of Spanish and Dutch (senna.text.tokenize): abbreviations syntok
does not know, dialogue dashes, Dutch words with an apostrophe; and the bench that measures
agreement with CoNLL gold tokens (bench/conll_tokenize.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import FIX, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from senna.text.invisible import visible
from senna.text.tokenize import LANGUAGES, tokenize


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


@pytest.mark.parametrize(("text", "expected"), [
    ("El Sr. De la Rúa llegó.", ["El", "Sr.", "De", "la", "Rúa", "llegó", "."]),
    ("Con la Sra. De la Fuente.", ["Con", "la", "Sra.", "De", "la", "Fuente", "."]),
    ("Met mevr. De Vries.", ["Met", "mevr.", "De", "Vries", "."]),
])
def test_a_title_before_a_surname_particle_keeps_the_sentence(text, expected):
    assert words(text) == [expected]


def test_an_abbreviation_before_a_word_that_starts_sentences_still_ends_one():
    # syntok's own rule for the abbreviations it knows ("Dr." before "The" ends a sentence)
    assert words("Fue a la Cd. El resto se quedó.") == [
        ["Fue", "a", "la", "Cd", "."], ["El", "resto", "se", "quedó", "."]]
    assert words("Zie blz. De volgende.") == [["Zie", "blz", "."], ["De", "volgende", "."]]


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


@pytest.mark.parametrize(("language", "text", "expected"), [
    ("es", "Castilla-La Mancha subió un 30%.",
     ["Castilla-La", "Mancha", "subió", "un", "30%", "."]),
    ("es", "El 2,5% del PSOE-Progresistas.", ["El", "2,5%", "del", "PSOE-Progresistas", "."]),
    ("nl", "Groot-Brittannië en Jean-Paul.", ["Groot-Brittannië", "en", "Jean-Paul", "."]),
    ("nl", "De foto's van McDonald's, 30%.",
     ["De", "foto's", "van", "McDonald's", ",", "30", "%", "."]),
    ("nl", "'s Avonds in 's-Hertogenbosch.", ["'s", "Avonds", "in", "'s-Hertogenbosch", "."]),
    # English keeps the conventions of EWT, which the English taggers learnt
    ("en", "A well-known 30% of John's.",
     ["A", "well", "-", "known", "30", "%", "of", "John", "'s", "."]),
])
def test_language_picks_the_conventions_of_its_training_data(language, text, expected):
    sents = tokenize(text, language)
    assert all(text[t.start:t.end] == t.text for s in sents for t in s)
    assert [[t.text for t in s] for s in sents] == [expected]


def test_the_default_language_is_english():
    text = "Un well-known 30% de foto's."
    assert tokenize(text) == tokenize(text, "en")


def test_an_unknown_language_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"language must be one of en, es, nl, got 'fr'"):
        tokenize("Bonjour.", "fr")


_PIECES = st.sampled_from(
    list("aAzZ09 .!?,;:'\"-%—–¿¡…\n\u200béñ")
    + ["'s", "'s-H", "z'n", "zo'n", "'t", "Cd.", "Dra.", "pág.", "blz.", "d.w.z.", "30%", "—¿",
       "?—", "a-b", "\n\n"])


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(LANGUAGES), st.lists(_PIECES, max_size=40).map("".join))
def test_every_language_keeps_tokens_exact(language, text):
    sents = tokenize(text, language)
    pos = 0
    for sent in sents:
        assert sent
        for t in sent:
            assert visible(text[t.start:t.end]) == t.text and t.text and t.start >= pos
            assert not any(c.isspace() for c in t.text)
            pos = t.end
    assert "".join(t.text for s in sents for t in s) == "".join(visible(text).split())
