"""The parser (task psg) end to end: its training data (one sentence per tree level), a tiny
trained level network whose NumPy runtime reproduces PyTorch's scores and decoding, and its
tree in every output (tab columns, JSON, the API, spaCy, `senna evaluate`)."""

from __future__ import annotations

import io
import json
import shutil
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytest
from conftest import FIX, assert_parser_runtime_is_network

torch = pytest.importorskip("torch")

from senna.cli import evaluate as cli_evaluate  # noqa: E402
from senna.cli import tag as cli_tag  # noqa: E402
from senna.features.kinds import Batch  # noqa: E402
from senna.io.checkpoint import load_model  # noqa: E402
from senna.io.conll import read_gold_conll  # noqa: E402
from senna.io.formats import guess_format, read_dataset  # noqa: E402
from senna.io.saved_model import ModelError  # noqa: E402
from senna.nn.networks import weights_of  # noqa: E402
from senna.runtime.model import TaskModel  # noqa: E402
from senna.runtime.parser import ParserModel  # noqa: E402
from senna.runtime.pipeline import Pipeline  # noqa: E402
from senna.syntax.levels import (  # noqa: E402
    BELOW,
    level_features,
    levels_to_tree,
    normalise,
    tree_to_levels,
    unchain,
)
from senna.syntax.tree import (  # noqa: E402
    ROOT,
    brackets_to_tree,
    column_to_brackets,
    conll_to_tree,
    tree_to_conll,
)
from senna.tasks import get_task  # noqa: E402
from senna.train.config import TrainConfig  # noqa: E402
from senna.train.data import batches, make_examples  # noqa: E402
from senna.train.loop import train  # noqa: E402
from senna.train.tagging import build  # noqa: E402

GOLD = FIX / "ewt_sample.gold_conll"
TREES = FIX / "ewt_sample.mrg"   # the same trees as Penn Treebank brackets
SENTENCE = "The luxury auto maker last year sold 1,214 cars in the U.S."


def config(out: Path, **kw) -> TrainConfig:
    settings = dict(task="psg", train=str(GOLD), dev_fraction=0.3, criterion="wll",
                    features="senna", out=str(out), epochs=2, hidden=20, conv=16, word_dim=8,
                    batch_size=4, threads=1)
    return TrainConfig(**{**settings, **kw})


@pytest.fixture(scope="module")
def psg_dir(tmp_path_factory) -> Path:
    """A psg model trained for 2 epochs on the fixture's trees."""
    out = tmp_path_factory.mktemp("psg") / "psg"
    train(config(out))
    return out


def test_levels_format_gives_each_level_with_the_labels_found_below():
    gold = read_gold_conll(GOLD)
    levels = read_dataset(GOLD, "levels")
    assert guess_format(GOLD) == "gold_conll"
    at = 0
    for s in gold:
        n = len(s.words)
        tree = normalise(conll_to_tree(s.columns["parse"]))
        mine = levels[at : at + len(tree_to_levels(tree))]
        at += len(mine)
        tags = [m.columns["psg"] for m in mine]
        assert all(m.words == s.words and m.columns["pos"] == s.columns["pos"] for m in mine)
        assert [m.columns[BELOW] for m in mine] == \
            [level_features(tags[:k], n) for k in range(len(mine))]
        assert mine[0].columns[BELOW] == ["O"] * n
        assert levels_to_tree(tags, n) == tree
    assert at == len(levels)


def test_psg_needs_word_level_training():
    with pytest.raises(ValueError, match="--criterion wll"):
        config(Path("unused"), criterion="sll")


def test_level_hidden_is_for_a_bilstm_parser():
    with pytest.raises(ValueError, match="with the bilstm approach"):
        config(Path("unused"), level_hidden=8)
    with pytest.raises(ValueError, match="for a parser"):
        TrainConfig(task="pos", train=str(GOLD), out="unused", approach="bilstm",
                    level_hidden=8)


# a BiLSTM level network that reads the words once per sentence (`level_hidden`)
LEVELS = dict(approach="bilstm", hidden=10, level_hidden=6, optimizer="adam", lr=0.01)


@pytest.fixture(scope="module")
def levels_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("psg-levels") / "psg"
    train(config(out, **LEVELS))
    return out


def test_batches_keep_a_sentences_levels_together(psg_dir):
    """`together`: the levels of one sentence (examples that differ in `below` only) are side
    by side in the shuffled order, so a batch holds few distinct sentences."""
    saved = load_model(psg_dir)
    examples = make_examples(get_task("psg"), read_dataset(GOLD, "levels"), saved.featurizer)
    sentence = {}
    group = [sentence.setdefault(e.ids[:, :-1].tobytes(), len(sentence)) for e in examples]
    for together in (True, False):
        found = [batch.index for batch in batches(examples, 4, None, np.random.default_rng(0),
                                                  together=together)]
        assert sorted(np.concatenate(found).tolist()) == list(range(len(examples)))
        spread = sum(len({group[i] for i in b}) for b in found)
        if together:   # every batch: the sentences whose levels it holds, at most one cut
            assert spread <= len(found) + len(sentence)
        else:
            assert spread > len(found) + len(sentence)


@pytest.fixture(scope="module")
def chars_dir(tmp_path_factory) -> Path:
    """That network also reading character vectors (`senna+chars`: they come before the
    levels found below, which it reads last)."""
    out = tmp_path_factory.mktemp("psg-chars") / "psg"
    train(config(out, **LEVELS, features="senna+chars:6", epochs=1))
    return out


@pytest.mark.parametrize("trained", ["psg_dir", "levels_dir", "chars_dir"])
def test_runtime_scores_are_the_trained_networks(trained, request):
    assert_parser_runtime_is_network(request.getfixturevalue(trained))


@pytest.mark.parametrize("beam", [1, 2])
@pytest.mark.parametrize("settings", [{}, LEVELS], ids=["sentence", "levels"])
def test_parse_decodes_what_the_network_scores_level_by_level(settings, beam, tmp_path):
    """An untrained network finds phrases everywhere, so its trees have many levels: the
    runtime (all sentences at once, in its chunks, greedy or with a beam) equals
    LevelDecoder.parse_spans over PyTorch's scores of each sentence and level, the `below`
    column rebuilt from the levels found."""
    cfg = config(tmp_path / "psg", **settings)
    sentences = read_dataset(GOLD, "levels")
    net, saved = build(cfg, get_task("psg"), sentences)
    saved.weights = weights_of(net)
    runtime = ParserModel(saved)
    runtime.beam = beam
    gold = read_gold_conll(GOLD)[:8]
    net.eval()

    def scorer(level, which, below):
        out = []
        for i, feature in zip(which, below, strict=True):
            words, pos = gold[i].words, gold[i].columns["pos"]
            ids = saved.featurizer.encode(words, {"pos": pos, BELOW: feature})
            with torch.no_grad():
                out.append(net(torch.from_numpy(ids[None]), torch.tensor([len(words)]),
                               torch.tensor([-1])).numpy()[0])
        return out

    expected = runtime.levels.parse_spans([len(s.words) for s in gold], scorer, beam)
    assert max(len(levels) for levels, _ in expected) > 2
    got = runtime.parse([s.words for s in gold], [s.columns for s in gold])
    assert got == [tree for _, tree in expected]


def models_with_parser(models: Path, psg_dir: Path, where: Path) -> Path:
    root = where / "models"
    shutil.copytree(models, root)
    shutil.copytree(psg_dir, root / "psg")
    return root


def tag(root: Path, *args: str, text: str = SENTENCE) -> str:
    out = io.BytesIO()
    assert cli_tag.main(["-path", str(root), *args], io.BytesIO(text.encode()), out) == 0
    return out.getvalue().decode()


def test_cli_json_and_api_give_the_same_tree(models, psg_dir, tmp_path):
    root = models_with_parser(models, psg_dir, tmp_path)
    rows = [line.split("\t") for line in tag(root, "-psg", "-pos").strip("\n").split("\n")]
    words, pos, column = ([r[i].strip() for r in rows] for i in range(3))
    assert words == SENTENCE.split()
    tree = conll_to_tree(column)   # every bracket closed, one root over all words
    assert (tree.label, tree.start, tree.end) == (ROOT, 0, len(words))
    assert tag(root, "-psg", "-pos", "-iobtags") == tag(root, "-psg", "-pos")
    doc = json.loads(tag(root, "-psg", "-pos", "--format", "json"))
    brackets = column_to_brackets(column, words, pos)
    assert doc["sentences"][0]["tree"] == brackets
    assert [t["psg"] for t in doc["sentences"][0]["tokens"]] == column
    api = Pipeline(root, tasks="psg").tag([words])[0]
    assert api.tree == brackets
    assert brackets_to_tree(brackets)[1:] == (words, pos)
    conllu = tag(root, "-psg", "-pos", "--format", "conllu")
    assert f"# constituency = {brackets}\n" in conllu   # the tree travels in its comment
    assert "(" not in "".join(line for line in conllu.splitlines() if line[:1] != "#")


def keeping_pt0(psg_dir: Path, out: Path) -> Path:
    """A copy of the tiny parser recorded as keeping PT0's phrases on its first level."""
    from senna.io.checkpoint import seal_model

    shutil.copytree(psg_dir, out)
    config = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**config, "first_level": "pt0"}))
    (out / "manifest.json").unlink()
    seal_model(out)   # its manifest, written again
    return out


def test_a_parser_keeping_pt0s_phrases_runs_pt0_first_and_keeps_them(models, psg_dir,
                                                                      tmp_path):
    from senna.syntax.levels import lowest_label

    root = tmp_path / "models"
    shutil.copytree(models, root)
    parser = ParserModel.load(keeping_pt0(psg_dir, root / "psg"))
    pipe = Pipeline(root, tasks="psg")
    assert pipe.order.index("pos") < pipe.order.index("pt0") < pipe.order.index("psg")
    words = [SENTENCE.split(), "He said ( quietly ) no .".split(), ["Yes"]]
    columns, _ = pipe.annotate(words)
    kept = 0
    for ws, cols in zip(words, columns, strict=True):
        first = tree_to_levels(normalise(conll_to_tree(cols["psg"])))[0]
        assert len(first) == len(ws)
        for got, given in zip(first, cols["pt0"], strict=True):
            if given in parser.levels.by_lowest:   # a label the parser's tags have
                assert lowest_label(got) == given
                kept += given != "O"
    assert kept   # some phrase was kept, not only O
    with pytest.raises(ValueError, match="keeps the phrases of the pt0 tagger: give each "
                                         "sentence its 'pt0' column"):
        parser.parse(words, [{"pos": c["pos"]} for c in columns])
    # one tag too many here, one too few there: as many in all, yet refused
    shifted = [c["pt0"] for c in columns]
    shifted = [shifted[0] + ["O"], shifted[1][:-1], shifted[2]]
    with pytest.raises(ValueError, match="expected one pt0 tag per word of each sentence"):
        parser.parse(words, [{"pos": c["pos"], "pt0": t}
                             for c, t in zip(columns, shifted, strict=True)])


def test_a_parser_with_its_own_pt0_tagger_tags_its_first_level_itself(models, psg_dir,
                                                                      tmp_path):
    """`psg/pt0/`: the parser's own PT0 tagger, run by the parser (the pipeline runs no
    PT0 for it); its trees are those of the same parser given that tagger's column."""
    from senna.runtime.ensemble import load_tagger

    root = tmp_path / "models"
    shutil.copytree(models, root, ignore=shutil.ignore_patterns("pt0"))
    own = keeping_pt0(psg_dir, root / "psg")
    shutil.copytree(models / "pt0", own / "pt0")
    parser = load_tagger(own)
    assert parser.first_tagger is not None and parser.first_tagger.task == "pt0"
    pipe = Pipeline(root, tasks="psg")
    assert "pt0" not in pipe.order   # no shipped PT0 needed: there is none in `root`
    words = [SENTENCE.split(), "He said ( quietly ) no .".split(), ["Yes"]]
    columns, _ = pipe.annotate(words)
    given = [{"pos": c["pos"], "pt0": t}
             for c, t in zip(columns, load_tagger(models / "pt0").predict(
                 words, [{"pos": c["pos"]} for c in columns]), strict=True)]
    alone = ParserModel.load(keeping_pt0(psg_dir, tmp_path / "alone"))
    assert [c["psg"] for c in columns] == alone.predict(words, given)
    assert parser.parse(words, [{"pos": c["pos"]} for c in columns]) == \
        alone.parse(words, given)   # no PT0 column needed
    shutil.rmtree(own / "pt0")
    shutil.copytree(models / "pos", own / "pt0")
    with pytest.raises(ModelError, match="a pos model where the parser's first level needs "
                                         "a pt0 tagger"):
        load_tagger(own)


def test_a_parser_with_an_nml_tagger_puts_its_phrases_back(models, psg_dir, tmp_path,
                                                          monkeypatch):
    """`psg/nml/`: a tagger of the NML nodes the levels flatten; the parser's trees are
    those of the parser alone with that tagger's phrases inserted (`insert_phrases`)."""
    from conftest import tiny_model

    from senna.io.checkpoint import save_model
    from senna.runtime.ensemble import load_tagger
    from senna.syntax.levels import insert_phrases
    from senna.tags import tags_to_spans
    from senna.tasks import ALIASES, TASKS, declare, task_record

    for known in (TASKS, ALIASES):   # the tiny tagger's task, not the shipped one's: its
        monkeypatch.setitem(known, "nml", None)      # record goes when the test ends
        monkeypatch.delitem(known, "nml")

    tags = ["B-NML", "E-NML", "I-NML", "O", "S-NML"]
    nml = tiny_model("nml", tags, ("pos",), seed=7)
    nml.weights["l2.bias"][:] = [0, 0, 0, 0, 50]   # a node over every word, where it fits
    nml.info["task_spec"] = task_record(declare("nml", "word,pos,nml", "iobes"))
    own = tmp_path / "psg"
    shutil.copytree(psg_dir, own)
    save_model(own / "nml", nml)
    parser = load_tagger(own)
    assert list(parser.flattened) == ["NML"] and parser.flattened["NML"].task == "nml"
    alone = load_tagger(psg_dir)
    words = [SENTENCE.split(), "He said ( quietly ) no .".split(), ["Yes"]]
    columns = [{"pos": ["NN"] * len(w)} for w in words]
    found = parser.flattened["NML"].predict(words, columns)
    expected = [insert_phrases(t, tags_to_spans(f))
                for t, f in zip(alone.parse(words, columns), found, strict=True)]
    trees = parser.parse(words, columns)
    assert trees == expected and trees != alone.parse(words, columns)
    assert any(t.label == "NML" for tree in trees for t in tree.nodes())
    root = tmp_path / "models"
    shutil.copytree(models, root)
    shutil.copytree(own, root / "psg")
    out, _ = Pipeline(root, tasks="psg").annotate(words)
    assert [c["psg"] for c in out] == [tree_to_conll(unchain(t)) for t in parser.parse(
        words, [{"pos": c["pos"]} for c in out])]
    shutil.rmtree(own / "nml")
    shutil.copytree(models / "pos", own / "nml")
    with pytest.raises(ModelError, match="a pos model where the parser's NML nodes need an? "
                                         "nml tagger"):
        load_tagger(own)


def test_a_parser_predicts_the_tree_column_of_training_data(psg_dir):
    """`--predicted-columns psg=DIR`: the training sentences' trees come from the parser
    (levels decoded as at run time), not from its network read as a one-level tagger."""
    from senna.train.prepare import predict_columns

    gold = read_gold_conll(GOLD)[:6]
    train_sents, dev_sents = [replace(s, columns=dict(s.columns)) for s in gold[:4]], \
        [replace(s, columns=dict(s.columns)) for s in gold[4:]]
    cfg = config(psg_dir, predicted_columns=f"psg={psg_dir}", jackknife=0)
    predict_columns(cfg, train_sents, dev_sents)
    parser = ParserModel.load(psg_dir)
    for s in train_sents + dev_sents:
        assert s.columns["psg"] == parser.predict([s.words], [{"pos": s.columns["pos"]}])[0]
        assert conll_to_tree(s.columns["psg"]).label == ROOT


def test_the_beam_of_the_cli_and_the_api(models, psg_dir, tmp_path):
    """`--psg-beam N` and `senna.load(beam=N)` set the parser's beam (default BEAM): the
    same trees either way."""
    import senna
    from senna.runtime.parser import BEAM

    root = models_with_parser(models, psg_dir, tmp_path)
    assert senna.load(root, ["psg"]).pipeline.models["psg"].beam == BEAM == 1
    for beam in (2, 3):
        tagger = senna.load(root, ["psg"], beam=beam)
        assert tagger.pipeline.models["psg"].beam == beam
        cells = tagger(SENTENCE).sentences[0].columns["psg"]
        column = [line.split("\t")[-1].strip() for line in
                  tag(root, "-psg", "--psg-beam", str(beam)).splitlines() if line.strip()]
        assert column == cells
    with pytest.raises(ValueError, match="beam must be at least 1"):
        senna.load(root, ["psg"], beam=0)


def test_the_api_gives_an_nltk_tree(models, psg_dir, tmp_path):
    nltk = pytest.importorskip("nltk")
    root = models_with_parser(models, psg_dir, tmp_path)
    words = "He said ( quietly ) no .".split()
    sent = Pipeline(root, tasks="psg").tag([words])[0]
    tree = sent.nltk_tree()
    assert isinstance(tree, nltk.Tree) and tree.label() == ROOT
    assert [w.replace("-LRB-", "(").replace("-RRB-", ")") for w in tree.leaves()] == words
    assert [tag for _, tag in tree.pos()] == sent.columns["pos"]
    assert Pipeline(root, tasks="pos").tag([words])[0].nltk_tree() is None


def test_srl_reads_the_levels_of_the_parsers_tree(models, psg_dir, tmp_path):
    """SRL with '+levels' features, trained on the gold trees of its data file, reads at run
    time the levels of the tree the parser gives (the pipeline runs the parser first)."""
    from conftest import small_config

    from senna.features.kinds import LevelFeature
    from senna.runtime.model import TaskModel
    from senna.syntax.levels import column_levels

    cfg = small_config(tmp_path, "srl-sentence-levels")
    train(cfg)
    root = models_with_parser(models, psg_dir, tmp_path)
    shutil.rmtree(root / "srl")
    shutil.copytree(cfg.out, root / "srl")
    pipe = Pipeline(root, tasks="srl")
    assert pipe.order.index("psg") < pipe.order.index("srl")
    words = SENTENCE.split()
    sent = pipe.tag([words], predicates=[[6]])[0]
    srl = TaskModel.load(root / "srl")
    assert sent.roles == srl.predict_roles_many([words], [[6]], [sent.columns])[0]
    # the level features are those of the parser's tree, level k for feature level<k>
    levels = column_levels(sent.columns["psg"])
    for feature in srl.featurizer.of_kind(LevelFeature):
        k = int(feature.spec.arg)
        tags = levels[k] if k < len(levels) else ["O"] * len(words)
        ids = feature.batch_ids(Batch([len(words)], [sent.columns], [6], None, None))
        assert list(ids) == [feature.vocab.index.get(t, feature.vocab.unk_id) for t in tags]
    # the parser's column comes before a data file's gold tree
    gold = max(read_dataset(FIX / "ewt_sample.verbs-args.conll", "srl"),
               key=lambda s: len(column_levels(s.columns["parse"])))
    flat = ["(TOP(S*"] + ["*"] * (len(gold.words) - 2) + ["*))"]
    feature = srl.featurizer.of_kind(LevelFeature)[0]
    n, outside = len(gold.words), feature.vocab.index["O"]
    assert set(feature.batch_ids(Batch([n], [gold.columns], [0], None, None))) != {outside}
    both = {**gold.columns, "psg": flat}
    assert list(feature.batch_ids(Batch([n], [both], [0], None, None))) == [outside] * n


def test_a_long_sentence_parsed_in_pieces_is_one_tree(models, psg_dir, tmp_path):
    root = models_with_parser(models, psg_dir, tmp_path)
    words = (SENTENCE + " " + SENTENCE).split()
    sent = Pipeline(root, tasks="psg", max_words=8).tag([words])[0]
    tree, found, _ = brackets_to_tree(sent.tree)
    assert found == words
    assert tree.label == ROOT and len(tree.children) >= 2


def test_column_to_brackets_joins_trees_under_one_root():
    one = tree_to_conll(conll_to_tree(["(TOP(S(NP*", "*)", "(VP*)))"]))
    two = tree_to_conll(conll_to_tree(["(TOP(NP*", "*))"]))
    words, tags = list("abcde"), ["X"] * 5
    assert column_to_brackets(one + two, words, tags) == \
        "(TOP (S (NP (X a) (X b)) (VP (X c))) (NP (X d) (X e)))"
    with pytest.raises(ValueError, match="outside the tree"):
        column_to_brackets(["(S*)", "(S*)"], ["a", "b"], ["X", "X"])


def test_evaluate_prints_labelled_bracket_scores(psg_dir, capsys, tmp_path):
    assert cli_evaluate.main(["--task", "psg", "--pred", str(GOLD), "--data", str(GOLD)]) == 0
    assert "Bracketing FMeasure       = 100.00" in capsys.readouterr().out
    pred = tmp_path / "pred.gold_conll"
    assert cli_evaluate.main(["--task", "psg", "--model", str(psg_dir), "--data",
                              str(GOLD), "--out", str(pred)]) == 0
    out = capsys.readouterr().out
    f1 = float(out.split("Bracketing FMeasure")[1].split("=")[1].split()[0])
    assert 0 < f1 < 100
    # --out: the gold file with the model's trees, which --pred scores the same
    assert [s.words for s in read_gold_conll(pred)] == [s.words for s in read_gold_conll(GOLD)]
    assert cli_evaluate.main(["--task", "psg", "--pred", str(pred), "--data", str(GOLD)]) == 0
    assert capsys.readouterr().out == out


def test_a_parser_trains_and_scores_on_bracketed_trees(psg_dir, capsys, tmp_path):
    """A treebank of bracketed trees trains the same parser as the .gold_conll file of the
    same trees (the criterion left to its default, wll), and `senna evaluate` scores it
    there, its --out a file of bracketed trees that --pred scores the same."""
    cfg = config(tmp_path / "psg")
    settings = {k: v for k, v in asdict(cfg).items() if k != "criterion"}
    mine = TrainConfig.from_dict({**settings, "train": str(TREES)})
    assert mine.criterion == "wll"
    train(mine)
    capsys.readouterr()
    with np.load(psg_dir / "weights.npz") as a, np.load(mine.out + "/weights.npz") as b:
        assert sorted(a) == sorted(b)
        for name in a:
            np.testing.assert_array_equal(a[name], b[name])
    scores = []
    for data in (GOLD, TREES):
        assert cli_evaluate.main(["--model", mine.out, "--data", str(data)]) == 0
        scores.append(capsys.readouterr().out)
    assert scores[0] == scores[1]
    pred = tmp_path / "pred.mrg"
    assert cli_evaluate.main(["--model", mine.out, "--data", str(TREES), "--out",
                              str(pred)]) == 0
    capsys.readouterr()
    assert pred.read_text().startswith("(TOP (")
    assert cli_evaluate.main(["--task", "psg", "--pred", str(pred), "--data", str(TREES)]) == 0
    assert capsys.readouterr().out == scores[0]


def test_a_pt0_tagger_trains_and_scores_on_bracketed_trees(tmp_path, capsys):
    """`--task pt0 --format trees`: the trees' leaf phrases are its tags, so it trains the
    tagger that a .pt0 file of the same words, POS and tags trains, and `senna evaluate`
    scores it on the trees as on that file; read as PT0 columns, the trees are refused with
    the option that reads them."""
    from senna.datasets import read_task_file
    from senna.io.formats import write_dataset
    from senna.io.lines import DataFormatError

    columns = tmp_path / "sample.pt0"
    write_dataset(read_task_file(str(TREES), "trees", get_task("pt0")), columns, "pt0",
                  ["pos", "pt0"])
    common = dict(task="pt0", approach="bilstm", epochs=2, hidden=16, word_dim=8,
                  batch_size=4, threads=1, dev_fraction=0.3)
    runs = {"trees": TrainConfig(**common, train=str(TREES), format="trees",
                                 out=str(tmp_path / "from-trees")),
            "columns": TrainConfig(**common, train=str(columns), out=str(tmp_path / "pt0"))}
    for cfg in runs.values():
        train(cfg)
    with np.load(tmp_path / "from-trees" / "weights.npz") as a, \
            np.load(tmp_path / "pt0" / "weights.npz") as b:
        assert sorted(a) == sorted(b)
        for name in a:
            np.testing.assert_array_equal(a[name], b[name])
    capsys.readouterr()
    reports = []
    for model, data in (("from-trees", TREES), ("pt0", columns)):
        assert cli_evaluate.main(["--model", str(tmp_path / model), "--data", str(data)]) == 0
        reports.append(capsys.readouterr().out)
    assert reports[0] == reports[1] and "FB1" in reports[0]
    with pytest.raises(DataFormatError, match="holds bracketed trees: read them with "
                                              "--format trees"):
        train(replace(runs["trees"], format="", out=str(tmp_path / "refused")))


def test_a_first_level_kept_from_a_tagger_of_other_labels_is_refused(psg_dir):
    """A parser whose first level keeps the phrases of a PT0 tagger of labels it never
    learnt (another treebank's) is refused; the CoNLL chunk labels, a subset of its own, pass."""
    from conftest import CHUNK, POS, tiny_model

    from senna.io.saved_model import ModelError

    parser = ParserModel.load(psg_dir)
    parser.first_level = "pt0"
    pos = TaskModel(tiny_model("pos", POS, seed=1))
    other = ["O"] + [f"{p}-{c}" for c in ("sn", "grup.verb", "sp") for p in "BIES"]
    def pipeline(tags: list[str]) -> Pipeline:
        pt0 = TaskModel(tiny_model("pt0", tags, ("pos",), seed=4))
        return Pipeline(models={"psg": parser, "pos": pos, "pt0": pt0}, tasks=["psg"])

    with pytest.raises(ModelError, match="the psg model keeps the phrases of a tagger that it "
                                         "was never trained on"):
        pipeline(other)
    assert pipeline(CHUNK).order == ["pos", "pt0", "psg"]


def test_evaluate_parses_from_the_pos_tags_the_runtime_reads(psg_dir, capsys):
    """Without --gold-inputs the parser reads the shipped POS tagger's tags, as `senna -psg`
    does; with it, the file's."""
    from senna.runtime.folders import default_model_dir
    from senna.runtime.model import TaskModel
    from senna.runtime.predict import tag_column
    from senna.scoring.evalb import bracket_scores, format_brackets
    from senna.syntax.levels import unchain

    gold = read_gold_conll(GOLD)
    tagged = [replace(s, columns=dict(s.columns)) for s in gold]
    tag_column(TaskModel.load(default_model_dir() / "pos"), tagged, "pos")
    assert any(a.columns["pos"] != b.columns["pos"] for a, b in zip(gold, tagged, strict=True))
    parser = ParserModel.load(psg_dir)
    reference = [conll_to_tree(s.columns["parse"]) for s in gold]
    pos = [s.columns["pos"] for s in gold]
    expect = {flag: format_brackets(bracket_scores(reference, [
        unchain(t) for t in parser.parse([s.words for s in sents], [s.columns for s in sents])],
        pos)) for flag, sents in ((False, tagged), (True, gold))}
    for gold_inputs in (False, True):
        argv = ["--model", str(psg_dir), "--data", str(GOLD)] + \
            ["--gold-inputs"] * gold_inputs
        assert cli_evaluate.main(argv) == 0
        assert capsys.readouterr().out == expect[gold_inputs]


def test_spacy_gets_one_tree_per_sentence(models, psg_dir, tmp_path):
    spacy = pytest.importorskip("spacy")
    root = models_with_parser(models, psg_dir, tmp_path)
    nlp = spacy.blank("en")
    nlp.add_pipe("senna", config={"tasks": ["psg"], "model_dir": str(root)})
    doc = nlp("The cat sat on the mat. A dog ran.")
    assert [brackets_to_tree(t)[1] for t in doc._.trees] == \
        [[t.text for t in s] for s in doc.sents]


@pytest.mark.slow
def test_explore_adds_the_states_fold_parsers_reach_off_the_gold_path(tmp_path, monkeypatch):
    """--explore 2: two parsers, each trained without one half of the training trees, parse
    that half; each state off the gold path joins the training data with the oracle's next
    level.  The fold parsers train for --explore-epochs; a second run reuses them."""
    import senna.train.folds as fold_models
    from senna.syntax.oracle import next_level
    from senna.tags import tags_to_spans
    from senna.train.prepare import prepare

    trained: list[set] = []
    epochs: list[int] = []
    real = fold_models.train

    def recording(cfg, data=None):
        trained.append({tuple(s.words) for s in data.train})
        epochs.append(cfg.epochs)
        return real(cfg, data)

    monkeypatch.setattr(fold_models, "train", recording)
    cfg = config(tmp_path / "psg", explore=2, epochs=3, explore_epochs=1,
                 lr=1e-9, jackknife_dir=str(tmp_path / "folds"))   # fold parsers: untrained
    data = prepare(cfg)
    plain = prepare(config(tmp_path / "plain"))
    dev = {tuple(s.words) for s in data.dev}
    trees = [s for s in read_gold_conll(GOLD) if tuple(s.words) not in dev]
    halves = [{tuple(s.words) for s in trees[: len(trees) // 2]},
              {tuple(s.words) for s in trees[len(trees) // 2 :]}]
    assert len(trained) == 2 and all(not t & h for t, h in zip(trained, halves, strict=True))
    assert epochs == [1, 1]
    assert data.train[: len(plain.train)] == plain.train
    extra = data.train[len(plain.train) :]
    assert extra, "an untrained parser strays from the gold path"
    by_words = {tuple(s.words): s for s in trees}
    for s in extra:
        levels = tree_to_levels(normalise(conll_to_tree(by_words[tuple(s.words)].columns["parse"])))
        n = len(s.words)
        assert s.columns[BELOW] not in [level_features(levels[:k], n) for k in range(len(levels))]
        gold = [span for tags in levels for span in tags_to_spans(tags)]
        assert tags_to_spans(s.columns["psg"]) == next_level(s.columns[BELOW], gold)
    prepare(cfg)
    assert len(trained) == 2


def test_training_scores_a_parser_by_its_whole_trees(psg_dir, monkeypatch):
    """The dev score that selects a parser's epoch is the bracket F1 of its trees: the kept
    model's recorded score is `tree_score` of it, and the gold trees score 100."""
    from senna.datasets import level_zero, split_train_dev
    from senna.scoring.trees import tree_score

    train_levels, dev = split_train_dev(read_dataset(GOLD, "levels"), 0.3, level_zero)
    assert level_zero(dev[0]) and not {tuple(s.words) for s in train_levels} & {
        tuple(s.words) for s in dev}, "no tree has levels on both sides"
    saved = load_model(psg_dir)
    history = json.loads((psg_dir / "history.json").read_text())["history"]
    best = max(h["dev"]["psg"] for h in history)
    assert tree_score(saved, dev)["score"] == pytest.approx(best, abs=1e-9) and best > 0
    assert "labelled bracket scores of its whole trees" in (psg_dir / "MODEL_CARD.md").read_text()
    trees = {tuple(s.words): normalise(conll_to_tree(s.columns["parse"]))
             for s in read_gold_conll(GOLD)}
    monkeypatch.setattr(ParserModel, "parse",
                        lambda self, words, columns=None, states=None:
                        [trees[tuple(w)] for w in words])
    assert tree_score(saved, dev)["score"] == 100
