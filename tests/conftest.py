"""Paths every test file shares: the repository, the test fixtures, the shipped models and
the shared data (`SENNA_DATA` overrides ../shared/data; tests that need it skip without it)."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures"
MODELS = ROOT / "senna" / "models"
DATA = Path(os.environ.get("SENNA_DATA", ROOT.parent / "shared" / "data"))


@pytest.fixture
def data_dir() -> Path:
    """The shared data directory, or a skip when this checkout has none beside it."""
    if not DATA.exists():
        pytest.skip(f"no data at {DATA} (set SENNA_DATA)")
    return DATA
