"""The ranking language model: corpus preparation, sampling, the corruption shortcut,
learning, exact resume, DDP over gloo, and the `senna lm` commands."""

from __future__ import annotations

import lzma
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from senna.cli.main import main as senna_main  # noqa: E402
from senna.lm.corpus import Corpus, prepare_corpus  # noqa: E402
from senna.lm.model import RankingLM, grow_vocab, ranking_loss  # noqa: E402
from senna.lm.sampler import WindowSampler  # noqa: E402
from senna.lm.train import CHECKPOINT, LMConfig, launch, train_lm  # noqa: E402

SUBJECTS = ["the cat", "a dog", "the old man", "my sister", "John", "Paris"]
VERBS = ["sees", "likes", "eats", "visits", "finds"]
OBJECTS = ["the fish", "a red apple", "the small house", "London", "2 books", "the river"]


def synthetic_text(n_articles: int = 60, seed: int = 0) -> str:
    """Articles of subject-verb-object sentences: word order is learnable in seconds."""
    rng = random.Random(seed)
    arts = []
    for _ in range(n_articles):
        paras = []
        for _ in range(3):
            paras.append(" ".join(f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} "
                                  f"{rng.choice(OBJECTS)}." for _ in range(4)))
        arts.append("\n".join(paras))
    return "\n\n".join(arts) + "\n"


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("lm")
    text = synthetic_text()
    half = text.index("\n\n", len(text) // 2)
    (d / "a.txt").write_text(text[:half] + "\n")
    with lzma.open(d / "b.txt.xz", "wt", encoding="utf-8") as f:
        f.write(text[half + 2:])
    prepare_corpus([d / "a.txt", d / "b.txt.xz"], d / "corpus", workers=1, heldout_every=5,
                   progress=False)
    return d / "corpus"


def test_prepared_corpus_is_normalised_padded_and_frequency_ordered(corpus_dir):
    c = Corpus(corpus_dir)
    assert c.words[:2] == ["PADDING", "RARE"]
    assert list(c.counts[2:]) == sorted(c.counts[2:], reverse=True)
    assert "NUMBER" in c.words and "paris" in c.words and "Paris" not in c.words
    ids = np.asarray(c.ids("train"))
    assert (ids[:5] == 0).all() and (ids[-5:] == 0).all()
    # sentences are separated by `pad` PADDING ids (2 * pad where two shards meet)
    edges = np.flatnonzero(np.diff(np.r_[0, (ids == 0).astype(int), 0]))
    runs = edges[1::2] - edges[::2]
    assert runs.min() == 5 and (runs % 5 == 0).all() and (runs == 5).mean() > 0.9
    assert c.meta["words"]["heldout"] > 0 and c.meta["words"]["train"] > c.meta["words"]["heldout"]
    assert len(c.caps("train")) == len(ids)
    total = sum(c.meta["words"].values())
    assert total == sum(len(s.split()) + 1 for s in synthetic_text().replace("\n", " ")
                        .split(".") if s.strip())  # words + the sentence's period


def test_a_corpus_is_tokenised_by_its_languages_conventions(tmp_path):
    """Spanish text as CoNLL-2002 tokenises it (hyphenated words whole), so that the
    language model's dictionary has the words a Spanish tagger reads."""
    (tmp_path / "es.txt").write_text("El tren Castilla-La Mancha sale hoy.\n")
    words = {}
    for language in ("en", "es"):
        prepare_corpus([tmp_path / "es.txt"], tmp_path / language, workers=1, progress=False,
                       language=language)
        words[language] = Corpus(tmp_path / language).words
    assert "castilla-la" in words["es"] and "castilla-la" not in words["en"]


def test_sampler_draws_in_dictionary_centres_and_maps_the_rest_to_rare(corpus_dir):
    c = Corpus(corpus_dir)
    s = WindowSampler(np.asarray(c.ids()), 5)
    gen = torch.Generator().manual_seed(0)
    win, neg = s.sample(500, 6, 3, gen)
    assert win.shape == (500, 5) and neg.shape == (500, 3)
    assert ((win[:, 2] >= 2) & (win[:, 2] < 6)).all()
    assert (win < 6).all() and ((neg >= 2) & (neg < 6)).all()


def test_corruption_shortcut_equals_scoring_the_corrupted_window():
    torch.manual_seed(0)
    m = RankingLM(40, dim=6, window=5, hidden=7)
    win = torch.randint(0, 40, (8, 5))
    neg = torch.randint(2, 40, (8, 3))
    s_pos, s_neg = m.score(win, neg)
    for k in range(3):
        corrupted = win.clone()
        corrupted[:, 2] = neg[:, k]
        full, _ = m.score(corrupted, neg[:, :1])
        torch.testing.assert_close(s_neg[:, k], full, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(m.gaps(m.lookup(win, neg)), s_pos[:, None] - s_neg, rtol=1e-5,
                               atol=1e-5)
    manual = torch.relu(1 - s_pos[:, None] + s_neg).sum(1).mean()
    torch.testing.assert_close(ranking_loss(s_pos, s_neg), manual)
    torch.testing.assert_close(ranking_loss(s_pos[:2], s_neg[:2], batch=8),
                               torch.relu(1 - s_pos[:2, None] + s_neg[:2]).sum() / 8)


def test_grow_vocab_keeps_old_rows_and_starts_new_ones_near_rare():
    torch.manual_seed(0)
    m = RankingLM(10, dim=4, window=3, hidden=5)
    g = grow_vocab(m, 15)
    assert torch.equal(g.emb.weight[:10], m.emb.weight)
    assert torch.equal(g.l1.weight, m.l1.weight)
    assert (g.emb.weight[10:] - m.emb.weight[1]).abs().max() < 1.0
    with pytest.raises(ValueError):
        grow_vocab(m, 5)


def small_config(corpus_dir, out, **kw) -> LMConfig:
    base = dict(corpus=str(corpus_dir), out=str(out), dim=8, window=5, hidden=16, batch=64,
                negatives=3, stages=[[10, 6400], [30, 6400]], threads=1, eval_windows=2000,
                log_every=5, seed=3)
    base.update(kw)
    return LMConfig(**base)


@pytest.mark.slow
def test_training_lowers_the_heldout_ranking_error(corpus_dir, tmp_path):
    from senna.lm.train import heldout_error

    c = Corpus(corpus_dir)
    n = len(c.words)
    cfg = small_config(corpus_dir, tmp_path / "m", stages=[[n, 60_000]])
    held = WindowSampler(np.asarray(c.ids("heldout")), cfg.window)
    torch.manual_seed(cfg.seed)
    before = heldout_error(RankingLM(n, 8, 5, 16), held, n, 2000)["error"]
    model = train_lm(cfg, progress=False)
    after = heldout_error(model, held, n, 2000)["error"]
    assert after < 0.5 * before, (before, after)


def test_stages_may_carry_their_own_learning_rates(corpus_dir, tmp_path, monkeypatch):
    """[dictionary, windows, lr, lr_emb]: a schedule in one config (the longer LM halved
    its rates twice), each stage trained and recorded at its own rates."""
    import senna.lm.train as lm_train

    n = len(Corpus(corpus_dir).words)
    cfg = small_config(corpus_dir, tmp_path / "m", stages=[[n, 3200], [n, 3200, 0.05, 0.02]])
    assert cfg.rates(0) == (cfg.lr, cfg.lr_emb) and cfg.rates(1) == (0.05, 0.02)
    used = []
    real = lm_train.train_step

    def spy(model, net, opt, *args, lr_emb=None, **kw):
        used.append((opt.param_groups[0]["lr"], lr_emb))
        return real(model, net, opt, *args, lr_emb=lr_emb, **kw)

    monkeypatch.setattr(lm_train, "train_step", spy)
    train_lm(cfg, progress=False)
    assert sorted(set(used)) == sorted({(cfg.lr, cfg.lr_emb), (0.05, 0.02)})
    history = torch.load(tmp_path / "m" / CHECKPOINT, weights_only=True)["history"]
    assert [(h["lr"], h["lr_emb"]) for h in history] == [(cfg.lr, cfg.lr_emb), (0.05, 0.02)]
    with pytest.raises(ValueError, match="stage 2"):
        small_config(corpus_dir, tmp_path / "x", stages=[[n, 3200], [n, 3200, 0.05]])
    with pytest.raises(ValueError, match="stage 1"):
        small_config(corpus_dir, tmp_path / "x", stages=[[n, "3200"]])


def _final_weights(out) -> dict:
    return torch.load(out / CHECKPOINT, weights_only=True)["model"]


@pytest.mark.slow
def test_a_stopped_run_resumes_exactly(corpus_dir, tmp_path, monkeypatch):
    import senna.lm.train as lm_train

    straight = small_config(corpus_dir, tmp_path / "straight")
    train_lm(straight, progress=False)
    calls = {"n": 0}

    def stop_on_third_check(self) -> bool:
        calls["n"] += 1
        return calls["n"] == 3

    monkeypatch.setattr(lm_train._Stopper, "stop", stop_on_third_check)
    stopped = small_config(corpus_dir, tmp_path / "stopped")
    train_lm(stopped, progress=False)
    state = torch.load(tmp_path / "stopped" / CHECKPOINT, weights_only=True)
    assert (state["stage"], state["windows"]) == (0, 15 * 64)  # stopped inside stage 1
    monkeypatch.undo()
    # exported while stopped: the unfinished stage is in the record, scored now
    from senna.embeddings import read_metadata
    from senna.lm.export import export

    meta = read_metadata(export(tmp_path / "stopped", tmp_path / "emb"))
    assert [(h["stage"], h["windows"], h.get("unfinished")) for h in meta["history"]] == [
        (1, 15 * 64, True)]
    assert 0 <= meta["history"][0]["error"] <= 1
    card = (tmp_path / "emb" / "MODEL_CARD.md").read_text()
    assert "| 1 (unfinished) | 10 |" in card and "| 0.4 / 0.2 |" in card
    train_lm(stopped, progress=False)
    a, b = _final_weights(tmp_path / "straight"), _final_weights(tmp_path / "stopped")
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k


@pytest.mark.slow
def test_a_run_resumed_with_another_batch_size_continues_by_windows(corpus_dir, tmp_path,
                                                                    monkeypatch):
    import senna.lm.train as lm_train

    cfg = small_config(corpus_dir, tmp_path / "m")  # 6400 + 6400 windows in batches of 64
    checks = {"n": 0}
    monkeypatch.setattr(lm_train._Stopper, "stop",
                        lambda self: checks.update(n=checks["n"] + 1) or checks["n"] == 3)
    train_lm(cfg, progress=False)  # stops after 15 steps: 960 windows
    monkeypatch.undo()
    steps = {"n": 0}
    real_step = lm_train.train_step

    def counting_step(*args, **kw):
        steps["n"] += 1
        return real_step(*args, **kw)

    monkeypatch.setattr(lm_train, "train_step", counting_step)
    cfg.batch = 32
    train_lm(cfg, progress=False)
    assert steps["n"] == (6400 - 960) // 32 + 6400 // 32


@pytest.mark.slow
def test_ddp_over_gloo_with_two_processes(corpus_dir, tmp_path):
    cfg = small_config(corpus_dir, tmp_path / "ddp", procs=2, batch=32)
    launch(cfg, progress=False, port=29611)
    state = torch.load(tmp_path / "ddp" / CHECKPOINT, weights_only=True)
    assert state["world"] == 2 and state["stage"] == 2 and len(state["generators"]) == 2
    assert not torch.equal(state["generators"][0], state["generators"][1])
    n = len(Corpus(corpus_dir).words)  # the 30-word stage is capped at the corpus's words
    assert [h["dictionary"] for h in state["history"]] == [10, n]
    assert state["model"]["emb.weight"].shape == (n, 8)
    assert state["history"][-1]["windows"] == 6400


@pytest.mark.slow
def test_a_run_goes_on_from_exported_embeddings(corpus_dir, tmp_path, monkeypatch):
    """--init: a new run starts from an export's rows and hidden layers and extends its
    training record; without the hidden layers, --warmup freezes the table while they learn."""
    from senna.embeddings import read_embeddings, save_embeddings
    from senna.lm.export import export

    n = len(Corpus(corpus_dir).words)
    first = small_config(corpus_dir, tmp_path / "first", stages=[[10, 6400], [n, 6400]])
    train_lm(first, progress=False)
    export(tmp_path / "first", tmp_path / "emb")       # float32: the rows come back exactly
    from senna.io.manifest import read_manifest
    assert "lm.npz" in read_manifest(tmp_path / "emb")   # the hidden layers are recorded
    before = _final_weights(tmp_path / "first")

    import senna.lm.train as lm_train

    seen = {}
    real = lm_train._run_stage

    def first_step_weights(model, *args, **kw):
        seen.setdefault("start", {k: v.clone() for k, v in model.state_dict().items()})
        return real(model, *args, **kw)

    monkeypatch.setattr(lm_train, "_run_stage", first_step_weights)
    go_on = small_config(corpus_dir, tmp_path / "more", stages=[[n, 3200]],
                         init=str(tmp_path / "emb"))
    after = train_lm(go_on, progress=False)
    monkeypatch.undo()
    for k, v in before.items():
        assert torch.equal(seen["start"][k], v), k
    state = torch.load(tmp_path / "more" / CHECKPOINT, weights_only=True)
    assert [h["stage"] for h in state["history"]] == [1, 2, 3]
    assert [h["windows"] for h in state["history"]] == [6400, 6400, 3200]
    assert not torch.equal(after.emb.weight, before["emb.weight"])
    assert "init" not in state["history"][1] and state["history"][2]["init"] == go_on.init
    card = (export(tmp_path / "more", tmp_path / "emb2") / "MODEL_CARD.md").read_text()
    assert f"Stages from 3 on went on from the embeddings in `{go_on.init}`" in card
    # resumed by a command naming another --init (a recipe edited since): the record keeps
    # what the weights came from
    longer = small_config(corpus_dir, tmp_path / "more", stages=[[n, 3200], [n, 3200]],
                          init=str(tmp_path / "not-read"))
    train_lm(longer, progress=False)
    history = torch.load(tmp_path / "more" / CHECKPOINT, weights_only=True)["history"]
    assert [h["init"] for h in history[2:]] == [go_on.init, go_on.init]

    # no hidden layers, only words: a warm-up as long as the stage leaves the table as it was
    words, vectors = read_embeddings(tmp_path / "emb")
    save_embeddings(tmp_path / "bare", words[:-1], vectors[:-1])  # one word fewer
    bare = small_config(corpus_dir, tmp_path / "bare-run", stages=[[n, 3200]],
                        init=str(tmp_path / "bare"), warmup=3200)
    torch.manual_seed(99)
    model = train_lm(bare, progress=False)
    assert torch.equal(model.emb.weight[: n - 1], before["emb.weight"][: n - 1])
    assert not torch.equal(model.emb.weight[n - 1], before["emb.weight"][n - 1])
    assert not torch.equal(model.l1.weight, before["l1.weight"])


def test_lm_commands_end_to_end(corpus_dir, tmp_path, capsys):
    src = tmp_path / "t.txt"
    src.write_text(synthetic_text(20, seed=1))
    assert senna_main(["lm", "prepare", str(src), "--out", str(tmp_path / "c"),
                       "--workers", "1", "--heldout-every", "4"]) == 0
    assert senna_main(["lm", "train", "--corpus", str(tmp_path / "c"), "--out",
                       str(tmp_path / "m"), "--dim", "8", "--window", "5", "--hidden", "8",
                       "--batch", "32", "--stages", "8:640,20:640", "--eval-windows", "100",
                       "--threads", "1"]) == 0
    assert senna_main(["lm", "export", "--model", str(tmp_path / "m"),
                       "--to", str(tmp_path / "emb")]) == 0
    assert senna_main(["lm", "export", "--model", str(tmp_path / "m"), "--format", "text",
                       "--to", str(tmp_path / "emb.txt")]) == 0
    capsys.readouterr()
    assert senna_main(["neighbors", "the", "--embeddings", str(tmp_path / "emb"), "-k", "3"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("the")
    from senna.embeddings import read_embeddings

    words, vectors = read_embeddings(tmp_path / "emb.txt")
    assert vectors.shape == (20, 8) and words[2] == Corpus(tmp_path / "c").words[2]


def test_lm_command_errors_are_one_line(tmp_path, capsys):
    assert senna_main(["lm", "train", "--corpus", str(tmp_path), "--out",
                       str(tmp_path / "m")]) == 1
    assert "not a prepared corpus" in capsys.readouterr().err
    assert senna_main(["lm", "train", "--stages", "10:5,5:5"]) == 2    # a usage error
    assert "dictionaries must grow" in capsys.readouterr().err
    assert senna_main(["lm", "prepare", str(tmp_path / "missing.txt"), "--out",
                       str(tmp_path / "c")]) == 1


def test_the_gpu_slice_keeps_the_dictionary_and_whole_padded_sentences(corpus_dir, tmp_path):
    """`recipes/lm_gpu.py`: the corpus slice that travels to a GPU machine trains like the
    full corpus (same dictionary, sentences whole and padded, rarer words RARE)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "recipes" / "lm_gpu.py"
    spec = importlib.util.spec_from_file_location("lm_gpu", path)
    lm_gpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lm_gpu)
    full = Corpus(corpus_dir)
    size = 20
    lm_gpu.pack(corpus_dir, size, tokens=len(full.ids("train")) // 2, blocks=4,
                out=tmp_path / "packed")
    lm_gpu.unpack(tmp_path / "packed", tmp_path / "corpus")
    part = Corpus(tmp_path / "corpus")
    assert part.words == full.words[:size]
    assert part.coverage(size) == pytest.approx(full.coverage(size))
    ids, whole = np.asarray(part.ids("train")), np.asarray(full.ids("train"))
    assert 0.3 < len(ids) / len(whole) < 0.6 and ids.max() < size
    assert (ids[:5] == 0).all() and (ids[-5:] == 0).all()
    edges = np.flatnonzero(np.diff(np.r_[0, (ids == 0).astype(int), 0]))
    assert (edges[1::2] - edges[::2]).min() >= 5
    # every sentence of the slice is a sentence of the full corpus, rare words as RARE
    sentences = {tuple(np.where(s < size, s, 1))
                 for s in np.split(whole, np.flatnonzero(whole == 0))}
    assert all(tuple(s) in sentences for s in np.split(ids, np.flatnonzero(ids == 0)))
    assert np.array_equal(part.ids("heldout"), np.where(full.ids("heldout") < size,
                                                        full.ids("heldout"), 1))
    # the next part is the next stretch of each block: parts do not overlap
    unique = np.arange(2, 2002, dtype=np.uint32)
    unique[::10] = 0  # sentence ends
    one, two = (set(lm_gpu.spread(unique, 1000, 4, 5, part=k).tolist()) - {0} for k in (0, 1))
    assert len(one) > 800 and len(two) > 800 and not one & two
    with pytest.raises(ValueError, match="part 2"):
        lm_gpu.spread(unique, 1000, 4, 5, part=2)
    cfg = LMConfig(corpus=str(tmp_path / "corpus"), out=str(tmp_path / "m"), batch=32,
                   stages=[[size, 2000]], eval_windows=200, device="cpu")
    train_lm(cfg, progress=False)
    from senna.lm.export import export

    card = (export(tmp_path / "m", tmp_path / "e") / "MODEL_CARD.md").read_text()
    assert "a slice of that text" in card and f"{100 * full.coverage(size):.1f}%" in card


def test_the_embeddings_card_states_the_licences_of_its_text():
    """Each text's own terms: Reuters' research-only clause only where Reuters was read."""
    from senna.embeddings import text_licences

    english = text_licences(["enwiki_a_2015_core.txt.xz", "reuters21578_news.txt.xz"])
    assert "CC BY-SA 3.0" in english and "research purposes only" in english
    dutch = text_licences(["nl_wetten_bwb_2017.txt.xz"])
    assert "Auteurswet" in dutch and "Reuters" not in dutch and "Wikipedia" not in dutch
    assert text_licences(["my-notes.txt"]) == ("The licence of `my-notes.txt` is not stated "
                                               "here: the embeddings carry the terms of that "
                                               "text.")
