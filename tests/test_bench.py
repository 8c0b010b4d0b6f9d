"""bench/ is a package: a bench runs as `python -m bench.NAME` and as `python bench/NAME.py`,
and only bench/_script.py touches sys.path (for the second form)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

BENCH = ROOT / "bench"


CHANGES_SYS_PATH = re.compile(r"sys\.path\s*(\.(insert|append|extend)\(|(\[[^]]*\])?\s*\+?=)")


def test_only_the_shim_touches_sys_path():
    touching = sorted(p.name for p in BENCH.glob("*.py")
                      if CHANGES_SYS_PATH.search(p.read_text(encoding="utf-8")))
    assert touching == ["_script.py"]


def test_no_bench_imports_another_as_a_top_level_module():
    names = {p.stem for p in BENCH.glob("*.py")}
    for path in BENCH.glob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if words[:1] in (["from"], ["import"]) and len(words) > 1:
                assert words[1] not in names - {"_script"}, f"{path.name}: {line.strip()}"


@pytest.mark.parametrize("how", ["module", "file"])
def test_a_bench_with_shared_helpers_starts_both_ways(how):
    cmd = ["-m", "bench.table8"] if how == "module" else [str(BENCH / "table8.py")]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, *cmd, "--help"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage: ") and "--random" in run.stdout
