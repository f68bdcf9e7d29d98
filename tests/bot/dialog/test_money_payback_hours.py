"""Buy vs rent with an hourly rent and no model: the rented hours that pay for the card.

"买一张卡要 X，租一小时 Y，用多久回本" needs no model: X ÷ Y hours of rent buy the card (said
first, in hours and days around the clock), then the months with power (engine.payback).
The prices are the user's own; bare numbers ("大概15000", "2.5一小时" in a renting clause)
are read as the purchase and the hourly rent (reading.quote._BARE_PRICE,
reading.money_words._rent_rate).
"""

from __future__ import annotations

import pytest

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.quote import read
from tests.dialogs import simplified, talk

PAYBACKS: list[tuple[str, str]] = [
    ("入手一张 3090 大概 6000，云上租的话 1.5 一小时，要跑多少小时才回本", "4,000"),  # 6,000 ÷ 1.5
    ("買一張 4090 大約 NT$72,000，租的話一小時台幣 15 塊，幾個小時回本？", "4,800"),  # 72,000 ÷ 15
    ("a 4090 costs about 18000 to buy, renting is 2 an hour; after how many hours does buying win?", "9,000"),
]


@pytest.mark.parametrize(("text", "hours"), PAYBACKS, ids=[t for t, _ in PAYBACKS])
def test_a_purchase_and_an_hourly_rent_give_the_payback_in_hours(
    dialog: Dialog, text: str, hours: str
) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert hours in said, said
    assert "哪个模型" not in said and "多大负载" not in said and "which model" not in said.lower()


def test_traditional_prices_stay_in_new_taiwan_dollars(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "買一張 4090 大約 NT$72,000，租的話一小時台幣 15 塊，幾個小時回本？")
    assert "NT$72,000 ÷ NT$15" in reply.text and "¥" not in reply.text


def test_a_count_a_day_is_no_rent_price() -> None:
    reading = read("we generate 500 a day with SDXL", knowledge.load())
    assert reading.prices == []  # no renting word: "500 a day" is images, not ¥500 a day
