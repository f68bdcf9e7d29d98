"""How long ``gpu-advisor`` takes to start, beside a bare ``python -c pass`` in the same run.

    .venv/bin/python -m bench.startup_bench [--rounds 15]

Each round runs every command once, in turn (interleaved, so a busy moment on a shared
machine hits all of them alike); the table gives the median wall time and CPU time (the
child's user + system, from ``os.wait4``) and their ratios to ``python -c pass``. The
"every surface imported" line is what building the parser cost before the surfaces were
loaded lazily: the chart, web, Discord and Telegram modules with their libraries.
Targets (issue 14): ``ask`` at most 0.5 s, ``--help`` at most 0.3 s.

Issue 41/42, measured with ``--rounds 5`` on the shared 2-core machine, CPU over a bare
interpreter: ``ask`` 0.702 s before (tree at 3d01f35) → 0.460 s after the readers' patterns
went through ``text.lazy`` (compiled on first use, their generated code kept in
``__pycache__`` like bytecode; the alias tables of ``reading.requirements.vocabulary`` too).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
# Bytecode is written and used, as in an installed package: with PYTHONDONTWRITEBYTECODE set
# (some shells and CI images set it) every run would compile every module again.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ASK_GOAL_S = 0.5  # issue 31: `ask` at most 0.5 s of CPU over a bare interpreter
COMMANDS: dict[str, list[str]] = {
    "python -c pass": [PY, "-c", "pass"],
    "import gpu_advisor.bot.cli": [PY, "-c", "import gpu_advisor.bot.cli"],
    "gpu-advisor --help": [PY, "-m", "gpu_advisor.bot.cli", "--help"],
    "gpu-advisor ask": [PY, "-m", "gpu_advisor.bot.cli", "ask", "部署 13B 模型，并发 8，7×24"],
    "every surface imported": [
        PY,
        "-c",
        "import gpu_advisor.bot.charts.cli, gpu_advisor.bot.web.run, gpu_advisor.bot.discord.run,"
        " gpu_advisor.bot.telegram.app, gpu_advisor.bot.cli",
    ],
}


def run_once(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one child process."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def measure(rounds: int, warm: bool = True) -> dict[str, tuple[list[float], list[float]]]:
    samples: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in COMMANDS}
    for argv in COMMANDS.values() if warm else ():  # warm the page cache and .pyc files first
        run_once(argv)
    for _ in range(rounds):
        for name, argv in COMMANDS.items():
            wall, cpu = run_once(argv)
            samples[name][0].append(wall)
            samples[name][1].append(cpu)
    return samples


def report(samples: dict[str, tuple[list[float], list[float]]]) -> None:
    base_wall = statistics.median(samples["python -c pass"][0])
    base_cpu = statistics.median(samples["python -c pass"][1])
    print(f"{'command':<24} {'wall s':>8} {'× pass':>7} {'cpu s':>8} {'× pass':>7}")
    for name, (walls, cpus) in samples.items():
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        print(f"{name:<24} {wall:8.3f} {wall / base_wall:7.1f} {cpu:8.3f} {cpu / max(base_cpu, 1e-3):7.1f}")
    eager = statistics.median(samples["every surface imported"][0])
    help_wall = statistics.median(samples["gpu-advisor --help"][0])
    print(f"\n--help vs every surface imported: {help_wall / eager:.2f}× the wall time")
    over = statistics.median(samples["gpu-advisor ask"][1]) - base_cpu
    verdict = "PASS" if over <= ASK_GOAL_S else "MISS"
    print(f"ask over a bare interpreter: {over:.3f} s CPU (goal ≤ {ASK_GOAL_S} s): {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--tiny", action="store_true", help="one round: does the bench still run?")
    args = parser.parse_args()
    report(measure(1, warm=False) if args.tiny else measure(args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
