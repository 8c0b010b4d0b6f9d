"""What a model's features are: `FeatureSpec` (data, saved with a model) and the
constructors that the task presets are written with.  Kept apart from the kinds' code so
that reading a model's settings needs none of it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: The feature kinds, in the order error messages list them (`senna.features.kinds.KINDS`
#: holds a class for each).
KIND_NAMES = ("word", "caps", "suffix", "gazetteer", "column", "pred_distance", "chars",
              "cluster", "level")


@dataclass(frozen=True)
class FeatureSpec:
    """One lookup table: `kind` says how ids are computed, `arg` parameterises it.

    word: normalised word; caps: caps pattern; suffix: last `arg` chars; gazetteer: is the word
    inside an entry of type `arg`; column: the sentence's column `arg` (e.g. "pos");
    pred_distance: distance to the predicate, clipped at `arg` (window approach for SRL);
    chars: the word's characters through a convolution of `dim` filters, `arg` =
    "<character embedding width>,<window>" (`CharsFeature`); cluster: the word's cluster,
    as written, among `arg` clusters of a `Lexicon` (`ClusterFeature`); level: the tags of
    level `arg` of the sentence's parse tree (`LevelFeature`).
    """

    name: str
    kind: str
    dim: int
    arg: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KIND_NAMES:
            raise ValueError(f"feature kind must be one of {KIND_NAMES}, got {self.kind!r}")


def word(dim: int = 50) -> FeatureSpec:
    return FeatureSpec("word", "word", dim)


def caps(dim: int = 5) -> FeatureSpec:
    return FeatureSpec("caps", "caps", dim)


def suffix_feature(n: int = 2, dim: int = 5) -> FeatureSpec:
    return FeatureSpec(f"suffix{n}", "suffix", dim, str(n))


def gazetteer_feature(kind: str, dim: int = 5) -> FeatureSpec:
    return FeatureSpec(f"gaz_{kind}", "gazetteer", dim, kind)


def column(name: str, dim: int = 5) -> FeatureSpec:
    return FeatureSpec(name, "column", dim, name)


def pred_distance(clip: int = 10, dim: int = 5) -> FeatureSpec:
    return FeatureSpec("pred_distance", "pred_distance", dim, str(clip))


def clusters(size: int | None = None, dim: int = 10) -> tuple[FeatureSpec, ...]:
    """Word clusters from unlabeled text (senna.lm.clusters): one table per granularity,
    `size` clusters, or the usual three (64, 512, 4096) when not given."""
    return tuple(FeatureSpec(f"cluster{n}", "cluster", dim, str(n))
                 for n in ([size] if size else CLUSTER_SIZES))


CLUSTER_SIZES = (64, 512, 4096)


def levels(deepest: int = 4, dim: int = 5) -> tuple[FeatureSpec, ...]:
    """The parse tree's levels 1 to `deepest`, one table each (level 0 is PT0's column):
    SRL reading the parser's levels, as in JMLR 2011 Table 12."""
    return tuple(FeatureSpec(f"level{k}", "level", dim, str(k)) for k in range(1, deepest + 1))


def chars(filters: int = 50, char_dim: int = 10, window: int = 3) -> FeatureSpec:
    """CharWNN's setting (dos Santos & Zadrozny 2014): 10-d characters, window 3, 50 filters."""
    return FeatureSpec("chars", "chars", filters, f"{char_dim},{window}")


def chars_arg(spec: FeatureSpec) -> tuple[int, int]:
    """A chars spec's (character embedding width, convolution window)."""
    try:
        char_dim, window = (int(x) for x in spec.arg.split(","))
    except ValueError:
        raise ValueError(f"feature {spec.name!r}: arg must be '<char dim>,<window>', "
                         f"got {spec.arg!r}") from None
    if char_dim < 1 or window < 1 or window % 2 == 0:
        raise ValueError(f"feature {spec.name!r}: the character width must be positive and "
                         f"the window odd, got {spec.arg!r}")
    return char_dim, window


def column_sources(specs: Sequence[FeatureSpec], predicted: Mapping[str, str],
                   file: str | None, files: Mapping[str, str] | None = None
                   ) -> dict[str, dict[str, str]]:
    """Where each column a model reads as a feature came from in training: predicted by a
    named model (`predicted`, column -> model folder) or the data `file`'s own column (or
    another file's: `files`, column -> file, e.g. a PT0 column given apart).  Saved
    in the model's config, so that a reader can tell whether training saw what the runtime
    feeds it (the upstream tagger's tags) or a file's gold tags, maybe in another tag set."""
    out: dict[str, dict[str, str]] = {}
    for spec in specs:
        if spec.kind != "column":
            continue
        if spec.arg in predicted:
            out[spec.arg] = {"source": "predicted", "model": str(predicted[spec.arg])}
        else:
            given = (files or {}).get(spec.arg, file)
            out[spec.arg] = {"source": "file", "file": str(given or "")}
    return out

