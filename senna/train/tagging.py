"""A tagging task as the training loop sees it (`Member`): its network built from the
settings and the training sentences, its batches, its loss, its dev score and its saved
best model.  The loop (senna.train.loop) runs one Member alone or several that share tables
(senna.train.joint).

Plain SGD with the fan-in-scaled learning rates of the paper (Remark 7), losses summed over
a mini-batch of sentences; dropout, the gazetteer flags' dropout, distillation and
adversarial training are the task's own settings, applied to its batches only.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from senna.datasets import Data, parse_spec
from senna.features.featurizer import Featurizer
from senna.features.kinds import GazetteerFeature, WordFeature
from senna.features.lexicons import Gazetteer, Lexicon
from senna.features.specs import column_sources
from senna.io.checkpoint import finish_model, save_model
from senna.io.saved_model import SavedModel
from senna.nn.config import NetConfig
from senna.nn.networks import (
    Tagger,
    bind_spellings,
    build_network,
    device_of,
    fan_in,
    load_weights,
)
from senna.scoring.predictions import file_scheme
from senna.tasks import PRESETS, TaskSpec, task_record
from senna.train.adversarial import with_adversary
from senna.train.averaging import AVERAGE_DIR, WeightAverage, score_epoch
from senna.train.card import write_card
from senna.train.config import TrainConfig
from senna.train.data import Batch, Example, batches, make_examples
from senna.train.distill import attach_teacher_scores, distillation_loss, load_teachers
from senna.train.setup import initial_embeddings, word_vocab
from senna.train.silver import SOURCE_SUFFIX
from senna.train.summary import start_summary
from senna.vocab import TagSet, Vocab


def build(cfg: TrainConfig, task: TaskSpec, train_sents: list,
          words: Vocab | None = None, vocabs: dict[str, Vocab] | None = None
          ) -> tuple[Tagger, SavedModel]:
    """Vocabularies, tag set and a freshly initialised network (`words`: the word dictionary
    to use, e.g. one shared by jointly trained tasks; default: built from `train_sents`;
    `vocabs`: other features' given vocabularies, by feature name)."""
    net, saved, _ = build_featurised(cfg, task, train_sents, words, vocabs)
    return net, saved


def build_featurised(cfg: TrainConfig, task: TaskSpec, train_sents: list,
                     words: Vocab | None = None, vocabs: dict[str, Vocab] | None = None
                     ) -> tuple[Tagger, SavedModel, list[Example]]:
    """`build`, and the training sentences' examples its tag set was read from, so that
    training does not featurise them a second time."""
    specs = [s if s.kind != "word" else type(s)(s.name, s.kind, cfg.word_dim, s.arg)
             for s in task.features(cfg.features)]
    if cfg.level_hidden and specs[-1].name not in task.own_columns:
        raise ValueError(f"--level-hidden reads the levels found below as the last feature, "
                         f"got the features {[s.name for s in specs]}")
    gaz = Gazetteer.load(cfg.gazetteer) if cfg.gazetteer else None
    lexicon = Lexicon.load(cfg.clusters) if cfg.clusters else None
    featurizer = Featurizer.fit(specs, train_sents, gaz, words or word_vocab(cfg, train_sents),
                                vocabs=vocabs, lexicon=lexicon)
    examples = make_examples(task, train_sents, featurizer)
    tagset = TagSet(sorted({t for e in examples for t in e.tags}))
    approach = cfg.approach or task.approach
    net_cfg = NetConfig(approach=approach, criterion=cfg.criterion,
                        vocab_sizes=featurizer.sizes(), dims=[s.dim for s in specs],
                        n_tags=len(tagset), window=cfg.window, hidden=cfg.hidden,
                        conv=cfg.conv if approach == "sentence" else 0,
                        predicate_window=cfg.predicate_window, stack=cfg.stack,
                        stack_hidden=cfg.stack_hidden, level_hidden=cfg.level_hidden,
                        chars=featurizer.net_shapes())
    torch.manual_seed(cfg.seed)
    net = bind_spellings(build_network(net_cfg, sparse=cfg.optimizer == "sgd"), featurizer)
    info = model_info(cfg, task, train_sents, specs)
    j = featurizer.index(WordFeature)
    if cfg.embeddings:
        _, divisor = initial_embeddings(net, featurizer, cfg.embeddings)
        if os.path.isdir(cfg.embeddings):  # saved as the rows that differ from these
            info["word_base"] = {"embeddings": os.path.abspath(cfg.embeddings),
                                 "divisor": divisor, "table": j}
    if cfg.fixed_embeddings:
        if not cfg.embeddings:
            raise ValueError("fixed_embeddings needs embeddings to keep")
        net.emb.tables[j].weight.requires_grad_(False)
    return net, SavedModel(task.name, net_cfg, featurizer, tagset, {}, info), examples


def model_info(cfg: TrainConfig, task: TaskSpec, train_sents: list, specs: list) -> dict:
    """What a trained model records about its training: its schemes, settings, command and
    where its inputs came from."""
    info: dict = {"scheme": task.scheme, "source_scheme": file_scheme(task, train_sents),
                  "language": cfg.language,
                  "training": {"config": asdict(cfg), "command": command_line()}}
    extra = {"pt0": cfg.extra_columns.split(",")[0]} if cfg.extra_columns else {}
    sources = column_sources(specs, dict(parse_spec(cfg.predicted_columns)), cfg.train, extra)
    if sources:   # where the columns it reads came from (senna.features.specs.column_sources)
        info["column_sources"] = sources
    if cfg.first_level:   # the runtime reads it (senna.runtime.parser)
        info["first_level"] = cfg.first_level
    if task.tree:   # what its dev scores are (senna.scoring.trees.tree_score)
        info["training"]["dev_score"] = "trees"
    if task.name not in PRESETS:   # a user's task: the model says what it is
        info["task_spec"] = task_record(task)
    for key, path in (("train_source", cfg.train), ("extra_train_source", cfg.extra_train)):
        source = Path(f"{path}{SOURCE_SUFFIX}")   # a file senna.train.silver wrote
        if path and source.is_file():
            info["training"][key] = json.loads(source.read_text(encoding="utf-8"))
    built = Path(cfg.clusters).with_name("clusters.json") if cfg.clusters else None
    if built is not None and built.is_file():   # how `senna lm clusters` made the lexicon
        info["training"]["clusters_source"] = json.loads(built.read_text(encoding="utf-8"))
    return info


def training_device(name: str) -> torch.device:
    """`--device`'s device; ValueError when it names a GPU that torch cannot use here.  On a
    GPU, products and convolutions keep float32 (no TF32), as on the CPU."""
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: no GPU that PyTorch can use here (a CPU-only torch, "
                         "or no CUDA driver): train with --device cpu")
    if name == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    return torch.device(name)


def command_line() -> str:
    """The command that started this run, as a user would type it."""
    args = sys.argv[1:] if sys.argv and sys.argv[0].endswith(("senna", "main.py")) else []
    return shlex.join(["senna", *args]) if args else "(called from Python)"


def optimizer(named: Iterable[tuple[str, torch.nn.Parameter]], lr: float,
              kind: str = "sgd") -> torch.optim.Optimizer:
    """Over (name, parameter) pairs (`net.named_parameters()`, or some of them).  SGD: one
    parameter group per tensor, learning rate lr / fan-in (Remark 7)."""
    params = {n: p for n, p in named if p.requires_grad}
    if kind == "adam":
        return torch.optim.Adam(list(params.values()), lr=lr)
    if kind != "sgd":
        raise ValueError(f"optimizer must be 'sgd' or 'adam', got {kind!r}")
    groups = [{"params": [p], "lr": lr / fan_in(n, p, params)} for n, p in params.items()]
    return torch.optim.SGD(groups, lr=lr)


def drop_features(ids: np.ndarray, featurizer: Featurizer, cfg: TrainConfig,
                  rng: np.random.Generator) -> None:
    """Gazetteer flags "yes" -> "no" at random (`gazetteer_dropout`), in place.

    The CoNLL-2003 list was compiled from its training data, so on training sentences the
    flags nearly give the answer and the network learns to trust them more than they deserve
    on new text; dropping them at random keeps the word and caps features in use.  No random
    numbers are drawn for a probability of 0, so runs without it stay the runs they were.
    """
    if cfg.gazetteer_dropout <= 0:
        return
    for j, kind in enumerate(featurizer.kinds):
        if isinstance(kind, GazetteerFeature):
            kind.drop(ids[..., j], cfg.gazetteer_dropout, rng)


def step_loss(net: Tagger, batch: Batch, distill: float = 0.0,
              adversarial: float = 0.0, temperature: float = 1.0) -> torch.Tensor:
    """The batch's negative log-likelihood, plus `distill` times the distillation term (at
    `temperature`) where the batch carries teachers' scores (`senna.train.distill`); with
    `adversarial` > 0, plus the same loss on adversarially moved inputs
    (`senna.train.adversarial`)."""
    device = device_of(net)
    ids, tags = (torch.from_numpy(a).to(device) for a in (batch.ids, batch.tags))
    lengths = torch.from_numpy(batch.lengths).to(device)
    mask = torch.arange(ids.shape[1], device=device)[None, :] < lengths[:, None]
    predicates = torch.from_numpy(batch.predicates).to(device)

    def loss_of() -> torch.Tensor:
        emissions = net(ids, lengths, predicates)
        loss = net.nll(emissions, tags, mask).sum()
        if distill and batch.soft is not None:
            soft = torch.from_numpy(batch.soft).to(device)
            loss = loss + distill * distillation_loss(emissions, soft, mask, temperature)
        return loss

    if adversarial:
        return with_adversary(net, loss_of, batch.lengths, adversarial)
    return loss_of()


def training_examples(cfg: TrainConfig, task: TaskSpec, sentences: list,
                      saved: SavedModel, examples: list[Example]) -> list[Example]:
    """The training sentences' `examples`, with the teachers' scores when the settings
    name teachers."""
    if cfg.teachers:
        teacher = load_teachers(cfg.teachers)
        tqdm.write(f"{task.name}: teachers {cfg.teachers} score {len(examples)} examples")
        attach_teacher_scores(task, sentences, examples, teacher, saved.tags,
                              cfg.distill_temperature)
    return examples


def network_from_saved(saved: SavedModel) -> Tagger:
    return load_weights(bind_spellings(build_network(saved.net), saved.featurizer),
                        saved.weights)


@dataclass
class Member:
    """One tagging task of a run: its settings, network, data and best dev score so far.
    `key`: its name in a joint run ("pos@wsj"; empty: the task's)."""

    spec: TaskSpec
    cfg: TrainConfig
    net: Tagger
    saved: SavedModel
    dev: list
    examples: list[Example]
    dev_examples: list[Example]
    key: str = ""
    opt: torch.optim.Optimizer | None = None
    rates: list[float] = field(default_factory=list)   # the first epoch's learning rates
    best: float = -1.0
    best_epoch: int = 0
    avg: WeightAverage | None = None   # the weights' moving average (its settings' --average)
    scored: bool = True                # a dev score to keep the best of (auxiliary: no)
    _result: tuple | None = None       # the last evaluation (score, kept model, last iterate's)

    @classmethod
    def create(cls, cfg: TrainConfig, data: Data, words: Vocab | None = None,
               vocabs: dict | None = None, key: str = "") -> Member:
        """A task's network and examples from its prepared data (senna.train.prepare)."""
        spec = data.task
        net, saved, examples = build_featurised(cfg, spec, data.train, words, vocabs)
        net.to(training_device(cfg.device))   # built on the CPU: the same initial weights
        dev_examples = make_examples(spec, data.dev, saved.featurizer)
        tqdm.write(start_summary(key or spec.name, saved, (data.train, data.dev), dev_examples))
        if data.note:
            tqdm.write(data.note)
        return cls(spec, cfg, net, saved, data.dev,
                   training_examples(cfg, spec, data.train, saved, examples), dev_examples,
                   key=key)

    @property
    def name(self) -> str:
        return self.key or self.spec.name

    @property
    def module(self) -> torch.nn.Module:
        return self.net

    @property
    def steps(self) -> int:
        """Batches per epoch."""
        return -(-len(self.examples) // self.cfg.batch_size)

    @property
    def model_dir(self) -> Path:
        """Where its best model is saved."""
        return Path(self.cfg.out)

    def make_optimizer(self, named: Iterable[tuple[str, torch.nn.Parameter]],
                       lr: float = 0.0) -> None:
        """Its own optimizer over `named` (its parameters no other task shares), at its own
        settings' rate."""
        self.opt = optimizer(named, self.cfg.lr, self.cfg.optimizer)
        self.rates = [g["lr"] for g in self.opt.param_groups]

    def start_epoch(self, epoch: int) -> None:
        """Training mode with its dropout, at its first epoch's learning rates (a resumed
        optimizer's state may hold others)."""
        self.net.train()
        self.net.set_dropout(self.cfg.dropout_input, self.cfg.dropout_hidden)
        for group, rate in zip(self.opt.param_groups, self.rates, strict=True):
            group["lr"] = rate

    def batches(self, rng: np.random.Generator) -> Iterator[Batch]:
        """One pass over its training examples in random order."""
        return batches(self.examples, self.cfg.batch_size, self.saved.tags, rng,
                       together=bool(self.saved.net.level_hidden))

    def loss(self, batch: Batch, rng: np.random.Generator) -> tuple[torch.Tensor, int, int]:
        """(the batch's loss, its words, the number of tags): the guard's yardstick."""
        drop_features(batch.ids, self.saved.featurizer, self.cfg, rng)
        loss = step_loss(self.net, batch, self.cfg.distill, self.cfg.adversarial,
                         self.cfg.distill_temperature)
        return loss, int(batch.lengths.sum()), len(self.saved.tags)

    def evaluate(self) -> float:
        """Its dev score after an epoch (the average's, with --average)."""
        self._result = score_epoch(self.saved, self.net, self.avg, self.spec, self.dev,
                                   self.dev_examples)
        return self._result[0]["score"]

    @property
    def last_score(self) -> float | None:
        """With --average: the last iterate's dev score beside the average's."""
        return self._result[2] if self._result else None

    def keep(self, epoch: int, seconds: float) -> None:
        """Save the model just evaluated as its best (with its card)."""
        score, kept, _ = self._result
        self.best, self.best_epoch = score["score"], epoch
        self.saved.info["dev"] = score
        self.saved.info["training"].update(epochs=epoch, seconds=round(seconds, 1))
        training = {**kept.info["training"], "finished": False}   # until the run ends
        save_model(self.model_dir, replace(kept, info={**kept.info, "training": training}))
        write_card(self.model_dir)

    def finish(self) -> None:
        """The run has ended: its best model is final (it no longer warns when loaded)."""
        if (self.model_dir / "config.json").is_file():
            finish_model(self.model_dir)
            write_card(self.model_dir)

    def save(self, folder: Path) -> None:
        """Its last weights (and their average) into a checkpoint folder."""
        save_model(folder, self.saved, portable=False)
        if self.avg:
            save_model(folder / AVERAGE_DIR, replace(self.saved, weights=self.avg.weights()),
                       portable=False)
