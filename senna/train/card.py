"""Model cards: what a model was trained on, under which licence, with which command and
settings, and how well it does on dev.  Written next to the weights after training."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from senna.datasets import parse_spec
from senna.embeddings import read_metadata, text_licences
from senna.io.checkpoint import read_config
from senna.io.saved_model import ModelError
from senna.io.word_base import OWN_BASE
from senna.nn.config import NetConfig
from senna.runtime.ensemble import folder_config, read_spec
from senna.syntax.levels import FLATTENED
from senna.tasks import get_task, register

# The Makefile's target for each shipped model and the recipe of its own training step
# (tests/test_makefile.py checks them against `make -n`), and where in the models' folder
# a target writes when that is not the folder named as the target.
MAKE_RECIPES = {"pos": "recipes/pos.json", "chunk": "recipes/chunk-pt0.json",
                "pt0": "recipes/pt0-joint.json", "ner": "recipes/ner-silver.json",
                "srl": "recipes/srl-lm.json", "vbs": "recipes/vbs.json",
                "ner-es": "recipes/ner-es.json", "ner-nl": "recipes/ner-nl.json",
                "psg": "recipes/psg.json", "psg-pt0": "recipes/psg-pt0.json",
                "psg-nml": "recipes/psg-nml.json"}
MAKE_FOLDERS = {"ner-es": "es/ner", "ner-nl": "nl/ner", "psg-pt0": "psg/pt0",
                "psg-nml": "psg/nml"}
SHIPPED_DIR = Path("senna/models")
# The scripts the Makefile replaced, as models trained before it record their command.
REPLACED_SCRIPT = re.compile(r"bash recipes/(?:silver|train_all)\.sh (\w+)")


def partners(joint: dict, name: str) -> list[str]:
    """The other tasks of a joint run, auxiliary ones included."""
    return [t for t in joint["tasks"] if t != name] + joint.get("auxiliary", [])


def silver_text(source: dict | None) -> str:
    """What a training file written by senna.train.silver holds."""
    if not source:
        return ""
    gold = f"`{source['gold']}` plus " if source.get("gold") else ""
    return (f": {gold}{source['silver_sentences']:,} sentences of `{source['text']}` tagged by "
            f"a vote of {', '.join(f'`{t}`' for t in source['teachers'])}"
            + (f", their POS column by `{source['pos']}`" if source.get("pos") else "")
            + " (`senna.train.silver`; that text's licence applies too)")


def predicate_text(window: int) -> str:
    """The network line's note on `--predicate-window` (nothing for the paper's network)."""
    if not window:
        return ""
    words = "word also feeds" if window == 1 else f"{window} words (centred on it) also feed"
    return f"; the predicate's {words} the layer after the max over time"


def stack_text(net: dict) -> str:
    """The network line's note on `--stack` (nothing for the paper's one hidden layer)."""
    if not net.get("stack"):
        return ""
    cfg = NetConfig.from_dict(net)
    return (f"; {cfg.hidden} hidden units, then a second layer of {cfg.top_hidden} over "
            f"the first layer's outputs at {cfg.stack} neighbouring words")


def teachers_text(cfg: dict) -> list[str]:
    """The card's line on distillation (`--teachers`), with the command that made the
    teachers when their ensemble.json records it."""
    if not cfg.get("teachers"):
        return []
    made = ""
    for path in cfg["teachers"].split(","):
        try:
            spec = read_spec(Path(path))
        except (OSError, ValueError):   # teachers not kept: the card names them only
            continue
        command = spec.get("training", {}).get("command")
        mean = spec.get("dev", {}).get("mean")
        made += (f"; `{path}`: dev {mean:.2f}" if mean is not None else "") + \
            (f", made by `{command}`" if command else "")
    temperature = cfg.get("distill_temperature", 1.0)
    at = f" at temperature {temperature:g}" if temperature != 1 else ""
    return [f"- Distilled from teachers `{cfg['teachers']}` (`--teachers`; the KL term from "
            f"their averaged per-word tag distributions{at} weighs "
            f"{cfg.get('distill', 1.0):g}, `senna.train.distill`){made}"]


def clusters_text(cfg: dict, source: dict | None) -> list[str]:
    """The cluster lexicon's line: where it came from (senna.lm.clusters)."""
    if not cfg.get("clusters"):
        return []
    how = (f": {source['words']:,} cased words of the language model's text clustered at "
           f"{', '.join(map(str, source['sizes']))} ({source['algorithm']}; `make "
           "clusters`; that text's licence applies too)") if source else ""
    return [f"- Word clusters from `{cfg['clusters']}`, stored beside the model as "
            f"`clusters.words` and `clusters.npy`{how}"]


def typed(command: str) -> str:
    """A recorded `senna ...` command as it runs in a checkout, where the Makefile runs it."""
    return f"python -m {command}" if command.startswith("senna ") else command


def config_file(command: str) -> str | None:
    """The --config file a recorded command names, if any."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    return words[words.index("--config") + 1] if "--config" in words[:-1] else None


def make_target(command: str, out: str | None) -> str | None:
    """`make <target>` (with MODELS=... for another directory) when a Makefile step that
    writes `out` (or the ensemble `out` is a member of) is the command that trained this
    model, else None."""
    recipe = config_file(command)
    if out and re.fullmatch(r"seed-\d+", Path(out).name):   # a member of the target's ensemble
        out = str(Path(out).parent)
    for target, file in MAKE_RECIPES.items():
        folder = Path(MAKE_FOLDERS.get(target, target)).parts
        if out and file == recipe and Path(out).parts[-len(folder):] == folder:
            models = Path(*Path(out).parts[:-len(folder)] or ".")
            return f"make {target}" + ("" if models == SHIPPED_DIR else f" MODELS={models}")
    return None


def threads_text(threads: int | None) -> str:
    """How many threads training used (`--threads`; 0: torch's default)."""
    return f"{threads} thread{'s' if threads > 1 else ''}" if threads else \
        "torch's default number of threads"


def rebuild_lines(config: dict) -> list[str]:
    """The card's commands: the make target that rebuilds the model with what it needs
    first (where the Makefile has one), and the model's own training and compaction."""
    task, tr = config["task"], config.get("training", {})
    command = (config.get("joint") or tr).get("command", "senna train --config ...")
    old = REPLACED_SCRIPT.fullmatch(command)
    if old and old.group(1) == task and task in MAKE_RECIPES:
        command = f"senna train --config {MAKE_RECIPES[task]}"
    steps = [f"    {typed(c)}" for c in (command, config.get("compacted")) if c]
    target = make_target(command, tr.get("config", {}).get("out"))
    if target is None:
        return ["Retrain with:", "", *steps]
    return [f"Rebuild with `{target}` from the repository root (its Makefile: `make -n "
            f"{target.split()[1]}` lists every step, what the model needs first included). "
            "The model's own steps:", "", *steps]


def _is_file(path: str, tail: str) -> bool:
    """Does `path` name the file `tail` ("conll2003/eng.train") under some data root?"""
    want = Path(tail).parts
    return Path(path).parts[-len(want):] == want


def licence_text(config: dict) -> str:
    """The card's licence of the data: the run's --licence; else the built-in task's when
    the model was trained on that task's own training file (or on silver data made from
    it), since another file under the task's name (Spanish NER) has its own licence; else
    not stated."""
    tr = config.get("training", {})
    cfg = tr.get("config", {})
    if cfg.get("licence"):
        return cfg["licence"]
    task = get_task(config["task"])
    read = [cfg.get("train"), (tr.get("train_source") or {}).get("gold")]
    if task.data[0] and any(_is_file(p, task.data[0]) for p in read if p):
        return task.licence
    return "not stated (`senna train --licence` records it)"


def compacted_text(config: dict) -> list[str]:
    """The card's line on a model stored in float16 (`senna compact`), if it is."""
    if "float16" not in (config.get("rows_dtype"), config.get("weights_dtype")):
        return []
    return [f"- The word-table rows it stores (those that differ from the embeddings) are "
            f"kept in {config.get('rows_dtype', 'float32')}"
            + (f", its layers' weight matrices in {config['weights_dtype']}"
               if config.get("weights_dtype", "float32") != "float32" else "")
            + (", its dictionaries gzip-compressed" if config.get("vocab") == "gzip" else "")
            + f" (`{typed(config.get('compacted', ''))}`)."]


def embeddings_line(cfg: dict, text: list[str] | None) -> list[str]:
    """The card's line on the embeddings the word table started from, and their text."""
    if not cfg.get("embeddings"):
        return []
    return [f"- Word table initialised from `{cfg['embeddings']}`"
            + (" and kept fixed" if cfg.get("fixed_embeddings") else "")
            + (f": a language model's, trained on {', '.join(f'`{f}`' for f in text)}. "
               + text_licences(text) if text else
               ": see its own card for the text it was trained on and that text's licence"
               + (" (the shipped embeddings' text includes Reuters-21578, for research use "
                  "only)." if str(cfg["embeddings"]).rstrip("/").endswith(
                      "senna/models/embeddings") else "."))]


def parser_text(config: dict, cfg: dict, tree: bool) -> list[str]:
    """A parser's lines: the tagger its first level keeps, the nodes its levels flatten,
    training on its own mistakes."""
    lines = []
    if first := config.get("first_level"):
        lines.append(f"- At run time its first level keeps the phrases of a {first.upper()} "
                     f"tagger: its own, in its folder's `{first}/` (with its own card), or "
                     "else the pipeline's, run first; the network chooses their unary chains "
                     "(`first_level`)")
    if tree:
        lines += [f"- Its levels have no {label} nodes (they are flattened into their "
                  f"parents): at run time a tagger of them in its folder's "
                  f"`{label.lower()}/` (with its own card), if there is one, puts them back"
                  for label in FLATTENED]
    if cfg.get("explore"):
        lines.append(f"- Trained also on its own mistakes: the level states that "
                     f"{cfg['explore']} parsers, each trained without one fold of the "
                     "training trees"
                     + (f" for {n} epochs at most" if (n := cfg.get("explore_epochs")) else "")
                     + ", reach off the gold path on that fold, each with the gold phrases "
                     "still buildable from it (`explore`)")
    return lines


def card_text(config: dict, text: list[str] | None = None) -> str:
    """The card of a model whose config.json is `config`; `text`: the files of unlabeled
    text its embeddings were trained on, where the model's folder records them."""
    tr = config.get("training", {})
    cfg = tr.get("config", {})
    dev = config.get("dev", {})
    task = register(config["task_spec"]) if "task_spec" in config else get_task(config["task"])
    main = task.score_name
    scores = ", ".join(f"{main if k == 'score' else k} {v:.2f}" for k, v in dev.items())
    dev_data = cfg.get("dev") or f"last {cfg.get('dev_fraction', 0.1):g} of the training sentences"
    joint = config.get("joint")
    lines = [
        f"# senna model: {config['task']}",
        "",
        *(["**Provisional:** the best model so far of a training run that has not ended "
           "(still running, or stopped before its end). The run replaces it when it finds "
           "a better epoch; running its command again resumes it.", ""]
          if tr.get("finished") is False else []),
        f"- Network: {config['net']['approach']} approach, {config['net']['criterion'].upper()}"
        + predicate_text(config["net"].get("predicate_window", 0)) + stack_text(config["net"]),
        *([f"- Trained jointly with {', '.join(partners(joint, task.name))} (multi-task "
           "learning: shared word and caps tables"
           + (", shared first layer for the window tasks" if joint["share_l1"]
              and len(joint["tasks"]) > 1 else "")
           + f"; {joint['sampling']} task sampling)"] if joint else []),
        f"- Features: {', '.join(f['name'] for f in config['features'])}",
        f"- Training data: `{cfg.get('train')}`" + silver_text(tr.get("train_source")),
        *([f"- More training sentences (never in dev): `{cfg['extra_train']}`"
           + silver_text(tr.get("extra_train_source"))] if cfg.get("extra_train") else []),
        f"- Dev data: `{dev_data}`",
        f"- Licence of the data: {licence_text(config)}",
        *compacted_text(config),
        *embeddings_line(cfg, text),
        *(["- Input columns predicted, in training as at run time, by "
           + ", ".join(f"`{m}` ({c.upper()})" for c, m in parse_spec(cfg["predicted_columns"]))
           + (f"; on the training sentences by {cfg['jackknife']} jackknife models (each "
              "trained without the fold it tags)" if cfg.get("jackknife") else "")
           + ": the dev scores below are with those predicted inputs"]
          if cfg.get("predicted_columns") else []),
        *parser_text(config, cfg, task.tree),
        *([f"- Its weights are a moving average of those training went through (decay "
           f"{avg} per update, `average`): the dev scores below, and what it runs"]
          if (avg := cfg.get("average")) else []),
        *clusters_text(cfg, tr.get("clusters_source")),
        *teachers_text(cfg),
        f"- Dev scores (best epoch {tr.get('epochs')}): {scores}"
        + (tree_score_text(tr.get("dev_score")) if task.tree else ""),
        f"- Training time to the best epoch: {tr.get('seconds', 0) / 60:.1f} min "
        f"(wall clock, {threads_text(cfg.get('threads'))})",
        "",
        *rebuild_lines(config),
        "",
        "Settings:",
        "",
        "```json",
        json.dumps(cfg, indent=1),
        "```",
    ]
    return "\n".join(lines) + "\n"


def write_card(model_dir: str | Path) -> None:
    """MODEL_CARD.md of the saved model in `model_dir`, from its config.json (checked as
    every model's is read, `read_config`)."""
    path = Path(model_dir)
    config = read_config(path)
    (path / "MODEL_CARD.md").write_text(card_text(config, embeddings_text(path)),
                                        encoding="utf-8")


def embeddings_text(model_dir: Path) -> list[str] | None:
    """The text files the embeddings a model keeps in its own folder were trained on, as
    their metadata records them (`senna lm export`); None when it records none."""
    try:
        meta = read_metadata(model_dir / OWN_BASE)
        sources = meta["corpus"]["sources"]
        return [Path(s["path"]).name for s in sources]
    except (OSError, KeyError, TypeError, ValueError, ModelError):
        return None


def ensemble_card_text(spec: dict, member: dict) -> str:
    """The card of an ensemble folder: its members, how they are combined, the dev scores
    of each and of the combinations, the data and its licence (from its first member's
    `member` config), and the command that made it."""
    cfg = member.get("training", {}).get("config", {})
    task = register(member["task_spec"]) if "task_spec" in member else get_task(member["task"])
    dev = spec.get("dev", {})
    how = {"vote": "by vote (each word takes the tag most members gave)",
           "mean": "by their mean scores (emissions and transitions averaged, decoded once)",
           "joined": "by a joining layer trained on their hidden layers"}
    command = spec.get("training", {}).get("command") or "senna train ... --seeds ..."
    target = make_target(command, str(Path(cfg.get("out", "")).parent))   # a member's out
    steps = ["Rebuild with " + (f"`{target}` from the repository root; the ensemble's own "
                                "step:" if target else "its members, then:"),
             "", f"    {typed(command)}"]
    return "\n".join([
        f"# senna model: {member['task']}, an ensemble of {len(spec['members'])}",
        "",
        f"- Members: {', '.join(f'`{m}/`' for m in spec['members'])}, each a model with its "
        "own card (the same settings, seeds "
        f"{', '.join(map(str, spec.get('training', {}).get('seeds', [])))})",
        f"- Combined {how[spec['combine']]}: the combination that scores best on dev",
        f"- Training data: `{cfg.get('train')}`",
        f"- Dev data: `{cfg.get('dev')}`",
        f"- Licence of the data: {licence_text(member)}",
        f"- Dev {task.score_name}: " + ", ".join(f"{k} {v:.2f}" for k, v in dev.items()),
        "",
        *steps,
    ]) + "\n"


def write_ensemble_card(out: str | Path) -> None:
    """MODEL_CARD.md of the ensemble in `out` (its ensemble.json written)."""
    path = Path(out)
    spec, member = read_spec(path), folder_config(path)
    (path / "MODEL_CARD.md").write_text(ensemble_card_text(spec, member), encoding="utf-8")


def tree_score_text(kind: str | None) -> str:
    """What a parser's dev scores are: whole trees (now), or single levels (models trained
    before the parser was scored by its trees)."""
    if kind == "trees":
        return (": labelled bracket scores of its whole trees, parsed from the gold POS and "
                "the gold level 0 (`senna evaluate --model DIR --data DEV_FILE` scores them "
                "from predicted POS and PT0, as at run time)")
    return (": the span F1 of single levels, each tagged given the gold levels below it "
            "(whole trees: `senna evaluate --model DIR --data DEV_FILE` prints their labelled "
            "bracket scores)")
