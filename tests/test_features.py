"""The feature package's parts agree: every kind a spec may name has a class, and a spec
naming another kind is refused with the list of kinds."""

from __future__ import annotations

import pytest

from senna.features.featurizer import Featurizer
from senna.features.kinds import KINDS
from senna.features.specs import KIND_NAMES, FeatureSpec


def test_every_kind_a_spec_accepts_has_a_class() -> None:
    assert tuple(KINDS) == KIND_NAMES


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_a_spec_of_each_kind_is_accepted(kind: str) -> None:
    assert FeatureSpec("f", kind, 5).kind == kind


def test_an_unknown_kind_is_refused_naming_the_kinds() -> None:
    with pytest.raises(ValueError, match="feature kind must be one of .*'level'.*got 'bogus'"):
        FeatureSpec("f", "bogus", 5)


def test_a_featurizer_builds_every_per_word_kind() -> None:
    specs = [FeatureSpec("word", "word", 5), FeatureSpec("caps", "caps", 5),
             FeatureSpec("suffix2", "suffix", 5, "2")]

    class S:
        words = ["The", "cat", "sat"]
        columns: dict = {}

    featurizer = Featurizer.fit(specs, [S()])
    ids = featurizer.encode(["The", "dog"])
    assert ids.shape == (2, 3)
    assert ids[1, 0] == 1   # "dog" unseen: RARE
