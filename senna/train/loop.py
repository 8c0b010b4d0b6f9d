"""`senna train`: data -> features -> network -> SGD epochs -> best model on dev.

Plain SGD with the fan-in-scaled learning rates of the paper (Remark 7), losses summed over
a mini-batch of sentences.  After each epoch the dev score is computed, the best model kept,
the last state checkpointed (resume continues from it), and the dev curve plotted.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from senna.datasets import load_splits
from senna.features import Featurizer, Gazetteer, GazetteerFeature, Lexicon, WordFeature
from senna.io.checkpoint import SavedModel, save_model
from senna.nn.config import NetConfig
from senna.nn.networks import (
    Tagger,
    bind_spellings,
    build_network,
    fan_in,
    load_weights,
)
from senna.tasks import TaskSpec, get_task
from senna.train.adversarial import with_adversary
from senna.train.averaging import AVERAGE_DIR, averaged, score_epoch
from senna.train.card import write_card
from senna.train.cascade import predict_columns
from senna.train.config import TrainConfig
from senna.train.data import Example, batches, make_examples
from senna.train.distill import attach_teacher_scores, distillation_loss, load_teachers
from senna.train.guard import check_dev, check_loss, check_weights
from senna.train.resume import (
    CHECKPOINT,
    STATE_FILE,
    reading,
    resume,
    save_optimizer,
    write_checkpoint,
)
from senna.train.setup import initial_embeddings, word_vocab
from senna.train.silver import SOURCE_SUFFIX
from senna.vocab import TagSet, Vocab


def build(cfg: TrainConfig, task: TaskSpec, train_sents: list,
          words: Vocab | None = None, vocabs: dict[str, Vocab] | None = None
          ) -> tuple[Tagger, SavedModel]:
    """Vocabularies, tag set and a freshly initialised network (`words`: the word dictionary
    to use, e.g. one shared by jointly trained tasks; default: built from `train_sents`;
    `vocabs`: other features' given vocabularies, by feature name)."""
    specs = [s if s.kind != "word" else type(s)(s.name, s.kind, cfg.word_dim, s.arg)
             for s in task.features(cfg.features)]
    gaz = Gazetteer.load(cfg.gazetteer) if cfg.gazetteer else None
    lexicon = Lexicon.load(cfg.clusters) if cfg.clusters else None
    featurizer = Featurizer.fit(specs, train_sents, gaz, words or word_vocab(cfg, train_sents),
                                vocabs=vocabs, lexicon=lexicon)
    examples = make_examples(task, train_sents, featurizer)
    tagset = TagSet(sorted({t for e in examples for t in e.tags}))
    net_cfg = NetConfig(approach=cfg.approach or task.approach, criterion=cfg.criterion,
                        vocab_sizes=featurizer.sizes(), dims=[s.dim for s in specs],
                        n_tags=len(tagset), window=cfg.window, hidden=cfg.hidden,
                        conv=cfg.conv if (cfg.approach or task.approach) == "sentence" else 0,
                        predicate_window=cfg.predicate_window, stack=cfg.stack,
                        stack_hidden=cfg.stack_hidden,
                        chars=featurizer.net_shapes())
    torch.manual_seed(cfg.seed)
    net = bind_spellings(build_network(net_cfg, sparse=cfg.optimizer == "sgd"), featurizer)
    info = {"scheme": task.scheme, "source_scheme": task.source_scheme,
            "training": {"config": asdict(cfg), "command": command_line()}}
    for key, path in (("train_source", cfg.train), ("extra_train_source", cfg.extra_train)):
        source = Path(f"{path}{SOURCE_SUFFIX}")   # a file senna.train.silver wrote
        if path and source.is_file():
            info["training"][key] = json.loads(source.read_text(encoding="utf-8"))
    built = Path(cfg.clusters).with_name("clusters.json") if cfg.clusters else None
    if built is not None and built.is_file():   # how `senna lm clusters` made the lexicon
        info["training"]["clusters_source"] = json.loads(built.read_text(encoding="utf-8"))
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
    return net, SavedModel(task.name, net_cfg, featurizer, tagset, {}, info)


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


def step_loss(net: Tagger, batch, distill: float = 0.0,
              adversarial: float = 0.0, temperature: float = 1.0) -> torch.Tensor:
    """The batch's negative log-likelihood, plus `distill` times the distillation term (at
    `temperature`) where the batch carries teachers' scores (`senna.train.distill`); with
    `adversarial` > 0, plus the same loss on adversarially moved inputs
    (`senna.train.adversarial`)."""
    ids, tags = torch.from_numpy(batch.ids), torch.from_numpy(batch.tags)
    lengths = torch.from_numpy(batch.lengths)
    mask = torch.arange(ids.shape[1])[None, :] < lengths[:, None]
    predicates = torch.from_numpy(batch.predicates)

    def loss_of() -> torch.Tensor:
        emissions = net(ids, lengths, predicates)
        loss = net.nll(emissions, tags, mask).sum()
        if distill and batch.soft is not None:
            soft = torch.from_numpy(batch.soft)
            loss = loss + distill * distillation_loss(emissions, soft, mask, temperature)
        return loss

    if adversarial:
        return with_adversary(net, loss_of, batch.lengths, adversarial)
    return loss_of()


def training_examples(cfg: TrainConfig, task: TaskSpec, sentences: list,
                      saved: SavedModel) -> list[Example]:
    """The training sentences' examples, with the teachers' scores when the settings
    name teachers."""
    examples = make_examples(task, sentences, saved.featurizer)
    if cfg.teachers:
        teacher = load_teachers(cfg.teachers)
        tqdm.write(f"{task.name}: teachers {cfg.teachers} score {len(examples)} examples")
        attach_teacher_scores(task, sentences, examples, teacher, saved.tags,
                              cfg.distill_temperature)
    return examples


def can_plot() -> bool:
    """Whether matplotlib is there to draw curve.png; checked when a run starts, since the
    plot is optional: without it a note says so and training goes on."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        tqdm.write("note: no curve.png is drawn: matplotlib is not installed "
                   "(pip install matplotlib)")
        return False
    return True


def plot_curve(history: list[dict], path: Path, metric: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot([h["epoch"] for h in history], [h["dev"] for h in history], marker="o")
    ax.set_xlabel("epoch")
    ax.set_ylabel(f"dev {metric}")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def network_from_saved(saved: SavedModel) -> Tagger:
    return load_weights(bind_spellings(build_network(saved.net), saved.featurizer),
                        saved.weights)


def epoch_settings(net: Tagger, opt: torch.optim.Optimizer, rates: list[float],
                   cfg: TrainConfig, epoch: int) -> None:
    """Training mode with the settings' dropout, and the learning rates `rates` (the first
    epoch's, which a resumed optimizer's state may not hold): a task's regularisation, alone
    or in a joint run."""
    net.train()
    net.set_dropout(cfg.dropout_input, cfg.dropout_hidden)
    for group, rate in zip(opt.param_groups, rates, strict=True):
        group["lr"] = rate


def start_epoch(net: Tagger, opt: torch.optim.Optimizer, rates: list[float],
                cfg: TrainConfig, epoch: int) -> None:
    """`epoch_settings`, and dropout's random numbers seeded by epoch, so a resumed run
    draws the same ones."""
    epoch_settings(net, opt, rates, cfg, epoch)
    torch.manual_seed(cfg.seed * 100_003 + epoch)


def training_splits(cfg: TrainConfig, task: TaskSpec) -> tuple[list, list]:
    """The run's (train, dev) sentences, their input columns predicted if the settings say
    so (senna.train.cascade)."""
    train_sents, dev_sents = load_splits(cfg, task)
    if cfg.predicted_columns:
        predict_columns(cfg, train_sents, dev_sents)
    return train_sents, dev_sents


def checkpoint(out: Path, saved: SavedModel, average: SavedModel | None,
               opt: torch.optim.Optimizer, state: dict) -> None:
    """The last epoch's model (and its weights' moving average), the optimizer's state and
    the training state, written as one checkpoint (senna.train.resume.write_checkpoint)."""
    def fill(folder: Path) -> None:
        save_model(folder, saved)
        if average is not None:
            save_model(folder / AVERAGE_DIR, average)
        save_optimizer(folder, opt, state["epoch"])
        (folder / STATE_FILE).write_text(json.dumps(state, indent=1), encoding="utf-8")

    write_checkpoint(out, fill)


def train(cfg: TrainConfig, splits: tuple[list, list] | None = None) -> dict:
    """Train, keep the best dev model in cfg.out; -> the final training state.  `splits`:
    (train, dev) sentences to use instead of reading cfg.train and cfg.dev."""
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    task = get_task(cfg.task)
    train_sents, dev_sents = splits or training_splits(cfg, task)
    net, saved = build(cfg, task, train_sents)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    examples = training_examples(cfg, task, train_sents, saved)
    dev_examples = make_examples(task, dev_sents, saved.featurizer)
    opt = optimizer(net.named_parameters(), cfg.lr, cfg.optimizer)
    rates = [g["lr"] for g in opt.param_groups]
    state = resume(out, cfg, net, saved, opt)
    with reading(out / CHECKPOINT / AVERAGE_DIR, out / CHECKPOINT):
        avg = averaged(cfg, net, out / CHECKPOINT, state)
    hint, plot = f"lower --lr (now {cfg.lr:g})", can_plot()
    for epoch in range(state["epoch"] + 1, cfg.epochs + 1):
        t0 = time.perf_counter()
        start_epoch(net, opt, rates, cfg, epoch)
        rng = np.random.default_rng([cfg.seed, epoch])
        total = 0.0
        bar = tqdm(batches(examples, cfg.batch_size, saved.tags, rng), desc=f"epoch {epoch}",
                   total=-(-len(examples) // cfg.batch_size), leave=False, mininterval=2)
        for batch in bar:
            drop_features(batch.ids, saved.featurizer, cfg, rng)
            opt.zero_grad(set_to_none=True)
            loss = step_loss(net, batch, cfg.distill, cfg.adversarial, cfg.distill_temperature)
            value = loss.item()
            check_loss(value, int(batch.lengths.sum()), len(saved.tags), epoch, hint)
            loss.backward()
            opt.step()
            if avg:
                avg.update()
            total += value
        score, kept, last = score_epoch(saved, net, avg, task, dev_sents, dev_examples)
        check_weights(saved.weights, epoch, hint)
        check_dev([h["dev"] for h in state["history"]] + [score["score"]], epoch, hint)
        row = {"epoch": epoch, "loss": total / len(examples)}
        if avg:   # the last iterate's score too: one run measures what averaging gives
            row["dev_last"], state["average_steps"] = last, avg.steps
        state["seconds"] += time.perf_counter() - t0
        state["epoch"] = epoch
        state["history"].append({**row, "dev": score["score"],
                                 "seconds": round(state["seconds"], 1)})
        tqdm.write(f"epoch {epoch}: loss {total / len(examples):.4f}  dev {score['score']:.2f}"
                   f"  ({state['seconds'] / 60:.1f} min)")
        if score["score"] > state["best"]:
            state["best"], state["best_epoch"] = score["score"], epoch
            saved.info["dev"] = score
            saved.info["training"].update(epochs=epoch, seconds=round(state["seconds"], 1))
            save_model(out, kept)
        checkpoint(out, saved, kept if avg else None, opt, state)
        if plot:
            plot_curve(state["history"], out / "curve.png", task.metric)
        if epoch - state.get("best_epoch", epoch) >= cfg.patience:
            break
        if cfg.max_minutes and state["seconds"] > cfg.max_minutes * 60:
            break
    (out / "history.json").write_text(json.dumps(state, indent=1))
    if (out / "config.json").exists():
        write_card(out)
    return state
