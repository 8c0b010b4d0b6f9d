"""The task table: everything that differs between tasks, as data.

Each `TaskSpec` says how its data is read (format, target column, the files' tag scheme),
what the network predicts (scheme, default approach, criterion-independent), how it is
scored (metric), which features each preset reads, what it requires from other tasks and
what it assigns (the column it fills; per predicate or per word), where its spans appear in
the JSON output, its SENNA column name and flag, and its data licence.  The order of
`TASKS` is the cascade order (a task comes after those whose columns it reads).  Code
outside this table loops over it instead of naming tasks.

Feature presets: "basic" is the paper's benchmark setting (words + caps, Table 4);
"senna" adds SENNA's task-specific features (Table 14: suffix for POS, POS for CHUNK and PT0,
gazetteers for NER, PT0 for SRL); SRL's "pos-pt0" reads the POS column besides PT0.  A preset
takes additions after a "+": "senna+chars" adds character-level word vectors (CharWNN,
senna.nn.chars) to the "senna" features, "senna+chars:30" the same with 30 filters instead
of 50; "+clusters" the word's
clusters, as written, at 64, 512 and 4096 clusters ("+clusters:512": one of them) from a
lexicon built on unlabeled text (senna.lm.clusters); the name of a task earlier
in the cascade adds its output column ("pos-pt0+chunk": SRL reading the CHUNK tagger's tags
too).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from itertools import chain

from senna import features as F
from senna.features import FeatureSpec


@dataclass(frozen=True)
class TaskSpec:
    name: str
    fmt: str                # reader format (senna.io.conll.read_dataset)
    target: str             # column holding the gold tags (per-predicate tasks: the roles)
    scheme: str             # "tags" (no spans) or "iobes": what the network predicts
    metric: str             # "accuracy" | "chunk" | "srl" (senna.scoring)
    approach: str           # default network: "window" | "sentence"
    presets: dict[str, tuple[FeatureSpec, ...]]
    source_scheme: str = "iob2"      # scheme of the files (CoNLL-2003 is IOB1)
    per_predicate: bool = False      # one tag column per predicate (SRL) instead of per word
    requires: tuple[str, ...] = ()   # tasks whose output it always needs (besides features)
    span_field: str | None = None    # JSON field of its spans ("chunks", "entities")
    column: str = ""                 # SENNA output column / CLI flag name
    misc: str = ""                   # CoNLL-U MISC key of its tags (span tasks)
    aliases: tuple[str, ...] = ()
    default: bool = True             # in the tagger's default output
    licence: str = "see the data README"
    data: tuple[str, str | None] = ("", None)  # (train, dev) under the data root; None: split
    predicate_sources: tuple[str, ...] = ()  # per-predicate tasks: PREDICATE_RULES to try
    document_types: bool = False     # one type per name in a document (senna.decode.documents)
    extra: dict = field(default_factory=dict)  # per-task training settings for bench runs

    def features(self, preset: str = "basic") -> tuple[FeatureSpec, ...]:
        """A preset's features, then those of its additions: "senna+chars", or with the
        addition's size, "senna+chars:30" (30 filters; "chars:30:10:5" also sets the
        character width 10 and a convolution over 5 characters); an earlier task's name adds
        its output column, "pos-pt0+chunk" (SRL reading CHUNK tags; "+chunk:10": 10 dims)."""
        name, *more = preset.split("+")
        kinds = [m.partition(":")[0] for m in more]
        sizes = [m.split(":")[1:] for m in more]
        allowed = list(ADDITIONS)
        allowed += self.upstream_columns()
        base = self.presets.get(name, ())
        if name not in self.presets or any(k not in allowed for k in kinds) \
                or len(set(kinds)) < len(kinds) \
                or not all(x.isdigit() and int(x) > 0 for xs in sizes for x in xs) \
                or any(len(xs) > (3 if k == "chars" else 1)
                       for k, xs in zip(kinds, sizes, strict=True)) \
                or any(s.name in kinds for s in base):
            raise ValueError(f"task {self.name}: features must be a preset, one of "
                             f"{sorted(self.presets)}, optionally followed by additions "
                             f"'+{'+'.join(allowed)}' (or "
                             f"'+<addition>:<size>', '+chars:<filters>:<character width>:"
                             f"<window>'), none of them twice, got {preset!r}")
        added = (ADDITIONS.get(k, partial(F.column, k))(*map(int, xs))
            for k, xs in zip(kinds, sizes, strict=True))
        return base + tuple(chain.from_iterable(a if isinstance(a, tuple) else (a,)
                                                for a in added))

    def upstream_columns(self) -> list[str]:
        """Output columns this task may read: those of per-word tasks before it in the
        cascade (so no two models read each other's)."""
        names = list(TASKS)
        earlier = names[: names.index(self.name)] if self.name in names else names
        return [t for t in earlier if not TASKS[t].per_predicate]

    @property
    def score_name(self) -> str:
        return "accuracy" if self.metric == "accuracy" else "F1"


BASIC = (F.word(), F.caps())
# features any preset can take ("senna+chars"), size -> spec
ADDITIONS = {"chars": F.chars, "clusters": F.clusters}
GAZ = tuple(F.gazetteer_feature(k) for k in ("LOC", "MISC", "ORG", "PER"))
EWT_LICENCE = "CC BY-SA 4.0."

TASKS: dict[str, TaskSpec] = {t.name: t for t in (
    TaskSpec("pos", "tagged", "pos", "tags", "accuracy", "window",
             {"basic": BASIC, "senna": BASIC + (F.suffix_feature(2),)},
             column="POS",
             licence="English Web Treebank via UD English EWT: " + EWT_LICENCE,
             data=("ewt/ewt.train.pos", "ewt/ewt.dev.pos")),
    TaskSpec("chunk", "conll2000", "chunk", "iobes", "chunk", "window",
             {"basic": BASIC, "senna": BASIC + (F.column("pos"),)},
             span_field="chunks", column="CHK", misc="Chunk", aliases=("chk",),
             licence="CoNLL-2000 shared task data (WSJ sections with Brill POS): freely "
                     "distributed with the shared task.",
             data=("conll2000/train.txt", None)),
    TaskSpec("ner", "conll2003", "ner", "iobes", "chunk", "window",
             {"basic": BASIC, "senna": BASIC + GAZ}, source_scheme="iob1",
             span_field="entities", column="NER", misc="NER", document_types=True,
             licence="CoNLL-2003 English (Reuters) and its gazetteer: research use only, as "
                     "their distributors state. This model is for research use.",
             data=("conll2003/eng.train", "conll2003/eng.testa")),
    TaskSpec("pt0", "pt0", "pt0", "iobes", "chunk", "window",
             {"basic": BASIC, "senna": BASIC + (F.column("pos"),)}, source_scheme="iobes",
             column="PT0", misc="PT0", default=False,
             licence="English Web Treebank trees via the PropBank unified release: "
                     + EWT_LICENCE,
             data=("ewt/ewt.train.pt0", "ewt/ewt.dev.pt0")),
    TaskSpec("vbs", "predicates", "vbs", "iobes", "chunk", "window",
             {"basic": BASIC, "senna": BASIC + (F.column("pos"),)},
             column="VBS", misc="VBS", default=False,
             licence="PropBank unified release on EWT: " + EWT_LICENCE,
             data=("ewt/ewt.train.verbs-args.conll", "ewt/ewt.dev.verbs-args.conll")),
    TaskSpec("srl", "srl", "roles", "iobes", "srl", "sentence",
             {"basic": BASIC, "senna": BASIC + (F.column("pt0"),),
              "pos-pt0": BASIC + (F.column("pos"), F.column("pt0")),
              "window": BASIC + (F.pred_distance(),)},
             per_predicate=True, requires=("pos",), column="SRL",
             predicate_sources=("vbs", "pos"),
             licence="PropBank unified release on EWT: " + EWT_LICENCE,
             data=("ewt/ewt.train.verbs-args.conll", "ewt/ewt.dev.verbs-args.conll"),
             extra={"optimizer": "adam", "lr": 0.001}),
)}

# How a per-predicate task finds its predicates in the columns of the tasks run before it:
# SENNA's verb detector (a tagger trained on PropBank predicates, tags S-V / O), or SENNA's
# -posvbs rule (every word the POS tagger tagged VB*).
PREDICATE_RULES = {
    "vbs": lambda columns: [i for i, tag in enumerate(columns["vbs"]) if tag != "O"],
    "pos": lambda columns: [i for i, tag in enumerate(columns["pos"]) if tag.startswith("VB")],
}

ALIASES = {alias: t.name for t in TASKS.values() for alias in (t.name, *t.aliases)}
DEFAULT_TASKS = tuple(t.name for t in TASKS.values() if t.default)


def get_task(name: str) -> TaskSpec:
    key = ALIASES.get(name.strip().lower())
    if key is None:
        raise ValueError(f"unknown task {name!r}; expected one of {', '.join(TASKS)}")
    return TASKS[key]


def normalize_tasks(tasks: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """'pos,chk' or ['ner', 'pos'] -> ('pos', 'ner') in cascade order; ValueError if a name
    is unknown or none is given."""
    names = tasks.split(",") if isinstance(tasks, str) else list(tasks)
    chosen = {get_task(n).name for n in names if n.strip()}
    if not chosen:
        raise ValueError(f"no task given; expected some of {', '.join(TASKS)}")
    return tuple(t for t in TASKS if t in chosen)
