"""'What's the cheapest thing you rent?' gets the catalog's cheapest offers, a month and a day.

knowledge/catalog.yaml: a100-40g-mig-1g (a 1g.5gb MIG slice) ¥210/月 is the cheapest offer,
t4-1x ¥900/月 the cheapest whole card; billed by the month, so a day is the month ÷ 30
(the engine's 720-hour month): ¥7 and ¥30.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk

ASKED = [
    "你们这里最低价的卡是哪张，一天多少钱",
    "最便宜可以租到什麼？一個月跟一天大概多少",
    "what's the lowest priced thing on your list, monthly and per day?",
]


@pytest.mark.parametrize("text", ASKED)
def test_the_cheapest_offer_and_card_are_priced_a_month_and_a_day(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert "¥210" in said and "¥7" in said, said  # the slice: 210 ÷ 30
    assert "¥900" in said and "¥30" in said, said  # the T4: 900 ÷ 30


def test_a_cheapest_slice_asked_stays_the_slices_own_lookup(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "最便宜的切片多少钱")
    assert "¥210" in reply.text and "T4" not in reply.text


def test_the_cheapest_way_to_serve_a_load_is_a_plan_not_a_price_list(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "what's the cheapest way to serve 50 users")
    assert "CN¥210" not in reply.text
