"""A task's train/dev sentences as a training run's settings name them (no PyTorch and no
runtime here: evaluation, regression tests and benchmarks rebuild a model's dev set from
its recorded settings with these readers, `senna.scoring.inputs.recorded_dev_set`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from senna.document import Sentence
from senna.io.conll import DOCSTART, read_pt0
from senna.io.formats import TREE_FORMATS, read_dataset
from senna.io.lines import DataFormatError
from senna.io.treebank import bracketed
from senna.schemes import MIXED_SHARE, SHOWN, SchemeError, scheme_evidence, violations
from senna.syntax.levels import BELOW, GOLD_TREE, TREE, leaf_phrases
from senna.tags import PREFIXES, clip_brackets, split_tag
from senna.tasks import TaskSpec, declare, with_scheme
from senna.text.pieces import MAX_WORDS, piece_bounds


def split_train_dev(sentences: Iterable, dev_fraction: float = 0.1,
                    starts: Callable[[Any], bool] | None = None) -> tuple[list, list]:
    """Deterministic split: the last ``dev_fraction`` of sentences (rounded down) become dev.

    At least one dev sentence is kept when ``dev_fraction > 0`` and there are two or more.
    ``starts``: which items may open the dev part (a tree's level 0, so that no tree has
    levels on both sides); the cut moves back to the nearest such item.
    """
    if not 0.0 <= dev_fraction < 1.0:
        raise ValueError(f"dev_fraction must be in [0, 1), got {dev_fraction}")
    items = list(sentences)
    n_dev = math.floor(round(len(items) * dev_fraction, 9))
    if dev_fraction > 0 and n_dev == 0 and len(items) >= 2:
        n_dev = 1
    cut = len(items) - n_dev
    if starts is not None and n_dev:
        cut = next((i for i in range(cut, 0, -1) if starts(items[i])), cut)
    return items[:cut], items[cut:]


def attach_columns(sentences: list, path: str, name: str = "pt0") -> None:
    """Add another file's tag column (e.g. PT0 for SRL) to sentences with the same words."""
    other = read_pt0(path)
    if len(other) != len(sentences):
        raise ValueError(f"{path}: {len(other)} sentences, expected {len(sentences)}")
    for i, (s, o) in enumerate(zip(sentences, other, strict=True)):
        if o.words != s.words:
            raise ValueError(f"{path}: sentence {i + 1} has other words than the task data")
        s.columns[name] = o.columns[name]


# target column -> how a tree (its CoNLL parse cells) gives it: a task whose tags a tree
# defines trains and is scored on a file of trees (`--format trees` or `gold_conll`)
TREE_TARGETS = {"pt0": leaf_phrases}

# Training sentences longer than this are cut into pieces as tagging cuts them (`cut_long`);
# above MAX_WORDS, so that the few long sentences of real treebanks train whole.
LONGEST_TRAINING = 4 * MAX_WORDS


def read_task_file(path: str, fmt: str, task: TaskSpec) -> list:
    """A task's data file in format `fmt`; from a file of trees, a task of `TREE_TARGETS`
    gets its target column from each sentence's tree.  Only the task being trained or
    scored gets it, so that no model reads a gold PT0 column where it should read
    predicted tags (a parser's first level)."""
    try:
        sentences = read_dataset(path, fmt)
    except DataFormatError as e:
        if fmt in TREE_FORMATS or not bracketed(path):
            raise
        raise DataFormatError(f"{e.what}; the file holds bracketed trees: read them with "
                              "--format trees", e.path, e.line) from None
    derive = TREE_TARGETS.get(task.target)
    if derive is not None:
        for s in sentences:
            if task.target not in s.columns and GOLD_TREE in s.columns:
                s.columns[task.target] = derive(s.columns[GOLD_TREE])
    return sentences


def read_task_data(path: str, fmt: str, task: TaskSpec) -> list:
    """A task's data file (`read_task_file`), its tags checked against the task's scheme
    (`check_tags`; not yet when the scheme is still to be detected: `read_data`)."""
    sentences = read_task_file(path, fmt, task)
    if task.source_scheme:
        check_tags(sentences, task, path, fmt)
    return sentences


def declared_task(cfg) -> TaskSpec:
    """The task training settings declare (senna.tasks.declare): a preset, or the user's
    own; its scheme still to be detected from the data when the settings give none.
    (Settings recorded by older models lack columns and scheme.)  A user's task keeps the
    run's --licence, which its model's task record then states."""
    return declare(cfg.task, getattr(cfg, "columns", ""), getattr(cfg, "scheme", ""),
                   getattr(cfg, "approach", None) or "", getattr(cfg, "licence", "") or "")


@dataclass
class Data:
    """A run's task (its scheme known), its training and dev sentences, and what its files'
    tags showed about their scheme (printed before training; empty for a built-in task)."""

    task: TaskSpec
    train: list
    dev: list
    note: str = ""


def read_data(cfg) -> Data:
    """The settings' task and sentences (`load_splits`), the files' tag scheme detected
    from the training file when the settings declare none, and every tag checked against
    it: a tag that fits no scheme, or not the declared one, is one error naming its file
    and line; a few stray tags (at most 1 in MIXED_SHARE) are read as the scheme reads
    them, and named in the note."""
    task = declared_task(cfg)
    fmt = reader_format(cfg, task)
    train, dev = load_splits(cfg, task)
    declared = getattr(cfg, "scheme", "")
    notes = []
    if not task.source_scheme or declared not in ("", "tags"):
        task, notes = _checked_scheme(cfg, task, fmt, train, dev)
    train, cut = cut_long(train, task, cfg.train)
    return Data(task, train, dev, "\n".join(notes + [cut] if cut else notes))


def _checked_scheme(cfg, task: TaskSpec, fmt: str, train: list, dev: list
                    ) -> tuple[TaskSpec, list[str]]:
    """The task with the scheme its training file shows (or declares), every tag of both
    files checked against it; -> (task, notes on stderr)."""
    declared = getattr(cfg, "scheme", "")
    _target_column(train, task, cfg.train, fmt)
    try:
        evidence = scheme_evidence([s.columns[task.target] for s in train])
    except SchemeError as e:
        raise DataFormatError(str(e) + ("" if declared else " (declare one with --scheme)"),
                              cfg.train, _line_of(cfg.train, fmt, *e.where)) from None
    if declared and evidence.scheme != declared:
        i, j = evidence.where
        raise DataFormatError(f"tag {train[i].columns[task.target][j]!r} shows "
                              f"{evidence.scheme.upper()} tags, not the declared "
                              f"{declared.upper()} (--scheme)", cfg.train,
                              _line_of(cfg.train, fmt, i, j))
    task = with_scheme(task, evidence.scheme)
    extra = len(read_dataset(cfg.extra_train, fmt)) if getattr(cfg, "extra_train", None) else 0
    notes = [f"{task.name}: tags of {cfg.train} read as {evidence.describe()}"]
    for sentences, path, first in ((train[: len(train) - extra], cfg.train, 0),
                                   (dev, cfg.dev or cfg.train, 0 if cfg.dev else
                                    len(train) - extra)):
        check_tags(sentences, task, path, fmt)
        stray = _check_sequences(sentences, task, path, fmt, first)
        if stray:
            notes.append(f"{task.name}: {path}: {stray}")
    return task, notes


def cut_long(sentences: list, task: TaskSpec, path: str) -> tuple[list, str]:
    """Training sentences over LONGEST_TRAINING words cut into pieces of at most MAX_WORDS,
    as tagging cuts them (senna.text.pieces); -> (sentences, a note, "" if none was cut).
    Such a sentence is most often a file that lost its blank lines: trained whole it is one
    update in a whole epoch, and SRL's cost grows with its square.  Trees cannot be cut."""
    long = [i for i, s in enumerate(sentences) if len(s.words) > LONGEST_TRAINING]
    if not long:
        return sentences, ""
    if task.tree:
        raise DataFormatError(f"a tree of {len(sentences[long[0]].words):,} words, over the "
                              f"{LONGEST_TRAINING:,} a training tree may have (did the file "
                              "lose its blank lines?)", path)
    out = []
    for s in sentences:
        out.extend(_pieces(s) if len(s.words) > LONGEST_TRAINING else [s])
    return out, (f"{task.name}: {path}: {len(long):,} sentence(s) over {LONGEST_TRAINING:,} "
                 f"words cut into {len(out) - len(sentences) + len(long):,} pieces of at "
                 f"most {MAX_WORDS} words, as tagging cuts them (did the file lose its "
                 "blank lines?)")


def _pieces(s: Sentence) -> list[Sentence]:
    """A sentence's pieces (`piece_bounds`): columns sliced, brackets of trees and of each
    predicate's roles clipped, each predicate with its piece."""
    out = []
    for lo, hi in piece_bounds(s.words):
        columns = {k: clip_brackets(v, lo, hi) if k in (TREE, GOLD_TREE) else list(v[lo:hi])
                   for k, v in s.columns.items()}
        kept = [(p - lo, clip_brackets(r, lo, hi))
                for p, r in zip(s.predicates, s.roles, strict=True) if lo <= p < hi]
        out.append(Sentence(s.words[lo:hi], columns, [p for p, _ in kept],
                            [r for _, r in kept], s.doc, list(s.tokens[lo:hi]), s.source))
    return out


def _check_sequences(sentences: list, task: TaskSpec, path: str, fmt: str, first: int) -> str:
    """The tags the file's scheme does not allow where they stand (`violations`: a chunk of
    an IOB2 file starting with I-, ...) as a note naming their lines when they are at most
    1 in MIXED_SHARE of its span tags (a slip, read as the scheme reads it: a stray I-
    starts a chunk), else DataFormatError at the first; `first`: the file's index of the
    first sentence given."""
    if task.scheme == "tags":
        return ""
    columns = [s.columns[task.target] for s in sentences]
    places = [(i, j) for i, col in enumerate(columns) if col.count("O") != len(col)
              for j in violations(col, task.source_scheme)]
    if not places:
        return ""
    spans = sum(len(col) - col.count("O") for col in columns)
    i, j = places[0]
    if len(places) * MIXED_SHARE > spans:
        raise DataFormatError(f"tag {columns[i][j]!r} does not fit the "
                              f"{task.source_scheme.upper()} scheme of the file where it "
                              f"stands ({len(places)} of {spans} span tags do not)", path,
                              _line_of(path, fmt, first + i, j))
    lines = [str(_line_of(path, fmt, first + i, j)) for i, j in places[:SHOWN]]
    more = f" and {len(places) - SHOWN} more" if len(places) > SHOWN else ""
    many = len(places) > 1
    return (f"{len(places)} tag{'s' if many else ''} of {spans:,} not fitting "
            f"{task.source_scheme.upper()} where {'they stand' if many else 'it stands'}, "
            f"read as it reads them: line{'s' if many else ''} {', '.join(lines)}{more}")


def _target_column(sentences: list, task: TaskSpec, path: str, fmt: str) -> None:
    if sentences and task.target not in sentences[0].columns:
        raise DataFormatError(f"no {task.target} column to train {task.name} on (format {fmt} "
                              f"reads {', '.join(sentences[0].columns) or 'words only'})", path)


def check_tags(sentences: list, task: TaskSpec, path: str, fmt: str) -> None:
    """DataFormatError naming the file and line of the first tag outside the scheme of the
    task's files (`source_scheme`): O, or one of its prefixes, a dash and a type.  Why:
    the span readers take any string, so `X-PER` or `FOO` became chunks of a type nobody
    declared, and a bare `B-` one without a type.  Tasks of plain labels (POS) take any tag;
    SRL's bracket columns are checked by their reader."""
    if task.scheme == "tags" or task.per_predicate:
        return
    _target_column(sentences, task, path, fmt)
    prefixes = PREFIXES[task.source_scheme]
    seen = {t for s in sentences for t in s.columns[task.target]}
    bad = {t for t in seen if t != "O" and not (split_tag(t)[0] in prefixes and split_tag(t)[1])}
    if not bad:
        return
    i, j = next((i, j) for i, s in enumerate(sentences)
                for j, t in enumerate(s.columns[task.target]) if t in bad)
    tag, line = sentences[i].columns[task.target][j], _line_of(path, fmt, i, j)
    raise DataFormatError(
        f"tag {tag!r} is not in the {task.source_scheme.upper()} scheme of {task.name} data "
        f"(expected O or {'/'.join(p + '-' for p in prefixes)} and a type, e.g. "
        f"{prefixes[0]}-{_a_type(seen, prefixes)})"
        + ("" if line else f" in sentence {i + 1}, word {j + 1}"), path, line)


def _a_type(tags: set[str], prefixes: tuple[str, ...]) -> str:
    """A type the file's valid tags use, for the example in an error message."""
    kinds = sorted(split_tag(t)[1] for t in tags if split_tag(t)[0] in prefixes)
    return next((k for k in kinds if k), "NP")


def _line_of(path: str, fmt: str, i: int, j: int) -> int | None:
    """The line of word j of sentence i in a column file, as its reader counts them (blank
    and -DOCSTART- lines end a sentence; CoNLL-U comments and multiword ranges are no
    words); None if not found."""
    conllu, sentence, word = fmt == "conllu", 0, 0
    lines = Path(path).read_text(encoding="utf-8-sig", errors="replace").split("\n")
    for num, raw in enumerate(lines, 1):
        fields = raw.split()
        if conllu and fields and (fields[0].startswith("#") or "-" in fields[0]
                                  or "." in fields[0]):
            continue
        if not fields or fields[0] == DOCSTART:
            sentence, word = sentence + (word > 0), 0
            continue
        if (sentence, word) == (i, j):
            return num
        word += 1
    return None


def reader_format(cfg, task: TaskSpec) -> str:
    """The settings' file format, else the task's (older models' settings lack one)."""
    return getattr(cfg, "format", "") or task.fmt


def level_zero(sentence) -> bool:
    """Is this level sentence (`read_levels`) its tree's first level: nothing found below."""
    return all(t == "O" for t in sentence.columns[BELOW])


def load_splits(cfg, task: TaskSpec) -> tuple[list, list]:
    """cfg has train, dev (None: the last dev_fraction of train), dev_fraction, extra_columns
    and extra_train (sentences for training only, after the split), all in the settings'
    `format` or else the task's."""
    fmt = reader_format(cfg, task)
    train = read_task_data(cfg.train, fmt, task)
    if cfg.dev:
        dev = read_task_data(cfg.dev, fmt, task)
    else:
        train, dev = split_train_dev(train, cfg.dev_fraction, level_zero if task.tree else None)
    if cfg.extra_columns:  # "train.pt0,dev.pt0"
        paths = cfg.extra_columns.split(",")
        if len(paths) != 2 or not cfg.dev:
            raise ValueError("extra_columns takes 'TRAIN_FILE,DEV_FILE' and needs a dev file")
        attach_columns(train, paths[0])
        attach_columns(dev, paths[1])
    if getattr(cfg, "extra_train", None):   # older models' settings lack it
        train = train + read_task_data(cfg.extra_train, fmt, task)
    return train, dev


def load_dev(cfg, task: TaskSpec) -> list:
    """The dev half of `load_splits`, reading the training file only when dev is cut from it:
    a run's training file may be a derived one (silver data under runs/) that is not kept."""
    if not cfg.dev:
        return load_splits(cfg, task)[1]
    dev = read_task_file(cfg.dev, reader_format(cfg, task), task)
    if cfg.extra_columns:
        attach_columns(dev, cfg.extra_columns.split(",")[-1])
    return dev


def rebase(path: str | None, data_root: Path) -> str | None:
    """'../shared/data/ewt/x' or '/any/where/data/ewt/x' -> str(data_root / 'ewt/x')."""
    if not path:
        return path
    parts = Path(path).parts
    return str(data_root.joinpath(*parts[parts.index("data") + 1 :])) if "data" in parts else path


def parse_spec(spec: str | None) -> list[tuple[str, str]]:
    """'pos=DIR,pt0=DIR' -> [('pos', 'DIR'), ('pt0', 'DIR')]; ValueError when malformed."""
    out = []
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        column, sep, path = part.partition("=")
        if not sep or not column.strip() or not path.strip():
            raise ValueError(f"predicted_columns takes COLUMN=MODEL_DIR pairs separated by "
                             f"commas, e.g. pos=senna/models/pos; got {part!r}")
        out.append((column.strip(), path.strip()))
    return out
