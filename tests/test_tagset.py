"""POS tags in WSJ conventions (senna.tagset): every mapping rule on hand-made sentences, the
API's `tagset=` and the CLI's `--tagset` (default wsj, ewt unchanged), and the cascade still
reading EWT tags."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import CHUNK, POS, tiny_model

from senna.api import Tagger, load
from senna.cli import tag as cli
from senna.document import Sentence
from senna.io.checkpoint import save_model
from senna.runtime.pipeline import Pipeline
from senna.tagset import EWT_TAGS, TAG_MAP, WSJ_TAGS, apply_tagset, check_tagset, convert, to_wsj


def wsj(pairs: str) -> str:
    """'word/TAG word/TAG' -> the mapped tags, space-separated (words hold no '/' here
    except before the last one)."""
    words, tags = zip(*(p.rsplit("/", 1) for p in pairs.split()), strict=True)
    return " ".join(to_wsj(words, tags))


def test_every_to_is_TO():
    assert wsj("I/PRP went/VBD to/IN Paris/NNP to/TO see/VB it/PRP") == "PRP VBD TO NNP TO VB PRP"
    assert wsj("To/IN me/PRP ,/, TO/IN go/VB back/RB to/RB") == "TO PRP , TO VB RB TO"


@pytest.mark.parametrize("word,tag", [(";", ","), (";", ":"), ("--", ","), ("--", "NFP"),
                                      ("-", ","), ("-", "HYPH"), ("-", "SYM"), ("—", "NFP"),
                                      ("–", ":"), ("---", "NFP"), ("...", ","), ("...", "."),
                                      ("..", "."), ("....", "NFP"), ("…", "."), ("/", ","),
                                      ("=", ",")])
def test_semicolons_dashes_ellipses_and_comma_tagged_punctuation_are_colons(word, tag):
    assert to_wsj(["a", word, "b"], ["DT", tag, "NN"]) == ["DT", ":", "NN"]


def test_commas_and_words_tagged_comma_stay_commas():
    assert to_wsj([",", "，", "3/4"], [",", ",", ","]) == [",", ",", ","]


def test_quotes_are_open_and_close_tags():
    assert wsj("``/NFP a/DT ''/, “/'' b/NN ”/`` ‘/'' c/NN `/,") == "`` DT '' `` NN '' `` NN ``"


def test_straight_double_quotes_alternate_open_close():
    """The tagger's direction is overridden: the second `"` closes even if tagged ``."""
    got = wsj('"/`` Go/VB "/`` ,/, he/PRP said/VBD ,/, "/NN now/RB "/\'\'')
    assert got == "`` VB '' , PRP VBD , `` RB ''"


def test_apostrophes_keep_their_tag():
    assert wsj("dogs/NNS '/POS ’/'' '/``") == "NNS POS '' ``"


def test_brackets():
    got = wsj("(/-LRB- a/DT )/-RRB- [/NFP b/NN ]/, {/SYM }/. -LRB-/NN -RCB-/NNP </-LRB- >/-RRB-")
    assert got == "( DT ) ( NN ) ( ) ( ) ( )"


def test_hash_is_its_own_tag():
    assert wsj("#/NN 1/CD") == "# CD"


@pytest.mark.parametrize("ewt,expected", sorted(TAG_MAP.items()))
def test_tag_rules(ewt, expected):
    assert to_wsj(["x"], [ewt]) == [expected]


def test_nfp_symbols_and_emoticons_are_SYM_dashes_colons():
    assert wsj("*/NFP :)/NFP |/NFP --/NFP ____/NFP") == "SYM SYM SYM : SYM"


def test_gw_takes_the_tag_of_the_word_it_goes_with():
    assert wsj("socio/GW -/HYPH political/JJ aspect/NN") == "JJ : JJ NN"
    assert wsj("e/GW mail/NN it/PRP") == "NN NN PRP"
    assert wsj("re/GW ,/, x/GW") == "NN , NN"                 # punctuation or nothing after
    assert wsj("us/GW $/$ 5/CD") == "NN $ CD"


def test_capitalised_gw_pieces_are_proper_nouns():
    assert wsj("Ken/GW Rice@ENRON/GW COMMUNICATIONS/ADD") == "NNP NNP NNP"
    assert wsj("Mid/GW year/NN") == "NNP NN"


def test_every_ewt_tag_lands_in_the_45_tags():
    assert len(WSJ_TAGS) == 45 and len(EWT_TAGS) == 50
    for tag in EWT_TAGS:
        for word in ("word", "Word", "-", '"', "x"):
            assert set(to_wsj([word, "a", word], [tag, "GW", tag])) <= WSJ_TAGS, (word, tag)


def test_shared_tags_and_unknown_tags_pass_through():
    shared = sorted(WSJ_TAGS & EWT_TAGS)
    assert to_wsj(["w"] * len(shared), shared) == shared
    assert to_wsj(["w"], ["B-NP"]) == ["B-NP"]
    assert to_wsj([], []) == []


def test_ewt_tags_are_the_training_data_tags(data_dir):
    lines = (data_dir / "ewt" / "ewt.train.pos").read_text(encoding="utf-8").splitlines()
    assert {line.split("\t")[1] for line in lines if line} == EWT_TAGS


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="2 words but 1 tags"):
        to_wsj(["a", "b"], ["DT"])
    with pytest.raises(ValueError, match="tagset must be one of wsj, ewt"):
        check_tagset("ptb")
    with pytest.raises(ValueError, match="tagset"):
        convert(["a"], ["DT"], "WSJ")


def test_convert_and_apply_tagset():
    words, tags = ["go", "to", "-"], ["VB", "IN", "HYPH"]
    assert convert(words, tags, "ewt") == tags
    assert convert(words, tags) == ["VB", "TO", ":"]
    sents = [Sentence(words, {"pos": list(tags)}), Sentence(["to"]), Sentence([])]
    apply_tagset(sents, "ewt")
    assert sents[0].columns["pos"] == tags
    apply_tagset(sents)
    assert sents[0].columns["pos"] == ["VB", "TO", ":"]
    assert "pos" not in sents[1].columns


# --- the API, the CLI and the cascade, on tiny models whose POS tagger says IN everywhere

WORDS = ["the", "cat", "wants", "to", "sit", ";", "#", "1"]


@pytest.fixture(scope="module")
def in_models(tmp_path_factory) -> Path:
    """pos/ (always IN, as EWT's tagger may say for "to") and chunk/ reading POS."""
    root = tmp_path_factory.mktemp("in_models")
    pos = tiny_model("pos", POS, seed=1)
    pos.weights["l2.bias"][POS.index("IN")] = 1e4
    save_model(root / "pos", pos)
    save_model(root / "chunk", tiny_model("chunk", CHUNK, ("pos",), seed=2))
    return root


def pos_of(doc) -> list[str]:
    return [t for s in doc.sentences for t in s.columns["pos"]]


def test_api_default_is_wsj_and_ewt_is_unchanged(in_models):
    ewt = pos_of(load(in_models, ["pos"], tagset="ewt")(WORDS))
    assert ewt == ["IN"] * len(WORDS)
    default = pos_of(load(in_models, ["pos"])(WORDS))
    assert default == ["IN", "IN", "IN", "TO", "IN", ":", "#", "IN"]
    assert pos_of(load(in_models, ["pos"], tagset="wsj")(WORDS)) == default
    docs = list(load(in_models, ["pos"]).pipe([WORDS, " ".join(WORDS)]))
    assert [pos_of(d) for d in docs] == [default, default]


def test_api_rejects_an_unknown_tagset(in_models, tmp_path):
    with pytest.raises(ValueError, match="tagset must be one of"):
        load(tmp_path / "missing", ["pos"], tagset="penn")     # before looking for models
    with pytest.raises(ValueError, match="tagset must be one of"):
        Tagger(Pipeline(in_models, ["pos"]), "penn")


def test_cascade_reads_ewt_tags(in_models):
    """CHUNK's features get the EWT tags (IN for "to", for ";"), the document the WSJ ones,
    and the chunks are the same whatever the output tag set."""
    chunks = {}
    for tagset in ("wsj", "ewt"):
        tagger = load(in_models, ["chk"], tagset=tagset)
        model = tagger.pipeline.models["chunk"]
        seen: list[list[str]] = []
        emissions = model.emissions

        def spy(sentences, columns, emissions=emissions, seen=seen):
            seen += [list(c["pos"]) for c in columns]
            return emissions(sentences, columns)

        model.emissions = spy
        doc = tagger(WORDS)
        assert seen == [["IN"] * len(WORDS)]
        chunks[tagset] = doc.sentences[0].columns["chunk"]
        assert (pos_of(doc)[3], pos_of(doc)[5]) == (
            ("TO", ":") if tagset == "wsj" else ("IN", "IN"))
    assert chunks["wsj"] == chunks["ewt"]


def cli_out(models: Path, *args: str) -> str:
    out = io.BytesIO()
    columns = [] if "json" in args else ["-notokentags"]
    assert cli.main(["-path", str(models), "-usrtokens", "-pos", *columns, *args],
                    io.BytesIO((" ".join(WORDS) + "\n").encode()), out) == 0
    return out.getvalue().decode()


def cli_pos(models: Path, *args: str) -> list[str]:
    return cli_out(models, *args).split()


def test_cli_tagset_flag(in_models):
    assert cli_pos(in_models) == ["IN", "IN", "IN", "TO", "IN", ":", "#", "IN"]
    assert cli_pos(in_models, "--tagset", "wsj") == cli_pos(in_models)
    assert cli_pos(in_models, "--tagset", "ewt") == ["IN"] * len(WORDS)
    doc = json.loads(cli_out(in_models, "--format", "json"))
    assert [t["pos"] for t in doc["sentences"][0]["tokens"]] == cli_pos(in_models)
    with pytest.raises(ValueError, match="--tagset"):
        cli_pos(in_models, "--tagset", "penn")
