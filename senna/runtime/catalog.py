"""What each model folder is and under which terms it may be used: its task, language,
training data, dev score and licence (`senna models`, `Tagger.model_info()`), as `spacy
info` lists spaCy's.  A model's licence follows from its training data (each task's own,
every task of a joint run) and from the text of the embeddings its word table started
from, which the embeddings folder records (`embeddings.json`): one research-only source
makes the model research-only."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from senna.io.checkpoint import read_config
from senna.io.manifest import read_json
from senna.tasks import TASKS

# The unlabeled texts of ../shared/data/lm by file-name prefix: their licences (SOURCES.txt).
TEXT_LICENCES = {
    "enwiki_": "Wikipedia: CC BY-SA 3.0",
    "en_voa_": "Voice of America news: public domain",
    "reuters21578": "Reuters-21578: research use only",
    "es_parlamint": "ParlaMint-ES: CC BY 4.0",
    "es_conha19": "CONHA19 novels: public domain",
    "nl_wetten": "Dutch statutes (BWB): public domain",
}
RESEARCH = "research use"


@dataclass(frozen=True)
class ModelInfo:
    """One model folder as `senna models` lists it."""

    name: str            # its folder under the models directory, e.g. "es/ner"
    task: str
    language: str
    data: str            # the training files' names
    dev: str             # its dev score as training recorded it
    licence: str         # its data's and its embeddings' licences, in full
    terms: str           # in short: what a product may do with it
    def to_dict(self) -> dict:
        return asdict(self)


def text_licences(names: list[str]) -> list[str]:
    """The licences of unlabeled text files by name (`TEXT_LICENCES`; unknown: said so)."""
    out = []
    for name in names:
        known = [v for k, v in TEXT_LICENCES.items() if Path(name).name.startswith(k)]
        out.append(known[0] if known else f"{Path(name).name}: licence not recorded")
    return list(dict.fromkeys(out))


def embeddings_texts(folder: Path) -> list[str]:
    """The text files an embeddings folder records it was trained on."""
    try:
        corpus = read_json(folder / "embeddings.json").get("corpus", "")
    except (OSError, ValueError):
        return []
    text = corpus if isinstance(corpus, str) else json.dumps(corpus)
    return sorted({w.strip("'\",") for w in text.split() if ".txt" in w})


def _data_licences(config: dict, training: dict) -> list[str]:
    """The licences of a model's training data: the run's own (`--licence`, a user's
    task), else each of its tasks' data as the task describes it."""
    joint = config.get("joint") or {}
    tasks = joint.get("tasks") or [config["task"]]
    own = training.get("licence") or (config.get("task_spec") or {}).get("licence", "")
    out = [own if own and t == config["task"] else TASKS[t].licence if t in TASKS
           else f"{t}: licence not recorded" for t in tasks]
    out += [f"{aux}: texts not recorded" for aux in joint.get("auxiliary", [])]
    return list(dict.fromkeys(x for x in out if x))


def _dev(config: dict, task: str) -> str:
    """The dev score training recorded (a parser's: its trees parsed from gold POS)."""
    score = (config.get("dev") or {}).get("score")
    spec = TASKS.get(task)
    metric = "accuracy" if spec and spec.metric == "accuracy" else "F1"
    gold = " (trees from gold POS)" if spec and spec.tree else ""
    return "" if score is None else f"{metric} {score:.2f}{gold}"


def model_info(folder: Path, name: str) -> ModelInfo:
    """A model or ensemble folder's entry (an ensemble: its first member's data, the
    ensemble's recorded dev score of its combination)."""
    ensemble = folder / "ensemble.json"
    dev = ""
    if ensemble.is_file():
        spec = read_json(ensemble)
        dev = f"F1 {spec['dev'][spec['combine']]:.2f}" if spec.get("dev") else ""
        folder = folder / spec["members"][0]
    config = read_config(folder)
    task, training = config["task"], config.get("training", {}).get("config", {})
    base = (config.get("word_base") or {}).get("embeddings")   # relative to the folder
    start = folder / base if base else training.get("embeddings")
    texts = embeddings_texts(Path(start)) if start else []
    licences = _data_licences(config, training) + (
        [x.replace(":", " (embeddings' text):", 1) for x in text_licences(texts)]
        or [f"the embeddings {start}: texts not recorded"] if start else [])
    limits = [x.split(":")[0] for x in licences if RESEARCH in x.lower() or "not recorded" in x]
    research = bool(limits)
    files = [Path(f).name for f in (training.get("train"), training.get("extra_train")) if f]
    return ModelInfo(name, task, config.get("language", "en"), ", ".join(files),
                     dev or _dev(config, task), "; ".join(licences),
                     "research use only: " + ", ".join(limits) if research else
                     "; ".join(x.rsplit(": ", 1)[-1].rstrip(".") for x in licences))


def catalog(root: Path) -> list[ModelInfo]:
    """Every model folder under a models directory (one holding config.json or
    ensemble.json), the embeddings and the parser's inner taggers left out."""
    out = []
    for marker in sorted([*root.glob("*/config.json"), *root.glob("*/*/config.json"),
                          *root.glob("*/ensemble.json"), *root.glob("*/*/ensemble.json")]):
        folder = marker.parent
        parent = folder.parent
        if parent != root and ((parent / "config.json").is_file()
                               or (parent / "ensemble.json").is_file()):
            continue   # a member or a sub-model (psg/pt0) of the folder above
        out.append(model_info(folder, folder.relative_to(root).as_posix()))
    return out
