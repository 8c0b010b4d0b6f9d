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
lexicon built on unlabeled text (senna.lm.clusters); "+levels" (SRL) the levels 1 to 4 of
the sentence's parse tree, read from the parser's output ("+levels:2": levels 1 and 2;
level 0 is PT0's column; JMLR 2011 Table 12); the name of a task earlier
in the cascade adds its output column ("pos-pt0+chunk": SRL reading the CHUNK tagger's tags
too).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from itertools import chain

from senna.features import specs as F
from senna.features.specs import FeatureSpec
from senna.syntax.levels import BELOW


@dataclass(frozen=True)
class TaskSpec:
    name: str
    fmt: str                # reader format (senna.io.formats.read_dataset)
    target: str             # column holding the gold tags (per-predicate tasks: the roles)
    scheme: str             # "tags" (no spans) or "iobes": what the network predicts
    metric: str             # "accuracy" | "chunk" | "srl" (senna.scoring.predictions)
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
    tree: bool = False               # its output column holds a parse tree's cells (psg)
    own_columns: tuple[str, ...] = ()  # input columns its model computes itself (psg: below)

    def features(self, preset: str = "basic") -> tuple[FeatureSpec, ...]:
        """A preset's features, then those of its additions: "senna+chars", or with the
        addition's size, "senna+chars:30" (30 filters; "chars:30:10:5" also sets the
        character width 10 and a convolution over 5 characters); an earlier task's name adds
        its output column, "pos-pt0+chunk" (SRL reading CHUNK tags; "+chunk:10": 10 dims).
        The columns the task computes itself (a parser's levels found below) come last,
        after the additions: a network with `level_hidden` reads all the others once per
        sentence."""
        name, *more = preset.split("+")
        kinds = [m.partition(":")[0] for m in more]
        sizes = [m.split(":")[1:] for m in more]
        allowed = [a for a in ADDITIONS if a != "levels" or self.per_predicate]
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
        specs = base + tuple(chain.from_iterable(a if isinstance(a, tuple) else (a,)
                                                 for a in added))
        return (tuple(s for s in specs if s.name not in self.own_columns)
                + tuple(s for s in specs if s.name in self.own_columns))

    def upstream_columns(self) -> list[str]:
        """Output columns this task may read: those of per-word tasks before it in the
        cascade (so no two models read each other's)."""
        names = list(TASKS)
        earlier = names[: names.index(self.name)] if self.name in names else names
        return [t for t in earlier if not TASKS[t].per_predicate and not TASKS[t].tree]

    @property
    def score_name(self) -> str:
        return "accuracy" if self.metric == "accuracy" else "F1"


BASIC = (F.word(), F.caps())
# features any preset can take ("senna+chars"), size -> spec
# ("+levels": the parser's levels 1 to 4, "+levels:2": 1 and 2; per-predicate tasks only)
ADDITIONS = {"chars": F.chars, "clusters": F.clusters, "levels": F.levels}
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
    # The parser (senna.syntax, docs/parser.md): trained on one sentence per (tree, level),
    # its target the level's IOBES tags, its `below` column the labels found on the levels
    # under it (level_features: label and IOBES position of the highest phrase over each
    # word, so the network sees which words already form one node and what it is).  Its
    # dev score while training is the labelled bracket F1 of its whole trees
    # (senna.scoring.trees.tree_score), as `senna evaluate --task psg` scores them.  The
    # runtime column is the tree's CoNLL parse cells.
    TaskSpec("psg", "levels", "psg", "iobes", "chunk", "sentence",
             {"basic": BASIC + (F.column(BELOW, 10),),
              "senna": BASIC + (F.column("pos"), F.column(BELOW, 10))},
             source_scheme="iobes", requires=("pos",), column="PSG", default=False,
             tree=True, own_columns=(BELOW,),
             licence="English Web Treebank trees via the PropBank unified release: "
                     + EWT_LICENCE,
             data=("ewt/ewt.train.gold_conll", "ewt/ewt.dev.gold_conll"),
             extra={"criterion": "wll"}),
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
PRESETS = tuple(TASKS)   # the built-in tasks; a user's own tasks join TASKS (`register`)
LAYOUT = "columns:"   # a format naming the file's columns: "columns:word,_,ner"
SKIP = "_"            # a column of the layout that is not read


def layout_columns(spec: str) -> list[str]:
    """'word,_,ner' -> ['word', '_', 'ner']; ValueError unless it names one word column and
    each other column once (the names' meaning is the task's: senna.tasks.declared)."""
    names = [n.strip().lower() for n in spec.split(",")]
    if names.count("word") != 1 or any(not n for n in names):
        raise ValueError(f"a column layout names the word column once and every column, "
                         f"e.g. word,_,ner; got {spec!r}")
    named = [n for n in names if n != SKIP]
    if len(set(named)) < len(named):
        raise ValueError(f"a column layout names each column once, got {spec!r}")
    return names

_NAME = re.compile(r"[a-z][a-z0-9_]{0,23}")
# What a user's task keeps of its declaration in a model's config ("task_spec").
RECORD = ("name", "fmt", "target", "scheme", "metric", "approach", "source_scheme",
          "span_field", "column", "misc", "licence")


def declare(name: str, layout: str = "", scheme: str = "", approach: str = "",
            licence: str = "") -> TaskSpec:
    """A task as its settings declare it.  A preset (pos, chunk, ner, pt0) keeps all that is
    its own and reads the file by `layout` ("word,_,ner": senna.io.conll.read_layout) in
    `scheme` where given.  Any other name is the user's own task: its words and tags are
    the layout's `word` and `<name>` columns, its tags plain labels scored by accuracy
    (`scheme` "tags") or spans of IOB1/IOB2/IOBES/BILOU tags, predicted in IOBES and scored
    by span F1; it reads words and caps ("basic") plus the additions, e.g. "basic+chars"
    or "+pos" (a built-in tagger's column, which the runtime fills).  `scheme` "" leaves
    it to be detected from the training file (`with_scheme`)."""
    key = ALIASES.get(name.strip().lower())
    if key in PRESETS:
        spec = TASKS[key]
        if layout and (spec.per_predicate or spec.fmt == "predicates" or spec.tree):
            raise ValueError(f"task {spec.name} reads its own file format; a column layout is "
                             f"for tasks that tag words ({', '.join(_word_presets())})")
        if layout:   # a file of the user's: its scheme is theirs (else: detected)
            spec = replace(spec, fmt=LAYOUT + layout,
                           source_scheme=spec.source_scheme if spec.scheme == "tags" else "")
        return with_scheme(spec, scheme) if scheme and spec.scheme != "tags" else spec
    if not _NAME.fullmatch(name):
        raise ValueError(f"a task's name is a lower-case word (letters, digits, _; at most "
                         f"24), e.g. dates; got {name!r}")
    if not layout:
        raise ValueError(f"task {name} is not built in ({', '.join(PRESETS)}): declare its "
                         f"file's columns, e.g. --columns word,_,{name}")
    spec = TaskSpec(name, LAYOUT + layout, name, "tags", "accuracy", approach or "window",
                    {"basic": BASIC, "senna": BASIC}, column=name.upper(), default=False,
                    licence=licence or "not stated")
    return with_scheme(spec, scheme) if scheme else replace(spec, source_scheme="")


def with_scheme(spec: TaskSpec, scheme: str) -> TaskSpec:
    """The task reading files in `scheme`: plain labels ("tags") or spans, predicted in
    IOBES (a user's task is also scored by span F1, its spans in the JSON field of its
    name)."""
    if spec.name in PRESETS:
        if (scheme == "tags") != (spec.scheme == "tags"):
            kind = "labels" if spec.scheme == "tags" else "spans"
            raise ValueError(f"{spec.name} tags are {kind}, not {scheme}")
        return replace(spec, source_scheme=scheme)
    if scheme == "tags":
        return replace(spec, scheme="tags", metric="accuracy", source_scheme="iob2",
                       span_field=None, misc="")
    return replace(spec, scheme="iobes", metric="chunk", source_scheme=scheme,
                   span_field=spec.name, misc=spec.name.capitalize())


def check_layout(spec: TaskSpec, layout: str) -> None:
    """ValueError unless the layout names the task's tag column and otherwise only
    columns a model can read (those of the built-in word taggers) or `_`."""
    names = layout_columns(layout)
    if spec.target not in names:
        raise ValueError(f"the column layout {layout!r} has no {spec.target} column (the tags "
                         f"to learn)")
    known = {"word", SKIP, spec.target, *_word_presets()}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown column name {unknown[0]!r} in the column layout {layout!r} "
                         f"(expected word, _ for a column not read, {spec.target} for the "
                         f"tags, or a tagger's column: {', '.join(_word_presets())})")


def _word_presets() -> list[str]:
    return [t for t in PRESETS if not TASKS[t].per_predicate and TASKS[t].fmt != "predicates"
            and not TASKS[t].tree]


def task_record(spec: TaskSpec) -> dict:
    """What a model of a user's task stores to be loaded without its settings."""
    return {k: v for k, v in asdict(spec).items() if k in RECORD}


# What of a user's task decides how the runtime writes its tags: the same in every model of
# one name loaded in a process.  The rest (the training file's layout and scheme, the
# data's licence) is each model's own: two models of "dates" read from different column
# layouts, with different tag sets, load side by side.
_RUNTIME = ("name", "scheme", "metric", "span_field", "column", "misc")


def task_from_record(record: dict) -> TaskSpec:
    """A user's task as a model's config records it ("task_spec"); ValueError for a record
    that is incomplete or takes a built-in task's name."""
    if not isinstance(record, dict):
        raise ValueError("task_spec must be an object")
    try:
        spec = TaskSpec(**{k: record[k] for k in RECORD},
                        presets={"basic": BASIC, "senna": BASIC}, default=False)
    except (KeyError, TypeError) as e:
        raise ValueError(f"a task record needs {', '.join(RECORD)} ({e})") from None
    if not isinstance(spec.name, str) or spec.name in ALIASES and ALIASES[spec.name] in PRESETS \
            or not _NAME.fullmatch(spec.name):
        raise ValueError(f"a user's task cannot be named {spec.name!r}")
    return spec


def register(record: dict) -> TaskSpec:
    """Make a user's task known to the runtime (a model of it is loaded): it joins TASKS
    after the built-in ones, so it may read their columns.  -> the model's own task (its
    layout, scheme of its files, licence), which loading another model of that name never
    replaces.  ValueError for a name a built-in task has, or a task of that name loaded
    already that writes its tags otherwise (labels against spans, another column)."""
    spec = task_from_record(record)
    known = TASKS.get(spec.name)
    if known is None:
        TASKS[spec.name] = spec
        ALIASES[spec.name] = spec.name
    elif any(getattr(known, k) != getattr(spec, k) for k in _RUNTIME):
        differ = next(k for k in _RUNTIME if getattr(known, k) != getattr(spec, k))
        raise ValueError(f"another model of a task named {spec.name} is loaded whose tags are "
                         f"written otherwise ({differ} {getattr(known, differ)!r}, here "
                         f"{getattr(spec, differ)!r}); give one of the tasks another name")
    return spec


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
