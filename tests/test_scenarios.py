"""The seed articles' scenarios come out the way the numbers say they should.

Seed 000 §5.1 gives the decision tree (learn or answer? how big? one-off or 24×7?);
these tests pin the engine's answers to it, and to the corrections the seeds need.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload


def plan(kb: Knowledge, **fields: Any) -> Plan:
    return recommend(Workload(**fields), kb)


def pitfall_ids(p: Plan) -> list[str]:
    return [f.id for f in p.pitfalls]


def test_13b_chatbot_24x7_gets_one_inference_class_card(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=13, always_on=True)
    assert p.recommendation is not None
    assert p.recommendation.gpu in {"t4", "rtx3090"}
    assert p.recommendation.count == 1 and p.recommendation.machines == 1
    assert p.recommendation.cost.per == "month"


def test_13b_full_finetune_needs_multi_gpu_nvlink_training_machine(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=13, method="full")
    rec = p.recommendation
    assert rec is not None
    assert kb.gpus[rec.gpu].role == "training" and rec.count * rec.machines >= 2
    assert rec.interconnect in {"nvlink", "nvswitch"}


def test_13b_full_finetune_never_lands_on_a_t4(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=13, method="full")
    assert all(o.gpu != "t4" for o in [p.recommendation, *p.alternatives] if o and o.method == "full")


def test_13b_full_finetune_on_a_t4_is_flagged_with_the_numbers(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=13, method="full", gpu="t4", gpu_count=1)
    hit = next(f for f in p.pitfalls if f.id == "training_on_inference_card")
    need, cap = hit.values["need_gib"], hit.values["capacity_gib"]
    assert isinstance(need, float) and isinstance(cap, float)
    assert need > 10 * cap


def test_70b_full_finetune_over_a_10_gbps_network_is_set_aside_for_lora_on_one_machine(kb: Knowledge) -> None:
    # Issue 28: 4 × 8 H100 on 10 Gbit/s scale at ~7 % (engine.interconnect), under the 50 % floor.
    p = plan(kb, task="train", params_b=70, method="full")
    rec = p.recommendation
    assert rec is not None and rec.machines == 1 and rec.method == "lora"
    hit = next(f for f in p.pitfalls if f.id == "multi_node_inefficient_set_aside")
    need = hit.values["need_gbps"]
    assert isinstance(need, float) and need > 10


def test_70b_pretraining_over_a_10_gbps_network_is_flagged(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=70, method="full", train_tokens=1e9, pretrain=True)
    assert {"slow_network_for_multi_node", "multi_node_inefficient_only"} <= set(pitfall_ids(p))
    assert p.status == "below_efficiency_floor"


def test_70b_training_offers_qlora_on_one_machine_as_the_cheapest_way(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=70, method="full")
    cheapest = next(a for a in p.alternatives if a.kind == "cheapest")
    assert p.recommendation is not None
    assert cheapest.method == "qlora" and cheapest.machines == 1
    assert cheapest.cost.amount < p.recommendation.cost.amount


def test_20_qps_chatbot_on_8x_a100_is_flagged_as_a_training_machine(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=7, qps=20, gpu="a100-40g-sxm", gpu_count=8, always_on=True)
    hit = next(f for f in p.pitfalls if f.id == "inference_on_training_machine")
    assert p.requested is not None and p.recommendation is not None
    assert p.recommendation.monthly_cost.amount < p.requested.monthly_cost.amount / 2
    saving = hit.values["saving_monthly"]
    assert isinstance(saving, int | float) and saving > 10_000


def test_quantisation_is_what_puts_13b_on_a_t4(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=13, always_on=True)
    assert p.recommendation is not None and p.recommendation.weight_dtype in {"awq", "int8", "int4", "gptq"}
    higher = next(a for a in p.alternatives if a.kind == "higher_precision")
    assert higher.cost.amount > p.recommendation.cost.amount


def test_405b_at_q4_on_one_h100_is_corrected(kb: Knowledge) -> None:
    p = plan(kb, task="infer", model="llama-3.1-405b", weight_dtype="q4_k_m", gpu="h100-sxm", gpu_count=1)
    myth = next(f for f in p.pitfalls if f.id == "myth_q4_405b_on_one_h100")
    cards = myth.values["cards_needed"]
    assert isinstance(cards, int) and cards >= 3


def test_three_day_job_on_monthly_only_offer_costs_a_month(kb: Knowledge) -> None:
    p = plan(kb, task="train", model="llama-2-7b", method="qlora", duration_hours=72)
    assert p.recommendation is not None
    assert p.recommendation.cost.per == "total" and p.recommendation.cost.billed_units == 1
    assert "monthly_rental_for_short_job" in pitfall_ids(p)


def test_budget_over_the_pick_is_reported_not_ignored(kb: Knowledge) -> None:
    p = plan(
        kb,
        task="train",
        params_b=13,
        method="full",
        budget={"amount": 3000, "currency": "CNY", "per": "month"},
    )
    assert p.status == "over_budget"
    assert any(a.within_budget for a in p.alternatives)


def test_budget_in_dollars_is_converted_with_the_catalog_rate(kb: Knowledge) -> None:
    p = plan(
        kb,
        task="infer",
        params_b=7,
        always_on=True,
        budget={"amount": 200, "currency": "USD", "per": "month"},
    )
    assert p.recommendation is not None and p.recommendation.within_budget is True


def test_model_too_big_for_any_single_card_uses_tensor_parallel_and_says_nvlink_matters(
    kb: Knowledge,
) -> None:
    p = plan(kb, task="infer", model="llama-3.1-70b", weight_dtype="bf16", always_on=True)
    assert p.recommendation is not None and (p.recommendation.tensor_parallel or 1) > 1
    assert "nvlink_needed_for_tensor_parallel" in pitfall_ids(p)


def test_both_task_plans_two_separate_machines(kb: Knowledge) -> None:
    p = plan(kb, task="both", params_b=13, method="lora", train_tokens=5e7)
    assert p.recommendation is not None and p.serving is not None
    assert p.recommendation.task == "train" and p.serving.task == "infer"
    assert "release_training_machine" in pitfall_ids(p)


@pytest.mark.parametrize(
    "claim",
    [
        "adam_doubles_memory",
        "t4_int8_65_tops",
        "a100_nvlink_900",
        "pcie_64_gbs",
        "a100_4g_slice",
        "h100_10t_tokens_per_day",
        "t4_high_bandwidth",
    ],
)
def test_each_seed_error_is_corrected_when_the_request_rests_on_it(kb: Knowledge, claim: str) -> None:
    p = plan(kb, task="train", params_b=7, claims=[claim])
    assert f"myth_{claim}" in pitfall_ids(p)


def test_h100_10t_tokens_a_day_is_off_by_three_orders_of_magnitude(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=7, claims=["h100_10t_tokens_per_day"])
    ratio = next(f for f in p.pitfalls if f.id == "myth_h100_10t_tokens_per_day").values["ratio"]
    assert isinstance(ratio, int | float) and ratio > 500


def test_13b_full_finetune_on_an_l40s_is_flagged_like_any_inference_card(kb: Knowledge) -> None:
    # The plan's old hard-coded inference list lacked the L40S the sheet analyser had (issue 15).
    p = plan(kb, task="train", params_b=13, method="full", gpu="l40s", gpu_count=1)
    assert "training_on_inference_card" in pitfall_ids(p)


def test_plan_is_deterministic(kb: Knowledge) -> None:
    a = plan(kb, task="infer", model="qwen2.5-14b", qps=3).model_dump_json()
    b = plan(kb, task="infer", model="qwen2.5-14b", qps=3).model_dump_json()
    assert a == b
