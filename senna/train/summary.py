"""The lines a training run prints for each task before its first epoch: what was read
(sentences and tokens of train and dev), what can be learnt (the tag set, and the dev tags
outside it, which cannot be), how much of dev the dictionary covers, and the features.
Why: a wrong file, format or column then shows before the run, not as a poor dev score
hours later."""

from __future__ import annotations

from collections.abc import Sequence

from senna.features.kinds import WordFeature
from senna.io.saved_model import SavedModel
from senna.text.normalize import normalize_words
from senna.train.data import Example
from senna.vocab import Vocab

SHOWN = 8   # dev-only tags named at most


def counts(sentences: Sequence) -> str:
    """'1,234 sentences (20,345 tokens)'."""
    return f"{len(sentences):,} sentences ({sum(len(s.words) for s in sentences):,} tokens)"


def dev_only_tags(saved: SavedModel, dev_examples: Sequence[Example]) -> str:
    """'; 2 dev tags not in training, cannot be learnt: S-FOO, B-BAR' (empty if none)."""
    known = set(saved.tags.items)
    unseen = sorted({t for e in dev_examples for t in e.tags} - known)
    if not unseen:
        return ""
    more = f" and {len(unseen) - SHOWN} more" if len(unseen) > SHOWN else ""
    return (f"; {len(unseen)} dev tags not in training, cannot be learnt: "
            f"{', '.join(unseen[:SHOWN])}{more}")


def dictionary(saved: SavedModel, dev: Sequence) -> str:
    """'dictionary 1,204 words, 5.1% of dev tokens (101) outside it'."""
    kinds = saved.featurizer.of_kind(WordFeature)
    if not kinds:
        return "no word feature"
    words = [w for s in dev for w in s.words]
    outside = sum(i == Vocab.unk_id for i in kinds[0].word_ids(words, normalize_words(words)))
    share = 100 * outside / len(words) if words else 0.0
    return (f"dictionary {len(kinds[0].vocab):,} words, {share:.1f}% of dev tokens "
            f"({outside:,}) outside it")


def start_summary(name: str, saved: SavedModel, data: tuple[list, list],
                  dev_examples: Sequence[Example]) -> str:
    """Two lines about a task's data before training starts."""
    train, dev = data
    features = ", ".join(s.name for s in saved.featurizer.specs)
    return (f"{name}: train {counts(train)}, dev {counts(dev)}; {len(saved.tags)} tags"
            f"{dev_only_tags(saved, dev_examples)}\n"
            f"{name}: {dictionary(saved, dev)}; features {features}")
