"""The serving-capacity layer against published serving benchmarks (knowledge/serving_measurements.yaml).

The ``fit`` rows are what knowledge/runtimes.yaml's serving coefficients were fitted on
(``python -m bench.serving_compare --fit tensorrt_llm``); these tests fail when the
engine drifts from them. The ``holdout`` rows were never fitted on: their error is
printed at the end of the run (tests/calibration/report.py) and kept under the figure
reached when the coefficients were fitted, so a change that only helps the fit rows
shows up.
"""

from __future__ import annotations

import statistics

from bench.serving_compare import errors, predict, rows, summary, table
from gpu_advisor.engine.specs import Knowledge


def test_every_row_cites_a_source_and_a_split() -> None:
    assert all(r["source"].startswith("https://") and r["split"] in ("fit", "holdout") for r in rows())


def test_the_split_follows_its_stated_rule_not_the_error() -> None:
    """fit: the v0.17 table's Llama 3.1 8B/70B rows and NIM concurrency 1, 5, 50; all else held out."""
    for r in rows():
        fit = (r["runtime_version"] == "v0.17" and r["model"] in ("llama-3.1-8b", "llama-3.1-70b")) or (
            r["runtime_version"] == "NIM 1.8.0" and r["concurrency"] in (1, 5, 50)
        )
        assert r["split"] == ("fit" if fit else "holdout"), r["id"]


def test_at_least_a_third_of_the_rows_are_held_out() -> None:
    assert sum(r["split"] == "holdout" for r in rows()) * 3 >= len(rows())


def test_every_row_is_expressible(kb: Knowledge) -> None:
    assert [r["id"] for r in rows() if predict(r, kb) is None] == []


def test_fitted_max_throughput_stays_calibrated(kb: Knowledge) -> None:
    # at the fit (Dec 2026): median 13.5 %, 73 % within ±25 %
    median, within = summary(table(kb)[("max_throughput", "fit")])
    assert median <= 0.15 and within >= 0.70


def test_held_out_max_throughput_does_not_regress(kb: Knowledge) -> None:
    # at the fit (Dec 2026): median 17.6 %, 68 % within ±25 %
    median, within = summary(table(kb)[("max_throughput", "holdout")])
    assert median <= 0.20 and within >= 0.65


def test_fitted_closed_loop_latency_stays_within_thirty_percent(kb: Knowledge) -> None:
    fitted = [r for r in rows() if r["split"] == "fit" and r["concurrency"]]
    worst = max(abs(e) for r in fitted if (got := predict(r, kb)) for e in errors(r, got).values())
    assert worst <= 0.30


def test_a_larger_kv_pool_never_lowers_maximum_throughput(kb: Knowledge) -> None:
    """Same row on H200 (141 GB) and H100 (80 GB), same bandwidth class: more memory, more batch."""
    base = next(r for r in rows() if r["id"] == "trtllm_v017_h100-sxm_x1_llama-3.1-70b_fp8_128_2048")
    h100, h200 = predict(base, kb), predict(base | {"gpu": "h200-sxm"}, kb)
    assert h100 is not None and h200 is not None
    assert h200.output_tokens_per_s > 2 * h100.output_tokens_per_s  # measured 4165.68 vs 911.62


def test_held_out_errors_are_reported(kb: Knowledge) -> None:
    held = table(kb)[("max_throughput", "holdout")]
    assert len(held) >= 100 and statistics.median(abs(e) for e in held) > 0
