"""The plan card and its cost fold say the money of a plan in full (issue 44).

A month's budget in another currency than the pick's is held against the pick at the
catalog's dated rate (knowledge/catalog.yaml fx_to_cny of 2024-12-31: US$1 = ¥7.1884,
NT$1 = ¥0.219286), and every serving plan's cost fold prints its price per million
output tokens (engine.results.per_million_tokens: month ÷ (tokens/s × 720 h × 3,600 s)).
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk

SEVEN_B = "跑 Qwen2.5-7B 推理，10个人用，7x24"  # picks 1 × T4, ¥900/month


def card(dialog: Dialog, *messages: str) -> str:
    reply, _ = talk(dialog, *messages)
    return simplified(reply.text)


def test_a_dollar_budget_that_covers_the_pick_says_so_at_the_dated_rate(dialog: Dialog) -> None:
    text = card(dialog, f"{SEVEN_B}，预算 $300 a month")
    assert "US$300/月 ≈ ¥2,157/月" in text  # 300 × 7.1884 = 2,156.52
    assert "2024-12-31" in text and "够 ¥900/月" in text


def test_a_taiwan_dollar_budget_below_the_pick_is_warned_with_the_gap(dialog: Dialog) -> None:
    text = card(dialog, f"{SEVEN_B}，每月预算 NT$3000")
    assert "多 NT$1,104" in text  # 900 ÷ 0.219286 = NT$4,104.2, over NT$3,000 by 1,104


def test_an_english_dollar_budget_below_the_pick_is_warned(dialog: Dialog) -> None:
    text = card(dialog, "serve Llama-3.1-8B for 20 users 24/7, budget $100 a month")
    assert "US$25.2 over your US$100/month budget" in text  # 900 ÷ 7.1884 = 125.2


@pytest.mark.parametrize(
    "text", [f"{SEVEN_B}，每月预算 3000", "跑 Qwen2.5-7B 推理，10個人用，7x24，每月預算 3000"]
)
def test_a_chinese_budget_is_yuan_without_a_doubt_or_a_rate_line(dialog: Dialog, text: str) -> None:
    said = card(dialog, text)
    assert "没写币种" not in said and "汇率" not in said


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        ((SEVEN_B, "/cost"), "每百万输出 token"),
        (("serve Llama-3.1-8B for 20 users 24/7", "/cost"), "Per million output tokens"),
        (("跑 Qwen2.5-72B 推理，30个人用，7x24", "/cost"), "每百万输出 token"),
        (("跑 Qwen2.5-7B 推理，每秒 2 个请求，7x24", "/cost"), "每百万输出 token"),
    ],
)
def test_every_serving_plans_cost_fold_has_its_price_per_million_tokens(
    dialog: Dialog, messages: tuple[str, ...], words: str
) -> None:
    reply, _ = talk(dialog, *messages)
    assert words in reply.text


def test_the_cost_fold_price_per_million_is_the_plans_own_figure(dialog: Dialog) -> None:
    reply, state = talk(dialog, SEVEN_B, "/cost")
    plan, _ = dialog.plan_for(state)
    assert plan is not None and plan.recommendation is not None
    per_million = plan.recommendation.cost_per_million_output_tokens
    assert per_million is not None
    assert f"¥{per_million.amount:,.2f}" in reply.text


def test_a_training_plans_cost_fold_has_no_token_price(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "微调 Qwen2.5-7B，LoRA，10 亿 token", "/cost")
    assert "每百万输出 token" not in reply.text
