"""Table 2 of Collobert & Weston (ICML 2008) on our dev set: SRL trained alone and jointly with
each other task, the language model and the WordNet synonyms task, then with all of them.

    python bench/srl_ablation.py --out runs/srl_ablation --lm-corpus runs/lm/corpus \\
        --synonyms /usr/share/wordnet --jobs 2

Run from the repository root (the recipes name ../shared/data/...).  Every run starts from
the shipped embeddings with each task's recipe (SRL: the sentence approach with PT0) and is
one ordinary `senna train` command, listed under the table; finished runs are not trained
again and interrupted ones resume.  The corpus comes from `senna lm prepare
../shared/data/lm/*.txt.xz --out runs/lm/corpus`; WordNet from `apt-get install wordnet-base`.
Scores: SRL F1 on EWT dev with gold predicates and gold PT0 (as on the model cards).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

if not __package__:   # run as `python bench/NAME.py`
    import _script  # noqa: F401  (the repository root on sys.path)
from bench.common import best, recipe_runs_parser, run_all, run_minutes, state  # noqa: E402

PARTNERS = ("pos", "chunk", "ner", "lm", "synonyms")


def commands(out: Path, recipes: Path, epochs: int, corpus: str | None,
             wordnet: str | None) -> dict[str, list[str]]:
    """name -> command: srl alone, srl + each partner, srl + all."""
    def joint(name: str, tasks: list[str], lm: bool, syn: bool) -> list[str]:
        cmd = ["senna", "train", "--tasks", ",".join(tasks), "--recipes", str(recipes),
               "--out", str(out / name), "--epochs", str(epochs)]
        return cmd + (["--lm-corpus", corpus] if lm else []) + \
            (["--synonyms", wordnet] if syn else [])

    cmds = {"alone": ["senna", "train", "--config", str(recipes / "srl.json"), "--out",
                      str(out / "alone"), "--epochs", str(epochs)]}
    for partner in PARTNERS:
        if (partner == "lm" and not corpus) or (partner == "synonyms" and not wordnet):
            continue
        tagging = [partner] if partner in ("pos", "chunk", "ner") else []
        cmds[f"+{partner}"] = joint(f"plus-{partner}", [*tagging, "srl"], partner == "lm",
                                    partner == "synonyms")
    cmds["+all"] = joint("plus-all", ["pos", "chunk", "ner", "srl"], bool(corpus),
                         bool(wordnet))
    return cmds


def directory(name: str) -> str:
    return "alone" if name == "alone" else f"plus-{name[1:]}"


def table(out: Path, cmds: dict[str, list[str]]) -> str:
    lines = ["| SRL trained with | dev F1 (best epoch) | minutes |", "|---|---|---|"]
    for name in cmds:
        lines.append(f"| {name} | {best(out, directory(name), 'srl')} "
                     f"| {run_minutes(out, directory(name))} |")
    lines += ["", "Commands (one per row):", ""]
    lines += [f"    {shlex.join(c)}" for c in cmds.values()]
    return "\n".join(lines)


def main() -> int:
    p = recipe_runs_parser(__doc__, "runs/srl_ablation")
    p.add_argument("--lm-corpus", help="prepared corpus for the +lm row (skipped without)")
    p.add_argument("--synonyms", help="WordNet directory for the +synonyms row")
    p.add_argument("--epochs", type=int, default=10)
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cmds = commands(out, Path(a.recipes), a.epochs, a.lm_corpus, a.synonyms)
    if not a.table_only:
        todo = [n for n in cmds if not (state(out, directory(n)) or {}).get("finished")]
        run_all(cmds, todo, a.jobs, out)
    print(table(out, cmds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
