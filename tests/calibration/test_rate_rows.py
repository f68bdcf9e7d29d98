"""Rows measured at a fixed Poisson request rate (``request_rate``, vLLM/SGLang ``--request-rate``).

Such a row is stated through the JSON contract as ``qps`` and the bench reads the queue's p50
TTFT/TPOT on ``estimate``'s path; a rental site sending the same ``Workload`` gets the same figures.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.serving_compare import as_ran, errors, predict, rows, workload
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.specs import Knowledge


def _rate_row(kb: Knowledge) -> dict[str, Any]:
    """The first maximum-throughput row on two replicas, fed at half of what the engine says they sustain."""
    first = next(r for r in rows() if r.get("concurrency") is None and "output_tokens_per_s" in r)
    two = first | {"gpu_count": 2 * first["tensor_parallel"]}
    top = predict(two, kb)
    assert top is not None
    rate = top.output_tokens_per_s / first["output_tokens"] / 2
    return two | {"request_rate": rate, "ttft_ms": 100.0, "tpot_ms": 20.0}


def test_a_request_rate_row_is_stated_as_the_contracts_qps(kb: Knowledge) -> None:
    row = _rate_row(kb)
    assert workload(row, kb).qps == row["request_rate"]


def test_the_p50_ttft_and_tpot_at_a_rate_are_the_contracts(kb: Knowledge) -> None:
    row = _rate_row(kb)
    engine = predict(row, kb)
    got = estimate(workload(row, kb), kb).requested
    assert engine is not None and engine.ttft_s is not None and engine.tpot_s is not None
    assert got is not None and got.fits and got.ttft_ms_p50 is not None and got.tpot_ms_p50 is not None
    assert got.ttft_ms_p50 == pytest.approx(engine.ttft_s * 1e3, abs=0.01)
    assert got.tpot_ms_p50 == pytest.approx(engine.tpot_s * 1e3, abs=0.01)


def test_a_rate_row_is_scored_on_its_latency_not_on_throughput(kb: Knowledge) -> None:
    row = _rate_row(kb)
    engine = predict(row, kb)
    assert engine is not None
    assert set(errors(row, engine)) == {"ttft_at_rate", "tpot_at_rate"}


def test_a_rate_past_capacity_counts_as_an_unbounded_error(kb: Knowledge) -> None:
    row = _rate_row(kb)
    over = row | {"request_rate": 10 * row["request_rate"]}
    engine = predict(over, kb)
    assert engine is not None
    assert errors(over, engine)["ttft_at_rate"] == float("inf")


def test_a_multi_step_row_waits_out_the_pass_its_prompt_arrives_in(kb: Knowledge) -> None:
    """vLLM 0.6 ``--num-scheduler-steps 10`` (the SGLang repo's benchmark_vllm_060 run): a prompt
    is admitted when the ten-step pass in progress ends, half a pass on average at a light load."""
    row = next(r for r in rows() if r.get("num_scheduler_steps") == 10)
    single = predict({k: v for k, v in row.items() if k != "num_scheduler_steps"}, kb)
    multi = predict(row, kb)
    assert single is not None and multi is not None and single.ttft_s and multi.ttft_s and multi.tpot_s
    assert multi.ttft_s - single.ttft_s == pytest.approx(4.5 * multi.tpot_s, rel=0.25)


def test_an_older_sglang_row_runs_with_the_share_its_version_took(kb: Knowledge) -> None:
    """SGLang before v0.4.8 claimed a share by TP degree alone (0.85 at TP 4); the row says so
    and the bench runs it with that share, not today's card-sized reserve."""
    row = next(r for r in rows() if "v0.3.0" in str(r.get("runtime_version")) and r["tensor_parallel"] == 4)
    rt = as_ran(row, kb.runtimes["sglang"])
    assert rt.memory_share(kb.gpus[row["gpu"]], 4) == row["mem_fraction_static"] == 0.85
    assert kb.runtimes["sglang"].memory_share(kb.gpus[row["gpu"]], 4) != 0.85
