"""A year's price is the yearly-billing figure, with the month-by-month total beside it (issue 44).

Catalog (knowledge/catalog.yaml): a100-40g-1x ¥2,800/月, 年付 8 折 (yearly_discount 0.20);
h100-sxm-8x ¥80,000/月, 15 % off yearly. A year of the A100 paid yearly is
¥2,800 × 0.8 × 12 = ¥26,880; month by month it is ¥2,800 × 12 = ¥33,600, so the year saves
¥6,720. Before, "how much is an A100 a year?" was priced at twelve list months with a hint.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.period import HOURS, read_period
from tests.dialogs import simplified, talk

A100_YEAR: list[str] = [
    "how much is an A100 a year?",
    "A100 包年多少",
    "A100 一年要多少錢",
    "租一張 A100 一整年大概多少錢",
    "what would a single A100 cost for one year?",
]


@pytest.mark.parametrize("text", A100_YEAR)
def test_a_year_of_an_a100_is_priced_at_the_yearly_rate(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert "26,880" in said and "2,240" in said, said  # 2,800 × 0.8 × 12


@pytest.mark.parametrize("text", A100_YEAR)
def test_the_month_by_month_total_and_the_saving_follow(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert "33,600" in said and "6,720" in said, said  # 2,800 × 12; 33,600 − 26,880


def test_an_h100_node_a_year_is_the_eight_card_machine_with_no_bigger_machine_note(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "what does an H100 node cost per year")
    assert "CN¥816,000" in reply.text and "CN¥960,000" in reply.text  # 80,000 × 0.85 × 12; × 12
    assert "exactly 1 cards" not in reply.text


def test_a_year_said_as_a_duration_reads_as_yearly_billing() -> None:
    period = read_period("how much is an a100 a year?", 8760.0)
    assert period.yearly and period.hours == HOURS["year"]


def test_a_month_on_a_yearly_plan_stays_one_month(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "A100 按年付呢")
    assert "¥2,240" in reply.text and "¥26,880" not in reply.text and "33,600" not in reply.text
