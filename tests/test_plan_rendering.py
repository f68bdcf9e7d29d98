"""Plans as the user reads them (issue 28): the figures agree and every line earns its place.

Each test renders a plan the engine really makes and checks one thing the card, /alt,
/cost or /compare must say (or must not say).
"""

from __future__ import annotations

from typing import Any

from gpu_advisor.bot.dialog import Dialog, render
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.verdict import verdict
from gpu_advisor.engine.workload import Workload
from tests.dialogs import talk


def plan(kb: Knowledge, **fields: Any) -> Plan:
    return recommend(Workload(**fields), kb)


def test_a_named_card_outside_the_catalog_is_judged_first_on_the_card(kb: Knowledge) -> None:
    p = plan(kb, task="infer", model="qwen2.5-72b", gpu="ascend-910b", gpu_count=8)
    card = render.answer("zh", p)
    assert "910B" in card.summary[0] and "价目表" in card.summary[0]


def test_an_unpriced_card_in_alt_says_it_is_not_in_the_catalog_not_a_price_of_zero(kb: Knowledge) -> None:
    p = plan(kb, task="infer", model="qwen2.5-72b", gpu="ascend-910b", gpu_count=8)
    text = render.alternatives("en", p).as_text()
    line = next(line for line in text.splitlines() if "910B" in line)
    assert "not in the price catalog" in line and "CN¥0" not in line


def test_pretraining_is_never_called_fine_tuning(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=1, pretrain=True, train_tokens=2e10)
    for view in (render.answer, render.why, render.alternatives):
        text = view("zh", p).as_text()
        assert "微调" not in text and "预训练" in text


def test_a_job_out_of_reach_leads_with_how_far_and_what_scale_fits(kb: Knowledge) -> None:
    p = plan(kb, task="train", params_b=70, pretrain=True, train_tokens=1e13)
    caveat = render.answer("en", p).summary[-1]
    assert "years" in caveat and "GPUs" in caveat


def test_train_then_serve_shows_a_combined_monthly_total(kb: Knowledge) -> None:
    p = plan(kb, task="both", params_b=7, method="lora", train_tokens=1e8)
    assert p.recommendation is not None and p.serving is not None
    total = p.recommendation.monthly_cost.amount + p.serving.monthly_cost.amount
    assert f"¥{total:,.0f}" in render.answer("zh", p).as_text()
    assert f"¥{total:,.0f}" in render.costs("zh", p).as_text()


def test_a_slow_first_token_is_said_on_the_card(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=8, prompt_tokens=20000, concurrency=16)
    rec = p.recommendation
    assert rec is not None and (rec.ttft_ms_p50 or rec.ttft_ms or 0) > 1000
    assert "first token" in render.answer("en", p).as_text()


def test_a_ttft_limit_is_said_back_with_its_unit(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=7, concurrency=4, ttft_ms_max=2000)
    assert "（要求 ≤ 2.0 秒）" in render.answer("zh", p).as_text()


def test_a_long_prompt_speed_is_labelled_with_its_prompt(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=8, prompt_tokens=20000, concurrency=16)
    assert "20,000-token prompts" in render.answer("en", p).as_text()


def test_streams_are_labelled_per_replica_and_in_all(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=7, qps=20, always_on=True)
    rec = p.recommendation
    assert rec is not None and (rec.replicas or 1) > 1
    line = render.answer("en", p).summary[0]
    assert "per replica" in line and f"across {rec.replicas} replicas" in line


def test_a_modified_4090_is_named_in_the_users_language_not_rebuilt(kb: Knowledge) -> None:
    p = plan(kb, task="infer", model="qwen2.5-32b", gpu="rtx4090-48g")
    text = render.why_all("zh", p).as_text()
    assert "rebuilt" not in text and "魔改" in text and "保修" in text


def test_a_what_if_that_repeats_the_pick_and_price_is_not_shown(kb: Knowledge) -> None:
    p = plan(kb, task="infer", params_b=7, concurrency=4, always_on=True)
    rec = p.recommendation
    assert rec is not None
    for f in p.what_ifs:
        v = f.values
        assert not (v.get("gpus") == rec.count * rec.machines and v.get("amount") == round(rec.cost.amount))


def test_compare_with_a_card_outside_the_catalog_never_prints_a_question_mark(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "/lang en", "/compare H20 T4 for 7B inference")
    assert "?" not in reply.text and "not in the price catalog" in reply.text


def test_alt_offers_the_cheapest_lighter_method(kb: Knowledge) -> None:
    p = plan(kb, task="train", model="llama-3.1-70b", method="full")
    text = render.alternatives("zh", p).as_text()
    assert "QLoRA" in text and "最省钱" in text


def test_a_t4_quotes_one_usable_memory_in_plan_verdict_and_card(kb: Knowledge, dialog: Dialog) -> None:
    w = Workload(task="infer", params_b=7, weight_dtype="awq", gpu="t4", concurrency=1)
    p = recommend(w, kb)
    v = verdict(w, kb)
    assert p.requested is not None
    shown = round(p.requested.capacity_gib, 1)
    assert shown == round(v.rows[0].capacity_gib, 1)
    reply, _ = talk(dialog, "/lang en", "/gpu T4")
    assert f"about {shown} GiB usable serving" in reply.text
