"""Each plan check, against the plan that fails it: the pick is never what its own warnings call unworkable.

The failing plans are built from the shipped catalog (issue 28's examples): a 70B full
fine-tune whose only holder is 4 × 8 H100 on 10 Gbit/s (~7 % scaling), a MoE served
across two 8 × A100 machines on 200 Gbit/s when it needs ~400, a pretraining that would
take two centuries, LoRA asked for pretraining, a card the catalog does not price.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_advisor import locales
from gpu_advisor.engine import plan_checks
from gpu_advisor.engine.architecture import resolve
from gpu_advisor.engine.interconnect import scaling_efficiency
from gpu_advisor.engine.recommend import _context, recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.rules.plans import EFFICIENCY_FLOOR, floor_network_gbps
from gpu_advisor.engine.specs import Catalog, Knowledge, Offer
from gpu_advisor.engine.workload import Workload


def plan(kb: Knowledge, **fields: Any) -> Plan:
    return recommend(Workload(**fields), kb)


def hit(p: Plan, id_: str) -> dict[str, Any]:
    return dict(next(f for f in p.pitfalls if f.id == id_).values)


def test_a_multi_node_plan_below_the_efficiency_floor_is_not_the_pick(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=70, method="full")
    assert p.recommendation is not None and p.recommendation.machines == 1
    assert hit(p, "multi_node_inefficient_set_aside")["efficiency"] < EFFICIENCY_FLOOR


def test_the_network_named_for_multi_node_reaches_the_floor(kb: Knowledge) -> None:
    w = Workload(task="train", params_b=70, method="full", pretrain=True)

    ctx = _context(w, kb, resolve(w, kb.models).arch, "train", [])
    c = next(c for c in ctx.candidates if c.machines > 1)
    need = floor_network_gbps(c)
    assert need is not None and need > (c.offer.network_gbps or 0)
    inside, sync = c.extras["sync_inside_s"], c.extras["sync_s"]
    faster = inside + (sync - inside) * (c.offer.network_gbps or 1.0) / need
    assert abs(scaling_efficiency(c.extras["compute_s"], faster) - EFFICIENCY_FLOOR) < 0.05


def test_serving_across_a_network_its_own_check_fails_is_not_the_pick_when_one_machine_holds_it(
    kb: Knowledge,
) -> None:
    p = plan(kb, task="infer", model="qwen3-235b-a22b", weight_dtype="bf16", qps=20, output_tokens=256)
    assert p.recommendation is not None and p.recommendation.machines_per_replica == 1
    assert p.status == "ok"
    values = hit(p, "multi_machine_serving_set_aside")
    assert values["need_gbps"] > values["network_gbps"]
    assert all(a.machines_per_replica == 1 for a in p.alternatives)


def test_a_job_taking_years_is_out_of_reach_and_says_what_scale_fits(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=70, pretrain=True, train_tokens=1e13)
    assert p.status == "out_of_reach"
    v = hit(p, "job_out_of_reach")
    assert v["years"] > 1 and v["gpus_needed"] > v["gpus"]
    assert v["tokens_feasible"] < v["train_tokens"] / (v["ratio"] * 0.9)


def test_pretraining_is_never_offered_lora_nor_qlora(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=7, method="lora", pretrain=True)
    assert p.pretraining and p.recommendation is not None and p.recommendation.method == "full"
    assert all(o.method == "full" for o in p.alternatives)
    assert "pretraining_trains_every_weight" in {f.id for f in p.pitfalls}


def test_twenty_tokens_per_parameter_reads_as_pretraining(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=1, train_tokens=2e10)
    assert p.pretraining and all(o.method == "full" for o in [p.recommendation, *p.alternatives] if o)
    assert not plan(kb, task="train", params_b=1, train_tokens=1e9).pretraining


def test_cards_the_user_owns_and_that_work_are_the_plan(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=7, gpu="rtx3090", gpu_count=1, gpu_owned=True)
    assert p.recommendation is not None and p.recommendation.offer.startswith("own-")
    assert p.recommendation.cost.amount == 0


def test_a_named_card_outside_the_catalog_is_judged_not_silently_replaced(kb: Knowledge) -> None:
    p = plan(kb, task="infer", model="qwen2.5-72b", gpu="ascend-910b", gpu_count=8)
    assert p.requested is not None and p.requested.gpu == "ascend-910b" and not p.requested.priced
    assert hit(p, "named_card_not_in_catalog")["tokens_per_s"] > 0


def test_a_named_card_that_does_not_fit_says_by_how_much(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=70, weight_dtype="bf16", gpu="rtx4090")
    v = hit(p, "named_card_does_not_fit")
    assert v["need_gib"] > v["capacity_gib"]


def test_nothing_within_budget_says_how_far_to_raise_it(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=70, weight_dtype="bf16", budget="1000 CNY/month")
    rec = p.recommendation
    v = hit(p, "raise_budget")
    assert rec is not None and v["need"] == round(rec.monthly_cost.amount)
    assert v["extra"] == v["need"] - 1000


def test_budget_against_deadline_names_both_limits_to_move(kb: Knowledge) -> None:
    p = plan(
        kb,
        task="train",
        params_b=7,
        method="lora",
        train_tokens=2e9,
        deadline_hours=24,
        budget="3000 CNY total",
    )
    v = hit(p, "budget_or_deadline")
    assert v["need"] > v["budget"] and v["hours"] > v["deadline_hours"]


def test_every_hard_problem_makes_a_candidate_unworkable(kb: Knowledge) -> None:
    w = Workload(task="train", params_b=70, method="full", pretrain=True, train_tokens=1e13)

    ctx = _context(w, kb, resolve(w, kb.models).arch, "train", [])
    multi = next(c for c in ctx.candidates if c.machines > 1)
    assert {"below_efficiency_floor", "out_of_reach"} <= set(plan_checks.problems(ctx, multi))
    assert not plan_checks.workable(ctx, multi)


def test_an_ascend_pick_launches_vllm_ascend_on_cann_in_a_format_cann_serves(kb: Knowledge) -> None:
    ascend = Offer(
        id="ascend-910b-8x",
        gpu="ascend-910b",
        count=8,
        interconnect="nvlink",  # HCCS inside an Atlas 800T A2
        price_month=20000,
        source="a test catalog with one Ascend machine",
    )
    only = kb.model_copy(update={"catalog": Catalog(operator="test", offers=[ascend])})
    p = recommend(Workload(task="infer", model="qwen2.5-72b", concurrency=4), only)
    rec = p.recommendation
    assert rec is not None and rec.gpu == "ascend-910b" and rec.weight_dtype not in ("awq", "gptq")
    assert p.launch and all(s.runtime == "vllm" and "vllm_ascend" in s.needs for s in p.launch)
    assert all("CUDA_VISIBLE_DEVICES" not in s.env for s in p.launch)
    assert "ascend_stack" in {f.id for f in p.pitfalls}


def _full_70b_in_two_weeks(kb: Knowledge) -> Plan:
    """Issue 47's request: full fine-tune Llama 3 70B on 10B tokens within two weeks."""
    return plan(kb, task="train", model="llama-3-70b", method="full", train_tokens=1e10, deadline_hours=336)


def test_a_pick_that_trains_another_way_than_asked_says_so_before_any_other_warning(kb: Knowledge) -> None:
    p = _full_70b_in_two_weeks(kb)
    assert p.recommendation is not None and p.recommendation.method == "lora"
    first = p.pitfalls[0]
    assert first.id == "method_changed" and first.severity == "high"
    assert first.values["asked"] == "full" and first.values["method"] == "lora"
    assert first.values["problem"] == "below_efficiency_floor"


def test_the_method_change_is_said_in_both_languages_with_the_asked_methods_numbers(kb: Knowledge) -> None:
    f = _full_70b_in_two_weeks(kb).pitfalls[0]
    zh, en = (locales.render_finding(lang, f.id, f.values) for lang in ("zh", "en"))
    assert "你要的是全参微调" in zh and "改用 LoRA" in zh and "Gbps" in zh
    assert "You asked for full fine-tune" in en and "with LoRA instead" in en
    assert "?" not in zh + en


def test_the_asked_method_stays_priced_among_the_alternatives(kb: Knowledge) -> None:
    p = _full_70b_in_two_weeks(kb)
    asked = next(o for o in p.alternatives if o.kind == "asked_method")
    assert asked.method == "full" and asked.training_hours is not None and asked.training_hours > 336


def test_the_set_aside_warning_names_the_pick_as_it_is_never_one_machine_it_is_not(kb: Knowledge) -> None:
    p = _full_70b_in_two_weeks(kb)
    assert p.recommendation is not None and p.recommendation.machines == 4
    values = hit(p, "multi_node_inefficient_set_aside")
    assert values["pick_machines"] == 4
    zh = locales.render_finding("zh", "multi_node_inefficient_set_aside", values)
    en = locales.render_finding("en", "multi_node_inefficient_set_aside", values)
    assert "单机" not in zh and "4 台机器共 32 张 NVIDIA A100 40GB SXM4" in zh
    assert "one machine" not in en and "on 4 machines, trained with LoRA" in en


def test_a_plan_in_the_asked_method_says_nothing_of_a_change(kb: Knowledge) -> None:
    p = plan(kb, task="train", model="llama-3-70b", method="lora", train_tokens=1e9)
    assert "method_changed" not in {f.id for f in p.pitfalls}
    assert all(o.kind != "asked_method" for o in p.alternatives)


def test_single_card_offers_are_never_multiplied_into_a_machine_nobody_rents(kb: Knowledge) -> None:
    # The catalog rents T4 one to a machine, with no network listed: 32 of them are 32 machines.
    p = plan(kb, task="train", params_b=13, method="full", gpu="t4", gpu_count=32)
    assert p.requested is None
    assert all(o.gpu != "t4" for o in [p.recommendation, *p.alternatives] if o and o.method == "full")
    values = hit(p, "named_card_not_one_machine")
    assert (values["gpus"], values["per_machine"], values["machines"]) == (32, 1, 32)


@pytest.mark.parametrize(("lang", "said"), [("zh", "3 台各自独立的机器"), ("en", "3 separate machines")])
def test_three_3090s_for_one_qlora_job_are_said_to_be_three_machines(
    kb: Knowledge, lang: str, said: str
) -> None:
    p = plan(kb, task="train", model="llama-3-70b", method="qlora", gpu="rtx3090", gpu_count=3)
    values = hit(p, "named_card_not_one_machine")
    text = locales.render_finding(lang, "named_card_not_one_machine", values)
    assert said in text and "?" not in text
    assert p.requested is None  # no "3 × RTX 3090 for ¥5,250"


def test_a_count_a_bigger_machine_holds_is_that_whole_machine(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=13, method="lora", gpu="a100-40g-sxm", gpu_count=3)
    assert p.requested is not None and p.requested.offer == "a100-40g-8x" and p.requested.machines == 1


def test_sixteen_gpus_are_two_of_the_catalogs_8_gpu_machines_over_their_network(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=13, method="full", gpu="a100-40g-sxm", gpu_count=16)
    assert p.requested is not None and p.requested.offer == "a100-40g-8x"
    assert (p.requested.count, p.requested.machines) == (8, 2)
