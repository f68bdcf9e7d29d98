"""A pytest plugin (imported by tests/conftest.py) that prints the calibration report
at the end of any run that collected calibration tests.

The table shows, per runtime × card class × phase, the median and worst error on the
rows used for fitting and, separately, on the rows held out of it (the ``split`` field
in measurements.yaml). It appears without ``-s``: pytest's terminal summary is written
after capture ends.
"""

from __future__ import annotations

import statistics

import pytest

from bench.serving_compare import summary, table
from gpu_advisor import knowledge
from gpu_advisor.engine.specs import Knowledge
from tests.calibration import training_recipes
from tests.calibration.serving import error_table
from tests.calibration.training import measured_gib, predict_gib, training_rows

_COLLECTED: dict[str, bool] = {"calibration": False}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    _COLLECTED["calibration"] = any("calibration" in item.nodeid for item in items)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _COLLECTED["calibration"]:
        return
    terminalreporter.section("calibration: fitted vs held-out error per runtime and card class")
    terminalreporter.write_line(
        f"{'runtime':13} {'card class':20} {'phase':8} {'split':8} {'rows':>4} {'median':>7} {'worst':>7}"
    )
    for runtime, klass, phase, split, n, median, worst in error_table(knowledge.load()):
        terminalreporter.write_line(
            f"{runtime:13} {klass:20} {phase:8} {split:8} {n:4d} {median:7.1%} {worst:7.1%}"
        )
    terminalreporter.section("serving capacity vs published benchmarks (knowledge/serving_measurements.yaml)")
    terminalreporter.write_line(f"{'metric':18} {'split':8} {'rows':>5} {'median':>8} {'within 25%':>10}")
    for (metric, split), errs in sorted(table(knowledge.load()).items()):
        if metric != "inexpressible":
            median, within = summary(errs)
            terminalreporter.write_line(f"{metric:18} {split:8} {len(errs):5d} {median:8.1%} {within:10.0%}")
    _training_section(terminalreporter)


def _training_section(terminalreporter: pytest.TerminalReporter) -> None:
    """Training peak memory per row and the median per split (measurements.yaml, section 7)."""
    kb = knowledge.load()
    terminalreporter.section("training peak memory vs published measurements (measurements.yaml §7)")
    for split in ("fit", "holdout"):
        errors = []
        for row in training_rows(split):
            got, want = predict_gib(row, kb), measured_gib(row)
            errors.append(abs(got / want - 1))
            line = f"{split:8} {row['id'][:56]:56} {want:7.2f} {got:7.2f} {got / want - 1:+7.1%}"
            terminalreporter.write_line(line)
        median = statistics.median(errors)
        label = f"median of {len(errors)} rows"
        terminalreporter.write_line(f"{split:8} {label:56} {median:23.1%}")
    _recipe_section(terminalreporter, kb)


def _recipe_section(terminalreporter: pytest.TerminalReporter, kb: Knowledge) -> None:
    """Recipe peaks sent as requests (training_recipes.yaml): median and share within ±10 % per recipe."""
    terminalreporter.section("training peak memory per recipe, sent as requests (training_recipes.yaml)")
    terminalreporter.write_line(f"{'split':8} {'recipe':16} {'rows':>4} {'median':>7} {'within 10%':>10}")
    for split in ("fit", "holdout"):
        for recipe, errors in sorted(training_recipes.per_recipe(kb, split).items()):
            median, within = training_recipes.summary(errors)
            line = f"{split:8} {recipe:16} {len(errors):4d} {median:7.1%} {within:10.0%}"
            terminalreporter.write_line(line)
