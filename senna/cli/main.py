"""`senna` entry point: subcommands (train, evaluate, ...) or, by default, the tagger with
SENNA v3.0's options.  Errors reach the user as one line on stderr and a non-zero exit."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

SUBCOMMANDS: dict[str, str] = {
    "train": "senna.cli.train",
    "evaluate": "senna.cli.evaluate",
    "tag": "senna.cli.tag",
    "install-nltk-shim": "senna.cli.nltk_shim",
}


def run(entry: Callable[[list[str]], int], argv: list[str]) -> int:
    """Call a command; turn expected failures into `senna: error: ...` lines."""
    try:
        return entry(argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except (ValueError, OSError) as e:
        print(f"senna: error: {e}", file=sys.stderr)
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    import importlib

    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        module = importlib.import_module(SUBCOMMANDS[args[0]])
        return run(module.main, args[1:])
    module = importlib.import_module(SUBCOMMANDS["tag"])
    return run(module.main, args)


if __name__ == "__main__":
    sys.exit(main())
