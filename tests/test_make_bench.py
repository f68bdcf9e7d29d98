"""``make bench`` runs every bench even when one misses its goal, then lists every verdict and
fails (issue 41: it used to stop at the first miss, so the benches after it never ran).

The target is run for real, with ``PY`` pointed at a stand-in interpreter that records which
bench it was asked for and misses the goal of one of them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STAND_IN = """#!/bin/sh
echo "$2" >> "{log}"
[ "$2" != "bench.storage_bench" ]
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_bench_runs_every_bench_after_a_miss_and_fails_at_the_end(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"
    python = tmp_path / "python"
    python.write_text(STAND_IN.format(log=ran))
    python.chmod(0o755)
    # A stamp newer than pyproject.toml, so make never reinstalls (a fresh clone's Makefile may
    # be older than its pyproject.toml: checkout order decides the mtimes).
    stamp = tmp_path / "installed"
    stamp.touch()
    make = ["make", "-s", "-C", str(ROOT), "bench", f"PY={python}", f"STAMP={stamp}"]
    done = subprocess.run(make, capture_output=True, text=True, timeout=60, check=False)
    listed = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "--eval=print-benches: ; @echo $(BENCHES)", "print-benches"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    assert ran.read_text().split() == [f"bench.{name}" for name in listed]
    assert done.returncode != 0
    assert "bench.storage_bench: MISSED (exit 1)" in done.stdout
    assert all(f"bench.{name}: met" in done.stdout for name in listed if name != "storage_bench")
    assert done.stdout.rindex("every bench's verdict") > done.stdout.rindex("== bench.overload_bench")
