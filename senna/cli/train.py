"""`senna train`: options generated from senna.train.config.TrainConfig (one source of
truth); --help and bad settings are answered without importing PyTorch.

`--tasks a,b,...` (or a config with a "tasks" entry) trains one model jointly on several tasks
(senna.train.joint): each task's settings come from `--recipes DIR/<task>.json` (default:
the repository's recipes/) unless the config gives them, and the joint options
(`--share-l1`, `--sampling`, `--epochs`, ...) apply to all.
"""

from __future__ import annotations

import argparse

from senna.cli.args import Parser, UsageError, add_options, missing_extra, true_or_false
from senna.settings import read_settings
from senna.train.config import MAX_SEED, SECTIONS, TrainConfig

TRAIN_PACKAGES = "torch tqdm matplotlib"   # the `train` extra, for missing_extra
# Joint options, and the TrainConfig settings that apply to all tasks of a joint run.
JOINT_OPTIONS = ("tasks", "recipes", "share_l1", "sampling", "lm_corpus", "synonyms",
                 "aux_steps")
ENSEMBLE_OPTIONS = ("seeds", "joined_epochs")
JOINT_SETTINGS = ("out", "epochs", "lr", "patience", "max_minutes", "embeddings", "word_dim",
                  "max_words", "min_count", "seed", "batch_size", "threads")


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna train", usage="senna train [--config FILE] [OPTION ...]",
               description="Train a tagger on CoNLL data (needs PyTorch). "
               "A second run with the same --out resumes from its checkpoint.")
    p.add_argument("--config", metavar="FILE",
                   help="JSON file of settings (keys as below, e.g. batch_size); options given "
                        "on the command line override it")
    joint = p.add_argument_group("multi-task learning (one model trained on several tasks)")
    joint.add_argument("--tasks", metavar="TASKS",
                       help="train jointly on these tasks, e.g. pos,chunk,ner,pt0; each task's "
                            "settings from --recipes; with it, only --out, --epochs, --lr, "
                            "--patience, --max-minutes and the options shaping the shared word "
                            "table (--embeddings, --word-dim, --max-words, --min-count, --seed, "
                            "--batch-size, --threads) apply")
    joint.add_argument("--recipes", metavar="DIR", default=None,
                       help="with --tasks: directory of per-task settings <task>.json "
                            "(default: recipes; with a --config that names them: the "
                            "config's directory)")
    joint.add_argument("--share-l1", dest="share_l1", type=true_or_false, default=None,
                       help="with --tasks: window tasks share the first layer (default: true)")
    joint.add_argument("--sampling", choices=("proportional", "uniform"), default=None,
                       help="with --tasks: how the next task is picked (default: "
                            "proportional to its training set's size)")
    joint.add_argument("--lm-corpus", dest="lm_corpus", metavar="DIR",
                       help="with --tasks: add the language model as a task, on this corpus "
                            "prepared by `senna lm prepare`")
    joint.add_argument("--synonyms", metavar="DIR",
                       help="with --tasks: add the WordNet synonyms task, reading WordNet's "
                            "data files from DIR (apt-get install wordnet-base: "
                            "/usr/share/wordnet)")
    joint.add_argument("--aux-steps", dest="aux_steps", type=int, default=None,
                       help="with --tasks: batches of each auxiliary task per epoch "
                            "(default: the tagging tasks' mean)")
    ensemble = p.add_argument_group("ensembles (section 6.1)")
    ensemble.add_argument("--seeds", metavar="S1,S2,...",
                          help="train one model per seed into OUT/seed-S and make OUT an "
                               "ensemble the tagger uses (combined by vote or by the members' "
                               "mean scores, whichever is better on dev); with --tasks (a "
                               "joint run), one run per seed and an ensemble OUT/<task> per "
                               "task, combined by the members' mean scores")
    ensemble.add_argument("--joined-epochs", dest="joined_epochs", type=int, default=None,
                          help="with --seeds: also train the joined ensemble (a layer on the "
                               "members' hidden layers) for this many epochs; it becomes the "
                               "ensemble's combination")
    add_options(p, TrainConfig, sections=SECTIONS)
    return p


def main(argv: list[str]) -> int:
    args = vars(parser().parse_args(argv))
    path = args.pop("config")
    try:
        settings = read_settings(path) if path else {}
        seeds, joined_epochs = ensemble_options(args)
        if args.get("tasks") or "tasks" in settings:
            if joined_epochs:
                raise ValueError("--joined-epochs trains the joined layer of one task's "
                                 "ensemble: not with --tasks")
            joint = joint_config(settings, args, path)
        else:
            joint = None
            extra = [k for k in JOINT_OPTIONS if args.pop(k) is not None]
            if extra:
                raise ValueError(f"--{extra[0].replace('_', '-')} needs --tasks")
            settings.update({k: v for k, v in args.items() if v is not None})
            cfg = TrainConfig.from_dict(settings, path or "")
    except ValueError as e:
        raise UsageError(str(e), "senna train") from None
    if joint is not None and seeds:
        specs = _import("senna.train.joint", "train_joint_seeds")(joint, seeds)
        for task, spec in specs.items():
            dev = dict(spec["dev"])
            ensemble = dev.pop("mean")
            print(f"{task} dev scores: " + ", ".join(f"{k} {v:.2f}" for k, v in dev.items())
                  + f"; their ensemble (the mean of their scores) {ensemble:.2f}, in "
                  f"{joint.out}/{task}")
        return 0
    if joint is not None:
        return train_jointly(joint)
    if seeds:
        spec = _import("senna.train.ensemble", "train_ensemble")(cfg, seeds, joined_epochs)
        print("dev scores: " + ", ".join(f"{k} {v:.2f}" for k, v in spec["dev"].items())
              + f"; ensemble in {cfg.out} (combined by {spec['combine']})")
        return 0
    data = _import("senna.train.prepare", "prepare")(cfg)
    state = _import("senna.train.loop", "train")(cfg, data)
    best = next(iter(state["best"].values()))
    print(f"best dev score {best['score']:.2f} at epoch {best['epoch']} "
          f"({state['seconds'] / 60:.1f} min); model in {cfg.out}")
    return 0


def ensemble_options(args: dict) -> tuple[list[int], int]:
    """--seeds and --joined-epochs, checked (and removed from the training settings)."""
    text, epochs = args.pop("seeds"), args.pop("joined_epochs")
    if text is None:
        if epochs is not None:
            raise ValueError("--joined-epochs needs --seeds")
        return [], 0
    try:
        seeds = [int(s) for s in text.split(",")]
    except ValueError:
        raise ValueError(f"--seeds: expected comma-separated integers, got {text!r}") from None
    if any(not 0 <= s <= MAX_SEED for s in seeds):
        raise ValueError(f"--seeds: expected seeds between 0 and {MAX_SEED}, got {text!r}")
    if len(set(seeds)) < 2 or len(set(seeds)) != len(seeds):
        raise ValueError(f"--seeds: expected two different seeds or more, got {text!r}")
    if epochs is not None and epochs < 1:
        raise ValueError(f"--joined-epochs must be at least 1, got {epochs}")
    return seeds, epochs or 0


def _import(module: str, name: str):
    """A training entry point; a clear error without PyTorch."""
    import importlib

    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as e:
        raise missing_extra("training needs PyTorch", "train", TRAIN_PACKAGES, e) from None


def joint_config(settings: dict, args: dict, config: str | None = None):
    """Multi-task settings: per task from the config or from the recipes.  A task's recipe
    file named in the config is found beside the config (unless --recipes says where)."""
    from pathlib import Path

    from senna.tasks import normalize_tasks

    beside = str(Path(config).parent) if config and "tasks" in settings else None
    names, recipes = args.pop("tasks"), args.pop("recipes") or beside or "recipes"
    if names:
        given = settings.get("tasks", {})
        settings["tasks"] = {t: given.get(t, f"{t}.json") for t in normalize_tasks(names)}
    ignored = sorted(k for k, v in args.items()
                     if v is not None and k not in (*JOINT_SETTINGS, *JOINT_OPTIONS))
    if ignored:
        raise ValueError(f"with --tasks, set {', '.join(ignored)} in the per-task settings "
                         "(recipes or the config's \"tasks\" entry)")
    settings.update({k: v for k, v in args.items() if v is not None})
    joint = _import("senna.train.joint", "JointConfig").from_dict(settings, Path(recipes))
    for task in joint.tasks:   # each task's settings checked now, not when its data is read
        joint.task_config(task)
    return joint


def train_jointly(cfg) -> int:
    state = _import("senna.train.joint", "train_joint")(cfg)
    best = ", ".join(f"{t} {b['score']:.2f} (epoch {b['epoch']})"
                     for t, b in state["best"].items())
    print(f"best dev scores: {best}; models in "
          + ", ".join(str(cfg.model_dir(t)) for t in state["best"]))
    return 0
