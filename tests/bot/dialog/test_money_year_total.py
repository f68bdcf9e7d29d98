"""A year's total asked in other words is twelve months at the yearly rate, never one month.

"年付的话一年最少要多少钱" asks what a year costs when paid yearly: the catalog's month at
the yearly discount, times twelve (reading.period._A_YEAR). Amounts from
knowledge/catalog.yaml: h100-sxm-8x ¥80,000/月 with 15 % off yearly, a100-40g-1x ¥2,800/月
with 20 % off yearly.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk

YEAR_TOTALS: list[tuple[str, str]] = [
    ("A100 年繳的話一年至少要花多少？", "¥26,880"),  # 2,800 × 0.8 × 12
    ("8 卡 H100 整台，年付一年大概得花多少", "¥816,000"),  # 80,000 × 0.85 × 12
    ("an 8x H100 node paid yearly, what's the bill over one year?", "CN¥816,000"),
]


@pytest.mark.parametrize(("text", "total"), YEAR_TOTALS, ids=[t for t, _ in YEAR_TOTALS])
def test_a_year_total_asked_in_other_words_is_twelve_discounted_months(
    dialog: Dialog, text: str, total: str
) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert total in said and "× 12" in said, said


def test_paying_yearly_without_asking_the_year_is_still_one_month(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "A100 按年付呢")
    assert "¥2,240" in reply.text and "¥26,880" not in reply.text  # 2,800 × 0.8, one month
