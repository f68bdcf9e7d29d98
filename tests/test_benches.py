"""Every benchmark still runs (issue 31): ``bench/engine_bench.py`` once failed with an ImportError
for months, unnoticed. Each ``python -m bench.X --tiny`` (or the whole run, where that is
quick) takes seconds and must exit 0, so an import break or a renamed engine function fails
the build, not the next person who wants a number. A new bench script must be listed here.
(``gpu_measure``/``gpu_records`` need torch: tests/test_gpu_measure_script.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pg import pg_bin

ROOT = Path(__file__).resolve().parents[1]
NEEDS_POSTGRES = {"storage_bench", "scale_bench"}
# name -> arguments for a run of seconds (--tiny, or none where the whole run is that quick).
BENCHES = {
    "bot_bench": ["--tiny"],
    "catalog_bench": ["--tiny"],
    "chart_bench": ["--tiny"],
    "diffusion_fit": ["--tiny"],
    "light_jobs_holdout": [],
    "engine_bench": ["--tiny"],
    "fuzz": ["--tiny"],
    "launch_smoke": ["--tiny"],
    "overload_bench": ["--tiny"],
    "startup_bench": ["--tiny"],
    "storage_bench": ["--tiny"],
    "scale_bench": ["--tiny"],
    "serving_compare": [],
    "serving_fresh": [],
}
LIKE_FOR_LIKE = "like-for-like check failed"


def test_every_bench_script_is_listed_here() -> None:
    scripts = {p.stem for p in (ROOT / "bench").glob("*.py") if "__main__" in p.read_text(encoding="utf-8")}
    assert scripts - {"gpu_measure", "gpu_records"} == set(BENCHES)


@pytest.mark.parametrize("name", BENCHES)
def test_a_tiny_run_of_each_bench_exits_cleanly(name: str) -> None:
    if name in NEEDS_POSTGRES and (pg_bin() is None or not (pg_bin() / "initdb").exists()):  # type: ignore[operator]
        if os.environ.get("GPU_ADVISOR_PG_BIN"):
            pytest.fail("$GPU_ADVISOR_PG_BIN has no initdb")
        pytest.skip("PostgreSQL server binaries not found")
    done = subprocess.run(
        [sys.executable, "-m", f"bench.{name}", *BENCHES[name]],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert LIKE_FOR_LIKE not in done.stdout, done.stdout[-2000:]
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
