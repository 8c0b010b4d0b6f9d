"""Parse trees as levels on EWT: level statistics, the round trip levels <-> trees, level 0
against the PT0 files, and the dev F1 (evalb conventions) of trivial parsers.

    python bench/parser_levels.py --data ../shared/data

Level 0 is compared with `ewt.*.pt0` through the lowest label of each chain (PT0 labels a
unary chain by its lowest node); the baselines are gold levels 0..k with everything left
hung under one S (as the decoder does), and the flat tree (one S over the words).
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)

from senna.io.conll import read_gold_conll, read_pt0
from senna.scoring.evalb import bracket_scores
from senna.syntax.levels import (
    CHAIN,
    levels_to_tree,
    normalise,
    tree_to_levels,
    unchain,
    with_root,
)
from senna.syntax.tree import Tree, conll_to_tree, node
from senna.tags import split_tag


def lowest(tag: str) -> str:
    """`B-S#VP` -> `B-VP`: the label PT0 gives a chain."""
    prefix, kind = split_tag(tag)
    return f"{prefix}-{kind.split(CHAIN)[-1]}" if kind else tag


def level_stats(trees: list[Tree]) -> None:
    levels = [tree_to_levels(normalise(t)) for t in trees]
    depth = [len(x) for x in levels]
    print(f"  levels per sentence: mean {statistics.mean(depth):.2f}, max {max(depth)}")
    labels: list[set[str]] = []
    for sentence in levels:
        for k, tags in enumerate(sentence):
            labels += [set() for _ in range(k + 1 - len(labels))]
            labels[k] |= {split_tag(t)[1] for t in tags if t != "O"}
    print("  labels per level (0, 1, ...):", [len(x) for x in labels])
    every = set().union(*labels)
    print(f"  labels in all: {len(every)} ({sum(CHAIN in x for x in every)} chains); "
          f"IOBES tags: {4 * len(every) + 1}")
    chains = Counter(t.label for tree in trees for t in normalise(tree).nodes() if CHAIN in t.label)
    print(f"  unary chains: {sum(chains.values())} in "
          f"{sum(any(CHAIN in t.label for t in normalise(x).nodes()) for x in trees)} sentences;"
          f" most common {chains.most_common(8)}")
    nml = sum(t.label == "NML" for tree in trees for t in tree.nodes())
    print(f"  NML nodes flattened: {nml}")


def round_trip(trees: list[Tree]) -> None:
    bad = 0
    for t in trees:
        norm = normalise(t)
        levels = tree_to_levels(norm)
        back = levels_to_tree(levels, t.end)
        bad += back != norm or tree_to_levels(back) != levels or unchain(norm) != normalise_nml(t)
    print(f"  round trip tree -> levels -> tree -> levels: {len(trees) - bad}/{len(trees)} exact")


def normalise_nml(t: Tree) -> Tree:
    """The gold tree with NML flattened but chains kept apart (what `unchain` should give)."""
    return unchain(normalise(t))


def pt0_check(trees: list[Tree], pt0_path: Path) -> None:
    pt0 = read_pt0(pt0_path)
    tokens = wrong = sentences = chained = 0
    examples: Counter[tuple[str, str]] = Counter()
    for tree, sentence in zip(trees, pt0, strict=True):
        levels = tree_to_levels(normalise(tree))
        mine = [lowest(t) for t in levels[0]] if levels else ["O"] * tree.end
        gold = sentence.columns["pt0"]
        chained += sum(CHAIN in t for t in levels[0]) if levels else 0
        diff = [(a, b) for a, b in zip(mine, gold, strict=True) if a != b]
        tokens, wrong, sentences = tokens + len(gold), wrong + len(diff), sentences + bool(diff)
        examples.update(diff)
    print(f"  level 0 vs {pt0_path.name}: {wrong} of {tokens} tags differ, in {sentences} "
          f"sentences; {examples.most_common(5)}; {chained} level-0 tags carry a chain label "
          "(PT0 has its lowest label)")


def relabel(tree: Tree, pick: int) -> Tree:
    """Each chain node labelled by one of its labels (0: the top one, -1: the lowest)."""
    children = [relabel(c, pick) if isinstance(c, Tree) else c for c in tree.children]
    return node(tree.label.split(CHAIN)[pick], children)


def baselines(trees: list[Tree], tags: list[list[str]]) -> None:
    gold = [normalise_nml(t) for t in trees]
    levels = [tree_to_levels(normalise(t)) for t in trees]
    rows = {"flat: one S over the words": [levels_to_tree(with_root([], t.end), t.end)
                                          for t in trees]}
    for k in (0, 1, 2, 3):
        rows[f"gold levels 0..{k}, rest under S"] = [
            unchain(levels_to_tree(with_root(x[: k + 1], t.end), t.end))
            for x, t in zip(levels, trees, strict=True)]
    rows["all gold levels"] = [unchain(levels_to_tree(x, t.end))
                               for x, t in zip(levels, trees, strict=True)]
    for name, test in rows.items():
        r = bracket_scores(gold, test, tags)
        print(f"  {name:34s} P {r.precision:6.2f}  R {r.recall:6.2f}  F1 {r.f1:6.2f}")
    for name, pick in (("top", 0), ("lowest", -1)):
        test = [relabel(levels_to_tree(x, t.end), pick) for x, t in zip(levels, trees, strict=True)]
        r = bracket_scores(gold, test, tags)
        print(f"  all gold levels, chains by {name:6s} label R {r.recall:6.2f}  F1 {r.f1:6.2f}")
    r = bracket_scores(trees, rows["all gold levels"], tags)
    print(f"  all gold levels vs gold with NML     F1 {r.f1:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    args = parser.parse_args()
    for part in ("train", "dev"):
        sentences = read_gold_conll(args.data / "ewt" / f"ewt.{part}.gold_conll")
        trees = [conll_to_tree(s.columns["parse"]) for s in sentences]
        print(f"ewt.{part}: {len(trees)} sentences")
        level_stats(trees)
        round_trip(trees)
        pt0_check(trees, args.data / "ewt" / f"ewt.{part}.pt0")
        if part == "train":
            seen = {split_tag(t)[1] for tree in trees for x in tree_to_levels(normalise(tree))
                    for t in x}
        else:
            new = Counter(split_tag(t)[1] for tree in trees for x in tree_to_levels(normalise(tree))
                          for t in x if split_tag(t)[1] not in seen)
            print(f"  dev phrases whose label is not on any training level: {sum(new.values())}"
                  f" {new.most_common(6)}")
            baselines(trees, [s.columns["pos"] for s in sentences])


if __name__ == "__main__":
    main()
