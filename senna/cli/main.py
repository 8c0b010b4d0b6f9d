"""`senna` entry point: subcommands (train, evaluate, ...) or, by default, the tagger with
SENNA v3.0's options.  Errors reach the user as one line on stderr and a non-zero exit."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from senna.cli.args import UsageError

SUBCOMMANDS: dict[str, str] = {
    "tag": "senna.cli.tag",
    "train": "senna.cli.train",
    "evaluate": "senna.cli.evaluate",
    "lm": "senna.cli.lm",
    "neighbors": "senna.cli.neighbors",
    "export-embeddings": "senna.cli.export_embeddings",
    "compact": "senna.cli.compact",
    "manifest": "senna.cli.manifest",
    "models": "senna.cli.models",
    "install-nltk-shim": "senna.cli.nltk_shim",
    "tag-corpus": "senna.cli.tag_corpus",
    "serve": "senna.cli.serve",
}
# What `senna -h` lists (the modules are imported only when their command runs).
SUMMARIES: dict[str, str] = {
    "tag": "the tagger (the default command; what this help describes)",
    "train": "train a tagger on CoNLL data (needs PyTorch)",
    "evaluate": "score a model, or a prediction file, against a gold file",
    "lm": "prepare, train and export the ranking language model (needs PyTorch)",
    "neighbors": "nearest words in an embedding space",
    "export-embeddings": "convert embeddings between the senna and text formats",
    "compact": "store a model's own word-table rows in float16 (half the space)",
    "manifest": "check a model or embeddings directory, then record its files' checksums",
    "models": "list the shipped models: task, language, data, dev score, terms of use",
    "install-nltk-shim": "a SENNA directory for NLTK's SennaTagger and friends",
    "tag-corpus": "tag many files into output shards on Dask (pip install '.[dask]')",
    "serve": "an HTTP API and a page that shows the annotations (pip install '.[serve]')",
}


def keep_freed_memory() -> None:
    """glibc: serve allocations below 32 MB from the heap and keep up to 64 MB freed there.

    Why: the tagger's NumPy temporaries (a few hundred kB to a few MB per block of words)
    are above glibc's initial mmap threshold (128 kB), so each would be mapped afresh and
    page-faulted in, the window network then running 40% slower; glibc raises the threshold
    by itself only after freeing such a block.  Where there is no `mallopt` (macOS, Windows)
    nothing changes."""
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError, TypeError):
        return
    mallopt(-3, 32 << 20)   # M_MMAP_THRESHOLD
    mallopt(-1, 64 << 20)   # M_TRIM_THRESHOLD


def run(entry: Callable[[list[str]], int], argv: list[str]) -> int:
    """Call a command; turn expected failures into `senna: error: ...` lines (exit 2 for
    bad arguments, as argparse does, else 1)."""
    try:
        return entry(argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except UsageError as e:
        print(f"senna: error: {e} ({e.prog} -h for help)", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:
        print(f"senna: error: {e}", file=sys.stderr)
        return 1
    except MemoryError:
        print("senna: error: out of memory (a smaller --batch-size, fewer tasks or shorter "
              "input lines need less)", file=sys.stderr)
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    import importlib

    args = list(sys.argv[1:] if argv is None else argv)
    name = args.pop(0) if args and args[0] in SUBCOMMANDS else "tag"
    if name in ("tag", "serve"):
        keep_freed_memory()
    module = importlib.import_module(SUBCOMMANDS[name])
    return run(module.main, args)


if __name__ == "__main__":
    sys.exit(main())
