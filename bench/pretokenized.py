"""Building untagged documents from pre-tokenised input: a list of words (the API, the
server's `tokens`) and -usrtokens lines, in words per second, best of --repeat runs.

    python bench/pretokenized.py [--copies 5000] [--repeat 5]

Three inputs of 14 words each, repeated --copies times: plain ASCII words, words with
non-ASCII letters ("café"), and words with a no-break space inside one ("10 000"), the cases
that take different paths through `senna.api.pretokenized_document` (the list as one line
split back into its items; item-by-item checks only where that differs).
"""

from __future__ import annotations

import argparse
import timeit

from senna.api import pretokenized_document

BASE = "The cat sat on the mat , said John Smith in New York .".split()
INPUTS = {"ascii": BASE + ["and", "left"], "non-ascii": BASE + ["café", "naïve"],
          "no-break space": BASE + ["café", "10\xa0000"]}


def best(run, repeat: int) -> float:
    """Seconds of the fastest of `repeat` runs."""
    return min(timeit.repeat(run, number=1, repeat=repeat))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--copies", type=int, default=5000)
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    for name, words in INPUTS.items():
        items = words * a.copies
        lines = [" ".join(words)] * a.copies
        t_list = best(lambda xs=items: pretokenized_document(xs), a.repeat)
        t_lines = best(lambda xs=lines: [pretokenized_document(x) for x in xs], a.repeat)
        print(f"{name:15s} list {len(items) / t_list:>12,.0f} words/s   "
              f"-usrtokens lines {len(items) / t_lines:>12,.0f} words/s")


if __name__ == "__main__":
    main()
