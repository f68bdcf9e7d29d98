"""A price per second, minute or hour is a rate with its unit, run for the hours said (issue 44, classes 2-3).

Our own phrasings in Simplified, Traditional and English; each figure is worked in the
comment from what the message says and the month of 30 days (``engine.billing``).
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.engine.rate import rate_cost
from gpu_advisor.engine.results import Money
from tests.dialogs import simplified, talk


def said(dialog: Dialog, text: str) -> str:
    reply, _ = talk(dialog, text)
    return simplified(" ".join([reply.title or "", *reply.summary]))


def test_a_per_minute_rate_is_sixty_times_an_hour() -> None:
    cost = rate_cost(Money(amount=0.08, currency="CNY"), "minute", 5, "job")
    assert cost.per_hour.amount == pytest.approx(4.8) and cost.total.amount == pytest.approx(24)


def test_a_budget_below_the_total_is_over_by_the_difference() -> None:
    cost = rate_cost(Money(amount=2, currency="USD"), "hour", 720, "month", Money(amount=500, currency="USD"))
    assert cost.fits is False and cost.over_by == Money(amount=940, currency="USD")
    assert cost.hours_in_budget == pytest.approx(250)


def test_a_budget_in_another_currency_is_not_compared() -> None:
    cost = rate_cost(Money(amount=4, currency="CNY"), "hour", 720, "month", Money(amount=500, currency="USD"))
    assert cost.fits is None and cost.budget is None


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("¥0.08/分钟 的卡，跑 5 小时多少钱", ("4.8", "¥24")),  # 60 × ¥0.08 = ¥4.8/h; × 5 h
        ("每秒 ¥0.001，跑 10 小時要多少", ("3.6", "¥36")),  # 3,600 × ¥0.001 = ¥3.6/h; × 10 h
        ("a GPU at $0.002 per second, run it 5 hours, how much", ("0.002", "7.2", "US$36")),
        ("每分钟 0.05 元的 GPU，每天用 3 小时，一个月多少钱", ("90", "¥270")),  # 3 h × 30 d × ¥3
    ],
)
def test_a_per_second_or_minute_price_is_priced_for_the_hours_said(
    dialog: Dialog, text: str, figures: tuple[str, ...]
) -> None:
    reply = said(dialog, text)
    assert all(f in reply for f in figures), reply
    assert "模型" not in reply and "model" not in reply


@pytest.mark.parametrize(
    ("text", "total", "verdict"),
    [
        ("I have ¥3,000 a month, a card is ¥4/hour, can I run it 24/7?", "2,880", "120"),  # 720 h × ¥4
        ("每月 2000 块，3090 每小时 2.5，每天开 10 小时够吗", "750", "1,250"),  # 300 h × ¥2.5
        ("每月預算 2000 元，3090 每小時 2.5，每天開 10 小時夠嗎", "750", "1,250"),
        ("我每月只有 1500 元，4090 一小时 3 块，全天开着够不够", "2,160", "660"),  # over by ¥660
        ("I have $500 a month and an A100 is $2 an hour, can I run it 24/7?", "1,440", "940"),
    ],
)
def test_a_month_budget_against_an_hourly_price_and_a_schedule_gets_a_verdict(
    dialog: Dialog, text: str, total: str, verdict: str
) -> None:
    reply = said(dialog, text)
    assert total in reply and verdict in reply, reply
    assert "以内" in reply or "超出" in reply or "within" in reply or "over" in reply


@pytest.mark.parametrize(
    ("text", "total"),
    [
        ("按分钟计费 0.1 元，跑 3 个小时多少钱", "¥18"),  # 60 × ¥0.1 × 3 h
        ("一个月只有 500 块，A100 一小时 1.8，每天开 8 小时够吗", "432"),  # 240 h × ¥1.8, within ¥500
    ],
)
def test_a_rate_whose_unit_or_currency_is_said_first_or_not_at_all_is_still_a_rate(
    dialog: Dialog, text: str, total: str
) -> None:
    assert total in said(dialog, text)


@pytest.mark.parametrize(
    "text",
    [
        "A100 每小时 8 元，包月 4000，每天 6 小时，怎么租",
        "3090 hourly ¥2.5 or ¥1,500 a month, I use it 10 hours a day",
    ],
)
def test_a_vendors_monthly_price_beside_an_hourly_one_is_a_way_of_paying_not_a_budget(
    dialog: Dialog, text: str
) -> None:
    reply = said(dialog, text)
    assert "以内" not in reply and "within" not in reply and "budget" not in reply, reply


def test_two_ways_of_paying_asked_with_a_schedule_are_billed_for_its_hours(dialog: Dialog) -> None:
    reply = said(dialog, "A100 每小時 8 元，包月 4000，每天 6 小時，怎麼租")
    assert "1,440" in reply and "4,000" in reply  # 6 h × 30 days × ¥8 against the month
