"""`senna train --tasks pos,chunk,...`: one network trained jointly on several tasks (JMLR 2011
section 5, Figure 5; ICML 2008).

Every task keeps its own network head, tags, criterion and task-specific features; the
lookup tables of the features they have in common (words and caps: `Feature.shared`) are
one table, and with `share_l1` the window tasks' first linear layer is one layer too (its
columns for the task's own features stay the task's).  Training repeatedly picks a task,
takes a batch of its training sentences and takes a gradient step (a task may join twice,
on other data, as "task@label": `task_key`):

* `sampling="proportional"`: an epoch is every batch of every task once, in random order,
  so a task is picked in proportion to its training set's size;
* `sampling="uniform"`: each step picks a task uniformly at random (its batches cycle), for
  as many steps as the proportional epoch has, so small tasks are seen more often.

Auxiliary tasks (ICML 2008; senna.train.auxiliary) join with `lm_corpus` (the ranking
language model on a prepared corpus) and `synonyms` (WordNet): they share the word table,
take `aux_steps` batches per epoch and are scored on held-out ranking pairs.

After every epoch each task is scored on its dev set and its best model so far is saved as
an ordinary model directory `out/<task>/` (the runtime loads it like any other), with the
joint settings in its config and card.  Parameters shared by several tasks are updated by
one plain SGD optimizer (fan-in scaled rates, Remark 7); each task's own parameters by its
own optimizer (SGD, or Adam for SRL's sentence network as in its single-task recipe), and
each task's network its own dropout and learning-rate decay, as its settings say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from senna.features.kinds import KINDS, WordFeature
from senna.lm.wordnet import related_pairs
from senna.nn.networks import WindowNet, share_first_layer, share_table
from senna.train.auxiliary import LanguageModelTask, RankingTask, SynonymTask
from senna.train.config import TrainConfig
from senna.train.joint_config import JointConfig, task_of
from senna.train.loop import Run, fit
from senna.train.prepare import prepare
from senna.train.setup import word_vocab
from senna.train.tagging import Member, command_line

JOINT_HINT = "lower the learning rates (lr, and the tasks' own lr)"


def build_auxiliary(cfg: JointConfig, members: list[Member]) -> list[RankingTask]:
    """The auxiliary tasks, reading the first tagging task's (shared) word table."""
    first = members[0]
    j = first.saved.featurizer.index(WordFeature)
    table = first.net.emb.tables[j]
    words = first.saved.featurizer.vocabs[first.saved.featurizer.specs[j].name]
    steps = cfg.aux_steps or round(np.mean([m.steps for m in members]))
    seed = cfg.common("seed")
    out: list[RankingTask] = []
    if cfg.lm_corpus:
        out.append(LanguageModelTask(cfg.lm_corpus, words, table, steps, batch=cfg.aux_batch,
                                     seed=seed))
    if cfg.synonyms:
        out.append(SynonymTask(related_pairs(cfg.synonyms), words, table, steps,
                               batch=cfg.aux_batch, seed=seed))
    return out


def build_members(cfg: JointConfig) -> list[Member]:
    """Read every task's data, build one word dictionary from all training sentences, and
    a network per task with the shared tables (and first layer) tied."""
    cfgs = {name: cfg.task_config(name) for name in cfg.tasks}
    on_gpu = [name for name, c in cfgs.items() if c.device != "cpu"]
    if on_gpu:   # the tied tables and the auxiliary tasks' batches live on the CPU
        raise ValueError(f"a joint run trains on the CPU: remove device from the settings of "
                         f"{', '.join(on_gpu)}")
    splits = {name: prepare(c) for name, c in cfgs.items()}
    first = next(iter(cfgs.values()))
    every = [s for data in splits.values() for s in data.train]
    words = word_vocab(first, every)
    vocabs = shared_vocabs(cfgs, every, words)
    members = []
    for name, c in cfgs.items():
        m = Member.create(c, splits[name], words, vocabs, key=name)
        m.saved.info["joint"] = {"tasks": list(cfg.tasks), "share_l1": cfg.share_l1,
                                 "auxiliary": auxiliary_names(cfg),
                                 "sampling": cfg.sampling, "command": cfg.command}
        members.append(m)
    tie(members, cfg.share_l1)
    return members


def auxiliary_names(cfg: JointConfig) -> list[str]:
    """The auxiliary tasks of a run, as its model cards name them."""
    return ([f"the language model (corpus {cfg.lm_corpus})"] if cfg.lm_corpus else []) + \
        ([f"WordNet synonyms ({cfg.synonyms})"] if cfg.synonyms else [])


def shared_vocabs(cfgs: dict[str, TrainConfig], sentences: list, words) -> dict:
    """Vocabularies of the shared features (words: `words`; caps; characters), from every
    task's training sentences: one table needs one vocabulary."""
    out = {}
    for name, c in cfgs.items():
        for spec in task_of(name).features(c.features):
            kind = KINDS[spec.kind]
            if kind.shared and spec.name not in out:
                out[spec.name] = kind.fit_vocab(spec, sentences, words, c.max_words)
    return out


def tie(members: list[Member], share_l1: bool) -> None:
    """One lookup table per shared feature (the first task's, with its initial vectors);
    with `share_l1`, one first layer for the window tasks' shared columns."""
    tables: dict[str, torch.nn.Module] = {}
    for m in members:
        for j, kind in enumerate(m.saved.featurizer.kinds):
            if kind.shared:
                first = tables.setdefault(kind.spec.name, m.net.emb.tables[j])
                try:
                    m.net.emb.tables[j] = share_table(m.net.emb.tables[j], first)
                except ValueError:
                    raise ValueError(f"feature {kind.spec.name!r} differs between "
                                     "tasks") from None
    window = [m for m in members if isinstance(m.net, WindowNet)]
    if share_l1 and len(window) > 1:
        share_first_layer([m.net for m in window],  # type: ignore[misc]
                          [[k.shared for k in m.saved.featurizer.kinds] for m in window])


def train_joint(cfg: JointConfig) -> dict:
    """Train, keep each task's best dev model in `cfg.model_dir(task)`; -> the training
    state."""
    torch.set_num_threads(cfg.common("threads") or torch.get_num_threads())
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    cfg.command = cfg.command or command_line()
    members = build_members(cfg)
    units = [*members, *build_auxiliary(cfg, members)]
    return fit(Run(units, out, cfg.common("seed"), cfg.epochs, cfg.patience, cfg.max_minutes,
                   cfg.sampling, cfg.lr, JOINT_HINT))


def train_joint_seeds(cfg: JointConfig, seeds: Sequence[int]) -> dict[str, dict]:
    """`senna train --config JOINT.json --seeds 1,2,3`: the joint run once per seed, into
    `out/seed-<s>/` (senna.train.ensemble.train_seeds), then for each tagging task an
    ensemble directory `out/<task>/` of the runs' models combined by their mean scores
    (`senna.runtime.ensemble`), with the members' and the ensemble's dev scores in its
    ensemble.json; -> task -> ensemble.json's content.  Why: SRL's members cannot be
    combined by vote (a path per predicate), and its ensemble teaches a single network
    (`senna.train.distill`)."""
    from senna.train.ensemble import seed_ensemble, train_seeds

    out = Path(cfg.out)
    cfg.command = cfg.command or command_line()
    seeds = train_seeds(seeds, out, lambda seed, folder: train_joint(
        replace(cfg, seed=seed, out=str(folder), models=None, ship=None)))
    return {name: seed_ensemble(out / name, task_of(name).name,
                                [f"../seed-{s}/{name}" for s in seeds], seeds, task_of(name),
                                prepare(cfg.task_config(name)).dev, ("mean",),
                                {"seeds": list(seeds), "command": cfg.command})
            for name in cfg.tasks}
