"""Tests that need the shared data skip without it, except under CI (the CI environment
variable), where they fail: a CI run cannot pass without running them.  Checked on a tiny
test file run by pytest in a subprocess, with conftest.py loaded as a plugin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, in_ci

TINY = '''
def test_reads_the_data(data_dir):
    assert (data_dir / "x.txt").read_text() == "x"
'''


def run_pytest(tmp_path: Path, data: Path, ci: str | None) -> subprocess.CompletedProcess:
    """pytest on TINY with SENNA_DATA=data and CI=ci (None: unset)."""
    test = tmp_path / "tiny" / "test_tiny.py"
    test.parent.mkdir(exist_ok=True)
    test.write_text(TINY)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env |= {"SENNA_DATA": str(data),
            "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conftest",
                           "-p", "no:cacheprovider", "-rs", str(test)], cwd=test.parent,
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("ci, outcome", [(None, "1 skipped"), ("true", "1 error")])
def test_missing_data_skips_or_fails_under_ci(tmp_path, ci, outcome):
    run = run_pytest(tmp_path, tmp_path / "no-data", ci)
    assert outcome in run.stdout, run.stdout + run.stderr
    assert run.returncode == (1 if outcome == "1 error" else 0)   # a failing fixture
    assert f"the shared data (SENNA_DATA) not found at {tmp_path / 'no-data'}" in run.stdout
    if ci:
        assert "CI is set: this test must run in CI" in run.stdout


def test_present_data_runs_under_ci(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "x.txt").write_text("x")
    run = run_pytest(tmp_path, data, "true")
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout + run.stderr


@pytest.mark.parametrize("value, ci", [(None, False), ("", False), ("0", False),
                                       ("false", False), ("true", True), ("1", True),
                                       ("yes", True)])
def test_what_counts_as_ci(monkeypatch, value, ci):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    assert in_ci() is ci
