"""What differs between tasks, as data: which file format, which column is the target,
which tagging scheme the network predicts, which metric scores it, which features it reads.

Feature presets: "basic" is the paper's benchmark setting (words + caps, Table 4);
"senna" adds SENNA's task-specific features (Table 14: suffix for POS, POS for CHUNK and PT0,
gazetteers for NER, PT0 for SRL).
"""

from __future__ import annotations

from dataclasses import dataclass

from senna import features as F
from senna.features import FeatureSpec


@dataclass(frozen=True)
class TaskSpec:
    name: str
    fmt: str                # reader format (senna.io.conll.read_dataset)
    target: str             # column holding the gold tags ("args" for SRL)
    scheme: str             # "tags" (no spans) or "iobes": what the network predicts
    metric: str             # "accuracy" | "chunk" | "srl"
    approach: str           # default network: "window" | "sentence"
    presets: dict[str, tuple[FeatureSpec, ...]]
    source_scheme: str = "iob2"  # scheme of the files (CoNLL-2003 is IOB1)

    def features(self, preset: str = "basic") -> tuple[FeatureSpec, ...]:
        if preset not in self.presets:
            raise ValueError(f"task {self.name}: feature preset must be one of "
                             f"{sorted(self.presets)}, got {preset!r}")
        return self.presets[preset]


BASIC = (F.word(), F.caps())
GAZ = tuple(F.gazetteer_feature(k) for k in ("LOC", "MISC", "ORG", "PER"))

TASKS: dict[str, TaskSpec] = {
    "pos": TaskSpec("pos", "tagged", "pos", "tags", "accuracy", "window",
                    {"basic": BASIC, "senna": BASIC + (F.suffix_feature(2),)}),
    "chunk": TaskSpec("chunk", "conll2000", "chunk", "iobes", "chunk", "window",
                      {"basic": BASIC, "senna": BASIC + (F.column("pos"),)}),
    "ner": TaskSpec("ner", "conll2003", "ner", "iobes", "chunk", "window",
                    {"basic": BASIC, "senna": BASIC + GAZ}, source_scheme="iob1"),
    "pt0": TaskSpec("pt0", "pt0", "pt0", "iobes", "chunk", "window",
                    {"basic": BASIC, "senna": BASIC + (F.column("pos"),)}, source_scheme="iobes"),
    "srl": TaskSpec("srl", "srl", "args", "iobes", "srl", "sentence",
                    {"basic": BASIC, "senna": BASIC + (F.column("pt0"),),
                     "window": BASIC + (F.pred_distance(),)}),
}


def get_task(name: str) -> TaskSpec:
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; expected one of {sorted(TASKS)}")
    return TASKS[name]
