"""Imported first by a bench run as a file (`python bench/NAME.py`), where Python puts
bench/ on sys.path instead of the directory `python -m bench.NAME` runs in: the repository
root goes there instead, so that `bench.*` and this checkout's `senna` import just as under
`python -m bench.NAME` from the root (the one place the benches touch sys.path)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
