"""A purchase price for cards the catalog does not rent is answered, not met with "which model?" (issue 44).

The price is set against the dated reference purchase price (knowledge/prices.yaml: RTX 4090
US$1,599 MSRP of 2022-09-20, converted at the catalog's 2024-12-31 rate NT$1 = ¥0.219286,
US$1 = ¥7.1884), and the one number still missing — the rent — is asked for.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.quote import read
from tests.dialogs import simplified, talk


def said(dialog: Dialog, text: str) -> str:
    reply, _ = talk(dialog, text)
    return simplified(reply.text)


def test_a_taiwan_dollar_card_price_is_held_against_the_launch_price(dialog: Dialog) -> None:
    text = said(dialog, "买一张 4090 五万台币，还是租划算")
    assert "NT$50,000" in text and "US$1,599" in text and "2022-09-20" in text
    assert "NT$52,417" in text  # 1,599 × 7.1884 ÷ 0.219286
    assert "95.4%" in text  # 50,000 ÷ 52,417
    assert "租价" in text and "哪个模型" not in text


def test_an_english_card_price_is_read_from_costs(dialog: Dialog) -> None:
    text = said(dialog, "a 4090 costs US$1,800, buy or rent?")
    assert "112.6%" in text  # 1,800 ÷ 1,599
    assert "Which model" not in text


def test_a_server_the_catalog_does_not_rent_asks_for_the_rent_only(dialog: Dialog) -> None:
    text = said(dialog, "买一台 8卡 A800 服务器 150 万，电费 0.8 元/度，用三年，还是租划算")
    assert "¥1,500,000" in text and "租价" in text
    assert "哪个模型" not in text


@pytest.mark.parametrize(
    "text", ["the H100 costs $2.5/hr, how much for 300 hours", "the API costs $8 per million tokens"]
)
def test_a_price_per_hour_or_per_token_is_no_purchase(kb: Knowledge, text: str) -> None:
    assert read(text, kb).purchase is None


@pytest.mark.parametrize(
    ("text", "share"),
    [("4090 五万台币 值不值", "95.4%"), ("RTX 4090 US$1,800 worth it?", "112.6%")],
)
def test_a_card_price_with_no_period_is_a_purchase_held_against_the_reference(
    dialog: Dialog, text: str, share: str
) -> None:
    reply = said(dialog, text)
    assert share in reply and "预算" not in reply and "budget" not in reply.lower()


def test_a_card_price_the_catalog_rents_gets_its_payback(dialog: Dialog) -> None:
    reply = said(dialog, "3090 ¥5000 值不值")
    # rtx3090-1x ¥1,750/month; power 0.6 kW × 720 h × PUE 1.3 × ¥0.8 = ¥449; 5,000 ÷ 1,301 = 3.8
    assert "3.8 个月回本" in reply


@pytest.mark.parametrize("text", ["A100 ¥2800 值不值", "预算 5萬台幣，4090 夠嗎"])
def test_an_amount_far_from_a_cards_price_or_called_a_budget_is_no_purchase(
    dialog: Dialog, text: str
) -> None:
    assert "回本" not in said(dialog, text) and "参考价" not in said(dialog, text)
