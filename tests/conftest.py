"""What several test files share: paths (the repository, the test fixtures, the shipped
models, the shared data), tiny random models built without torch (`build_models`, the
session's `models` fixture), and the rule for tests that need something absent.

Tests that need the shared data (`../shared/data`, or `SENNA_DATA`) or the shipped models
take the `data_dir` fixture or call `require`: where it is missing they skip, except when
the environment variable CI is set (CI systems set CI=true: GitHub Actions, GitLab CI,
and most others), where they fail, so that a CI run cannot pass without running them.
CI=0, CI=false or an empty CI count as unset.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from senna.features.featurizer import Featurizer
from senna.features.specs import FeatureSpec
from senna.io.checkpoint import load_model, save_model
from senna.io.saved_model import SavedModel
from senna.nn.config import NetConfig
from senna.runtime import kernels
from senna.text.normalize import CAPS_TAGS
from senna.vocab import TagSet, Vocab

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures"
MODELS = ROOT / "senna" / "models"
DATA = Path(os.environ.get("SENNA_DATA", ROOT.parent / "shared" / "data"))


def in_ci() -> bool:
    """Whether this run is a CI run (the CI environment variable, as CI systems set it)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require(path: Path, what: str) -> Path:
    """`path` if it exists; else a skip saying `what` is missing, or under CI a failure
    (a CI run must not pass by skipping what it cannot find)."""
    if path.exists():
        return path
    message = f"{what} not found at {path}"
    if in_ci():
        pytest.fail(f"{message}, and CI is set: this test must run in CI (put the data "
                    "there or set SENNA_DATA)", pytrace=False)
    pytest.skip(message)


def shipped(task: str) -> Path:
    """The shipped model of `task`; a skip without it (a failure under CI)."""
    folder = MODELS / task
    found = folder / "ensemble.json" if (folder / "ensemble.json").exists() else \
        folder / "config.json"
    return require(found, f"the shipped {task} model").parent


@pytest.fixture
def data_dir() -> Path:
    """The shared data directory; a skip without it (a failure under CI)."""
    return require(DATA, "the shared data (SENNA_DATA)")


# Tiny random models: vocabularies and tag sets small enough to build in milliseconds.
WORDS = "the a cat dog sat runs on in mat john new york . , and is".split()
POS = ["DT", "NN", "NNP", "IN", "VB", "VBD", "VBZ", ".", ","]
CHUNK = ["O"] + [f"{p}-{c}" for c in ("NP", "VP", "PP") for p in "BIES"]
NER = ["O"] + [f"{p}-{c}" for c in ("PER", "LOC") for p in "BIES"]
SRL = ["O"] + [f"{p}-{c}" for c in ("V", "A0", "A1") for p in "BIES"]
SENTS = [["The", "cat", "sat", "on", "the", "mat", "."],
         ["John", "runs", "in", "New", "York", "."],
         ["a"], ["dog", "is", "in", "a", "new", "mat", ",", "and", "runs", "."]]


def _vocab(spec: FeatureSpec, columns: dict[str, list[str]]) -> Vocab:
    if spec.kind == "pred_distance":
        return Vocab([str(d) for d in range(-int(spec.arg), int(spec.arg) + 1)])
    if spec.kind == "word":
        return Vocab(WORDS)
    if spec.kind == "caps":
        return Vocab(CAPS_TAGS[1:])
    return Vocab(columns[spec.arg])


def tiny_model(task: str, tags: list[str], columns: tuple[str, ...] = (),
               approach: str = "window", seed: int = 0, predicate_window: int = 0
               ) -> SavedModel:
    """Random float32 weights named and shaped as senna.nn.networks would save them."""
    specs = [FeatureSpec("word", "word", 4), FeatureSpec("caps", "caps", 2)]
    specs += [FeatureSpec(c, "column", 2, c) if c != "pred_distance"
              else FeatureSpec(c, c, 2, "3") for c in columns]
    vocabs = {s.name: _vocab(s, {"pos": POS, "pt0": CHUNK}) for s in specs}
    cfg = NetConfig(approach, "sll", [len(vocabs[s.name]) for s in specs], [s.dim for s in specs],
                    len(tags), window=3, hidden=6, conv=5 if approach == "sentence" else 0,
                    dist_dim=2, max_dist=4, predicate_window=predicate_window)
    rng = np.random.default_rng(seed)
    shapes = {f"emb.tables.{j}.weight": (len(vocabs[s.name]), s.dim) for j, s in enumerate(specs)}
    shapes |= {"l2.weight": (len(tags), 6), "l2.bias": (len(tags),), "l1.bias": (6,),
               "transitions": (len(tags), len(tags)), "start": (len(tags),)}
    if approach == "window":
        shapes["l1.weight"] = (6, 3 * cfg.input_dim)
    else:
        shapes |= {"l1.weight": (6, 5), "conv.weight": (5, cfg.input_dim + 4, 3),
                   "conv.bias": (5,), "dist_word.weight": (9, 2), "dist_pred.weight": (9, 2)}
        if predicate_window:
            shapes["pred.weight"] = (6, predicate_window * cfg.input_dim)
    weights = {k: rng.normal(size=v).astype(np.float32) for k, v in shapes.items()}
    scheme = "tags" if task == "pos" else "iobes"
    return SavedModel(task, cfg, Featurizer(specs, vocabs), TagSet(tags), weights,
                      {"scheme": scheme})


def build_models(root: Path) -> Path:
    """pos/ chunk/ ner/ pt0/ srl/ under `root`, wired like SENNA's 'senna' presets."""
    save_model(root / "pos", tiny_model("pos", POS, seed=1))
    save_model(root / "chunk", tiny_model("chunk", CHUNK, ("pos",), seed=2))
    save_model(root / "ner", tiny_model("ner", NER, seed=3))
    save_model(root / "pt0", tiny_model("pt0", CHUNK, ("pos",), seed=4))
    save_model(root / "srl", tiny_model("srl", SRL, ("pt0",), "sentence", seed=5))
    return root


@pytest.fixture(scope="session")
def models(tmp_path_factory) -> Path:
    """build_models' directory, built once per session: tests read it, and copy it
    (shutil.copytree) before changing anything in it."""
    return build_models(tmp_path_factory.mktemp("models"))


def window_inputs(ids: np.ndarray, lengths, w, cfg) -> np.ndarray:
    """Oracle for the window layer's inputs: ids [sum T, F] of sentences laid end to end ->
    [sum T, window * D], row t the embeddings of words t - half .. t + half of its sentence,
    PADDING (id 0) beyond the sentence's edges."""
    half, rows, start = cfg.window // 2, [], 0
    for n in lengths:
        padded = np.concatenate([np.zeros((half, ids.shape[1]), ids.dtype),
                                 ids[start : start + n],
                                 np.zeros((half, ids.shape[1]), ids.dtype)])
        emb = kernels.embed(padded, w, len(cfg.dims))
        rows += [emb[t : t + cfg.window].ravel() for t in range(n)]
        start += n
    return np.array(rows)


def dense_sentence_emissions(model, ids, preds):
    """Oracle for the sentence network: the max over every position t, distances clipped
    one by one."""
    cfg, w = model.cfg, model.w
    w_x, g_w, g_p = kernels.sentence_tables(w, cfg)
    reach = cfg.max_dist + cfg.window // 2
    a = window_inputs(ids, [len(ids)], w, cfg) @ w_x.T + w["conv.bias"]
    t = len(ids)
    out = []
    for p in preds:
        h = np.stack([np.max([a[j] + g_p[np.clip(j - p, -reach, reach) + reach]
                              + g_w[np.clip(j - i, -reach, reach) + reach]
                              for j in range(t)], axis=0) for i in range(t)])
        hid = np.clip(h @ w["l1.weight"].T + w["l1.bias"], -1, 1)
        out.append(hid @ w["l2.weight"].T + w["l2.bias"])
    return np.stack(out)


# Small training runs on the fixtures, one per network shape the trainer builds.
CASES = {
    "ner-window-sll": dict(task="ner", train=FIX / "ner_small.conll", criterion="sll"),
    "pos-window-wll": dict(task="pos", train=FIX / "pt0_small.pt0", criterion="wll"),
    "srl-sentence-sll": dict(task="srl", train=FIX / "srl_small.conll", criterion="sll"),
    "srl-window-wll": dict(task="srl", train=FIX / "srl_small.conll", criterion="wll",
                           approach="window", features="window"),
    "ner-window-chars": dict(task="ner", train=FIX / "ner_small.conll", criterion="sll",
                             features="basic+chars"),
    # a second hidden layer over 3 neighbours' first-layer outputs (zeros past the sentence:
    # the batch pads sentences, the runtime lays them end to end)
    "ner-window-stack": dict(task="ner", train=FIX / "ner_small.conll", criterion="sll",
                             features="basic+chars", stack=3),
    # the same with a second layer narrower than the first (20 units, then 7)
    "ner-window-stack-narrow": dict(task="ner", train=FIX / "ner_small.conll", criterion="sll",
                                    features="basic+chars", stack=3, stack_hidden=7),
    # the word's clusters at three granularities from a lexicon (a third of the words outside)
    "ner-window-clusters": dict(task="ner", train=FIX / "ner_small.conll", criterion="sll",
                                features="basic+chars+clusters",
                                clusters=str(FIX / "clusters_small.lst")),
    # the same with gazetteer flags
    "ner-window-gazetteer-clusters": dict(task="ner", train=FIX / "ner_small.conll",
                                          criterion="sll", features="senna+chars+clusters",
                                          gazetteer=str(FIX / "gazetteer_small.lst"),
                                          clusters=str(FIX / "clusters_small.lst")),
    "srl-sentence-chars": dict(task="srl", train=FIX / "srl_small.conll", criterion="sll",
                               features="basic+chars"),
    # the predicate's window reaches past the sentence's edges (PADDING) for some predicates
    "srl-sentence-predicate-window": dict(task="srl", train=FIX / "srl_small.conll",
                                          criterion="sll", features="basic+chars",
                                          predicate_window=7),
    # SRL reading POS besides PT0 (the PT0 column comes from a second file, as in the recipe)
    "srl-sentence-pos-pt0": dict(task="srl", train=FIX / "ewt_sample.verbs-args.conll",
                                 criterion="sll", features="pos-pt0",
                                 extra_columns=f"{FIX / 'ewt_sample.pt0'},"
                                               f"{FIX / 'ewt_sample.pt0'}"),
    # the same reading levels 1 and 2 of the file's gold parse trees (JMLR 2011 Table 12)
    "srl-sentence-levels": dict(task="srl", train=FIX / "ewt_sample.verbs-args.conll",
                                criterion="sll", features="pos-pt0+levels:2",
                                extra_columns=f"{FIX / 'ewt_sample.pt0'},"
                                              f"{FIX / 'ewt_sample.pt0'}"),
}


def small_config(tmp_path, name, **kw):
    """A TrainConfig for a few epochs of a tiny network on case `name` of CASES (needs the
    train extra)."""
    from senna.train.config import TrainConfig

    case = dict(CASES[name])
    fmt_dev = {"pos": None}.get(case["task"], str(case["train"]))
    if case["task"] == "pos":  # the PT0 fixture has a pos column: read it as a tagged file
        case["train"] = FIX / "ewt_sample.pos"
    settings = dict(out=str(tmp_path / name), epochs=2, hidden=20, conv=16, word_dim=8,
                    batch_size=4, threads=1, dev=fmt_dev, dev_fraction=0.3)
    settings.update(case, **kw)
    settings["train"] = str(settings["train"])
    return TrainConfig(**settings)


def assert_parser_runtime_is_network(model_dir: Path) -> None:
    """A saved parser's NumPy level scores equal its PyTorch network's (rebuilt from the
    saved weights, on the CPU) within 1e-5, on a batch of the fixture's level sentences
    (needs the train extra)."""
    import torch

    from senna.io.formats import read_dataset
    from senna.runtime.parser import ParserModel
    from senna.tasks import get_task
    from senna.train.data import batches, make_examples
    from senna.train.tagging import network_from_saved

    saved = load_model(model_dir)
    net, runtime = network_from_saved(saved), ParserModel(saved)
    sentences = read_dataset(FIX / "ewt_sample.gold_conll", "levels")
    examples = make_examples(get_task("psg"), sentences, saved.featurizer)
    b = next(batches(examples, 16, None))
    with torch.no_grad():
        ref = net(torch.from_numpy(b.ids), torch.from_numpy(b.lengths),
                  torch.from_numpy(b.predicates)).numpy()
    got = runtime.level_scores([sentences[i].words for i in b.index],
                               [sentences[i].columns for i in b.index])
    for row, scores in enumerate(got):
        np.testing.assert_allclose(scores, ref[row, : len(scores)], atol=1e-5, rtol=1e-5)


# `senna serve` as a user starts it, for the server tests.
SERVE_TEXT = "John Smith flew to Paris on Monday. The cat sat on the mat."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(*options: str) -> Iterator[tuple[str, int]]:
    """`senna serve` as a user starts it, on a free loopback port: (URL, port) while it
    runs."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen([sys.executable, "-m", "senna.cli.main", "serve", "--port",
                             str(port), *options], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/health", timeout=1)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"server did not start: {proc.stderr.read().decode()}")
            time.sleep(0.1)
    yield url, port
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def server():
    yield from start_server("--timeout", "2")


# `senna train` with settings it must refuse.
def bad_settings(capsys, args: list[str]) -> str:
    """The one error line `senna` prints for bad settings (exit status 2)."""
    from senna.cli.main import main

    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("senna: error: ") and err.count("\n") == 1, err
    return err


BASE = ["train", "--task", "ner", "--train", str(FIX / "ner_small.conll")]
