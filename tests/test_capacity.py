"""Serving capacity as a rental site's customer asks it: how many replicas for this QPS at this p99.

Plans size replicas so each runs at the utilisation target (70 % unless told) and the
user's p99 TTFT/TPOT targets hold (engine.serving_capacity over engine.queueing), and
every serving option reports p50/p99 latency at the target QPS, the QPS at which it
breaks, its tokens/s under load and its cost per million output tokens. ``estimate``
with a ``gpu`` and ``gpu_count`` answers for exactly that hardware.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Option, Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

CHAT = {"task": "infer", "model": "llama-3.1-8b", "qps": 20, "prompt_tokens": 1000, "output_tokens": 300}


def plan(kb: Knowledge, **fields: Any) -> Plan:
    return recommend(Workload(**fields), kb)


def pick(kb: Knowledge, **fields: Any) -> Option:
    p = plan(kb, **fields)
    assert p.recommendation is not None
    return p.recommendation


def test_13b_full_finetune_on_one_a100_80g_is_a_direct_no_with_its_shortfall(kb: Knowledge) -> None:
    e = estimate(Workload(task="train", params_b=13, method="full", gpu="a100-80g-sxm", gpu_count=1), kb)
    assert e.requested is not None
    assert (e.requested.gpu, e.requested.count, e.requested.fits) == ("a100-80g-sxm", 1, False)
    # 13B × 16 bytes of mixed-precision AdamW state (ZeRO paper) ≈ 194 GiB before activations.
    assert e.requested.total_gib > 194
    assert e.requested.shortfall_gib == pytest.approx(
        e.requested.total_gib - e.requested.capacity_gib, abs=0.02
    )


def test_requested_hardware_that_fits_reports_no_shortfall_and_its_speed(kb: Knowledge) -> None:
    e = estimate(
        Workload(task="infer", model="llama-3.1-8b", weight_dtype="awq", gpu="rtx4090", gpu_count=1), kb
    )
    assert e.requested is not None and e.requested.fits
    assert e.requested.shortfall_gib == 0.0 and (e.requested.decode_tokens_per_s or 0) > 0


def test_estimate_and_recommend_agree_a_7b_int4_at_4x4096_does_not_fit_one_t4(kb: Knowledge) -> None:
    w = {"task": "infer", "params_b": 7, "weight_dtype": "int4", "concurrency": 4, "context_len": 4096}
    e = estimate(Workload(**w, gpu="t4", gpu_count=1), kb)
    assert e.requested is not None and not e.requested.fits
    o = pick(kb, **w)
    # Both hold 4 users × 4,096 tokens of KV (7B MHA: 512 KiB a token, so 8 GiB), not 4 × (512 + 256).
    assert o.memory_gib["kv_cache"] * o.replicas == pytest.approx(e.memory_gib["kv_cache"], rel=0.01)
    assert not (o.gpu == "t4" and o.count == 1 and o.replicas == 1)


def test_a_qps_plan_reports_p50_and_p99_ttft_and_tpot_and_the_break_point(kb: Knowledge) -> None:
    o = pick(kb, **CHAT)
    assert o.ttft_ms_p50 is not None and o.ttft_ms_p99 is not None
    assert o.tpot_ms_p50 is not None and o.tpot_ms_p99 is not None
    assert o.ttft_ms_p99 >= o.ttft_ms_p50 > 0 and o.tpot_ms_p99 >= o.tpot_ms_p50 > 0
    # Sized at 70 % utilisation, the option saturates at no less than 20 / 0.7 requests/s.
    assert o.break_qps is not None and o.break_qps >= 20 / 0.7 * 0.99


def test_a_lower_utilisation_target_rents_more_replicas(kb: Knowledge) -> None:
    relaxed = pick(kb, **CHAT, utilisation_target=0.95)
    careful = pick(kb, **CHAT, utilisation_target=0.4)
    assert careful.replicas * careful.count >= relaxed.replicas * relaxed.count
    assert careful.monthly_cost.amount > relaxed.monthly_cost.amount


def test_p99_targets_hold_at_the_target_qps(kb: Knowledge) -> None:
    o = pick(kb, **CHAT, ttft_ms_p99=250, tpot_ms_p99=25)
    assert o.meets_latency
    assert o.ttft_ms_p99 is not None and o.ttft_ms_p99 <= 250
    assert o.tpot_ms_p99 is not None and o.tpot_ms_p99 <= 25
    assert o.break_qps is not None and o.break_qps >= 20


def test_itl_ms_p99_is_read_as_tpot_ms_p99() -> None:
    assert Workload(task="infer", params_b=7, itl_ms_p99="40 ms").tpot_ms_p99 == 40


def test_cost_per_million_output_tokens_is_the_monthly_price_over_a_months_tokens(kb: Knowledge) -> None:
    o = pick(kb, **CHAT)
    assert o.cost_per_million_output_tokens is not None
    tokens_per_month = 20 * 300 * HOURS_PER_MONTH * 3600
    expected = o.monthly_cost.amount / tokens_per_month * 1e6
    assert o.cost_per_million_output_tokens.amount == pytest.approx(expected, rel=0.01)
    assert o.cost_per_million_output_tokens.currency == o.monthly_cost.currency
    assert o.tokens_per_s_replica_under_load == pytest.approx(20 * 300 / o.replicas, rel=0.01)


def test_every_serving_option_reports_cost_per_million_output_tokens(kb: Knowledge) -> None:
    p = plan(kb, **CHAT)
    options = [o for o in (p.recommendation, *p.alternatives) if o is not None and o.task == "infer"]
    assert options and all(o.cost_per_million_output_tokens is not None for o in options)


def test_a_shared_system_prompt_cuts_the_prefill_of_long_rag_prompts(kb: Knowledge) -> None:
    rag = {**CHAT, "qps": 2, "prompt_tokens": 32_000, "gpu": "h100-sxm"}
    cold = pick(kb, **rag)
    cached = pick(kb, **rag, shared_prefix_tokens=30_000)
    assert cold.ttft_ms_p50 is not None and cached.ttft_ms_p50 is not None
    assert cached.ttft_ms_p50 < cold.ttft_ms_p50 / 3  # 2k of 32k tokens left to prefill


def test_a_130k_rag_prompt_holds_its_whole_prompt_in_kv(kb: Knowledge) -> None:
    o = pick(kb, task="infer", model="llama-3.1-8b", qps=0.5, prompt_tokens=130_000, output_tokens=1000)
    # Llama 3.1 8B: 32 layers × 8 KV heads × 128 × 2 × 2 bytes = 128 KiB a token (config.json).
    per_sequence_gib = 131_000 * 128 / 2**20
    assert o.batch is not None
    assert o.memory_gib["kv_cache"] >= per_sequence_gib * o.batch / (o.tensor_parallel or 1) * 0.99


def test_a_prefill_slower_than_the_ttft_target_is_said_aloud(kb: Knowledge) -> None:
    p = plan(kb, task="infer", model="llama-3.1-8b", qps=1, prompt_tokens=65_536, ttft_ms_p99=200)
    hit = next(f for f in p.pitfalls if f.id == "p99_ttft_unreachable")
    assert hit.values["target_ms"] == 200 and float(hit.values["best_ms"] or 0) > 200
