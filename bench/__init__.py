"""Benchmarks and paper-table reproductions: `python -m bench.NAME --help` from the
repository root (or `python bench/NAME.py`).  Shared helpers live in bench/common.py."""
