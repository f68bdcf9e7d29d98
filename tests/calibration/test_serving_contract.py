"""The serving figures checked against published runs are the ones the JSON contract returns.

``bench/serving_compare.py`` states each published run as a ``Workload`` and reads the
engine on ``estimate``'s path; these tests hold that a rental site sending the same
``Workload`` to ``estimate`` gets the same figure, for each kind of published figure.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.serving_compare import predict, rows, workload
from gpu_advisor.bot.contract import ContractError, parse_workload
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.results import Verdict
from gpu_advisor.engine.specs import Knowledge


def _first(kind: str) -> dict[str, Any]:
    def is_kind(r: dict[str, Any]) -> bool:
        if kind == "kv_pool":
            return "kv_pool_tokens" in r
        if kind == "at_target":
            return "output_tokens_per_s_at_target" in r
        if kind == "closed":
            return r.get("concurrency") is not None and "output_tokens_per_s" in r
        return r.get("concurrency") is None and "output_tokens_per_s" in r

    return next(r for r in rows() if is_kind(r))


def _requested(row: dict[str, Any], kb: Knowledge) -> Verdict:
    got = estimate(workload(row, kb), kb).requested
    assert got is not None and got.fits
    return got


def test_maximum_throughput_over_several_replicas_is_the_contracts(kb: Knowledge) -> None:
    first = _first("max")
    row = first | {"gpu_count": 2 * first["tensor_parallel"]}  # two replicas behind one balancer
    engine = predict(row, kb)
    assert engine is not None
    assert _requested(row, kb).max_output_tokens_per_s == pytest.approx(engine.output_tokens_per_s, abs=0.01)


def _closed_loop_agrees(row: dict[str, Any], kb: Knowledge) -> None:
    engine, got = predict(row, kb), _requested(row, kb)
    assert engine is not None and engine.ttft_s is not None and engine.tpot_s is not None
    assert got.closed_loop_output_tokens_per_s == pytest.approx(engine.output_tokens_per_s, abs=0.01)
    assert got.closed_loop_ttft_ms == pytest.approx(engine.ttft_s * 1e3, abs=0.01)
    tpot = got.closed_loop_itl_ms_p50 if row.get("tpot_is") == "median_itl" else got.closed_loop_tpot_ms
    assert tpot == pytest.approx(engine.tpot_s * 1e3, abs=0.01)


def test_closed_loop_figures_are_the_contracts(kb: Knowledge) -> None:
    _closed_loop_agrees(_first("closed"), kb)


def test_throughput_at_a_p99_target_is_the_contracts(kb: Knowledge) -> None:
    row = _first("at_target")
    engine = predict(row, kb)
    assert engine is not None
    got = _requested(row, kb).output_tokens_per_s_at_p99
    assert got == pytest.approx(engine.output_tokens_per_s, abs=0.01)


def test_kv_pool_is_the_contracts(kb: Knowledge) -> None:
    row = _first("kv_pool")
    engine = predict(row, kb)
    assert engine is not None and engine.kv_pool_tokens is not None
    assert _requested(row, kb).kv_pool_tokens == pytest.approx(engine.kv_pool_tokens, abs=0.01)


def test_a_disaggregated_runs_figures_are_the_contracts(kb: Knowledge) -> None:
    first = _first("max")
    tp = first["tensor_parallel"]
    row = first | {"gpu_count": 3 * tp, "prefill_gpus": tp}  # one prefill instance, two decode ones
    engine = predict(row, kb)
    assert engine is not None
    got = _requested(row, kb)
    assert got.prefill_pool_requests_per_s is not None
    assert got.max_output_tokens_per_s == pytest.approx(engine.output_tokens_per_s, abs=0.01)


def test_a_disaggregated_closed_loop_is_the_contracts(kb: Knowledge) -> None:
    first = _first("closed")
    tp = first["tensor_parallel"]
    _closed_loop_agrees(first | {"gpu_count": 2 * tp, "prefill_gpus": tp}, kb)


def test_an_expert_parallel_size_is_accepted_and_said_as_an_assumption(kb: Knowledge) -> None:
    row = next(r for r in rows() if r.get("expert_parallel"))
    got = estimate(workload(row, kb), kb)
    said = [a for a in got.assumptions if a.id == "assumed_expert_parallel_as_tensor"]
    assert [a.values["value"] for a in said] == [row["expert_parallel"]]
    assert got.requested is not None and got.requested.fits


def test_more_expert_parallel_ranks_than_gpus_is_refused_by_name() -> None:
    body = {"task": "infer", "model": "qwen3-30b-a3b", "gpu": "h100-sxm", "gpu_count": 2}
    with pytest.raises(ContractError) as err:
        parse_workload(json.dumps(body | {"expert_parallel": 4}))
    first = err.value.payload["error"]["errors"][0]
    assert (first["field"], first["type"]) == ("expert_parallel", "expert_parallel_exceeds_gpus")
