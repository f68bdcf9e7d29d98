"""A cut of a plan's money, asked after the plan (issue 44): relative, kept, and priced.

"预算再压一压" is never a budget of ¥1 and "再砍 20%" never fewer users: a share cuts the
month's budget held (else the pick's month), a cut with no amount names the next cheaper
thing — here the same pick paid yearly at the catalog's discount (knowledge/catalog.yaml:
a100-40g-2x ¥5,600/month, ¥4,480 paid yearly) — and the new budget stays in the
conversation for the plans that follow.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.reading.budget_cut import kept_share, vague_cut
from gpu_advisor.text.normalize import normalize
from tests.dialogs import simplified, talk

SERVE_72B = "跑 Qwen2.5-72B 推理，30个人用，7x24，每月预算 8 万"  # picks 2 × A100 40GB, ¥5,600/month


def said(dialog: Dialog, *messages: str) -> tuple[str, ConversationState]:
    reply, state = talk(dialog, *messages)
    return simplified(reply.text), state


def budget_of(state: ConversationState) -> float:
    held = state.slots.get("budget")
    assert isinstance(held, dict)
    return float(held["amount"])


@pytest.mark.parametrize(
    "text",
    [
        "预算再压一压",
        "便宜点",
        "再便宜一点",
        "预算少一点",
        "預算再壓一壓",
        "lower the budget a bit",
        "cheaper please",
    ],
)
def test_a_cut_with_no_amount_is_read_as_such(text: str) -> None:
    assert vague_cut(normalize(text))


@pytest.mark.parametrize("text", ["有没有更便宜的", "延迟再降一点", "any cheaper option?", "便宜的卡"])
def test_a_question_of_what_exists_or_a_cut_of_latency_is_no_money_cut(text: str) -> None:
    assert not vague_cut(normalize(text))


def test_cut_the_budget_by_a_third_keeps_two_thirds() -> None:
    assert kept_share(normalize("cut the budget by a third")) == pytest.approx(2 / 3)


def test_a_share_cuts_the_budget_held_and_keeps_the_new_one(dialog: Dialog) -> None:
    reply, state = said(dialog, SERVE_72B, "再砍 20%")
    assert "¥64,000" in reply and "¥80,000 × 80%" in reply  # 80,000 × 0.8
    assert budget_of(state) == 64_000
    assert state.slots.get("concurrency") == 30  # the users were not cut


def test_a_cut_with_no_amount_names_the_yearly_price_and_what_it_costs(dialog: Dialog) -> None:
    reply, state = said(dialog, SERVE_72B, "预算再压一压")
    assert "¥4,480" in reply and "¥53,760" in reply  # 5,600 × 0.8; × 12 paid up front
    assert budget_of(state) == 4_480
    assert "¥1/" not in reply


def test_a_second_cut_with_nothing_cheaper_left_says_what_to_relax(dialog: Dialog) -> None:
    reply, state = said(dialog, SERVE_72B, "预算再压一压", "便宜点")
    assert "最便宜" in reply and "并发" in reply
    assert budget_of(state) == 4_480  # no amount to set: the budget held stays


def test_the_next_plan_is_sized_within_the_cut_budget(dialog: Dialog) -> None:
    reply, _ = said(dialog, SERVE_72B, "预算再压一压", "/plan")
    assert "预算 ¥4,480/月" in reply and "超出了你的预算" in reply
    assert "年付每月 ¥4,480，在每月 ¥4,480 的预算内" in reply  # the card says how it still fits


def test_a_cut_below_the_cheapest_says_so_with_the_price(dialog: Dialog) -> None:
    reply, state = said(dialog, "跑 Qwen2.5-32B 推理，50个人用，7x24", "再砍 40%")
    assert "¥1,680" in reply and "¥2,800 × 60%" in reply  # the pick's month, no budget was held
    assert "超出这个预算" in reply
    assert budget_of(state) == 1_680


def test_a_dollar_budget_is_cut_in_dollars_and_compared_at_the_dated_rate(dialog: Dialog) -> None:
    reply, state = said(
        dialog, "serve Llama-3.1-8B for 20 users 24/7, budget $300 a month", "cut the budget by a third"
    )
    assert "US$200" in reply and "CN¥1,438" in reply  # 200 × 7.1884 (catalog fx 2024-12-31)
    assert "still fits" in reply and "2024-12-31" in reply
    assert state.slots["budget"]["currency"] == "USD"


def test_a_cut_of_another_number_is_not_a_cut_of_money(dialog: Dialog) -> None:
    _, state = talk(dialog, SERVE_72B, "并发砍 20%")
    assert budget_of(state) == 80_000
