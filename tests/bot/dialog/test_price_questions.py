"""A price question gets its price first, never "train or serve?" (issue 27).

Phrasings are written per class in Simplified, Traditional and English; the prices come
from the shipped catalog (seed 000's list).
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from tests.dialogs import simplified


def ask(dialog: Dialog, text: str, state: ConversationState | None = None) -> tuple[str, ConversationState]:
    reply, new = dialog.handle(state or ConversationState(), text)
    return reply.as_text(), new


@pytest.mark.parametrize(
    ("text", "total"),
    [
        ("一张 T4 包月多少", "¥900"),
        ("一張 T4 包月多少錢", "¥900"),
        ("T4 一个月多少钱？", "¥900"),
        ("how much is one T4 a month", "CN¥900"),
        ("4 卡 A100 一周多少钱", "¥11,200"),
        ("四张A100 一个礼拜 什么价", "¥11,200"),
        ("how much for two A100 for 10 days", "CN¥5,600"),
        ("8卡H100一个月多少钱", "¥80,000"),
        ("8 卡 H100 整机按年付呢", "¥68,000"),
        ("price of 8x H100 paid yearly?", "CN¥68,000"),
    ],
)
def test_a_card_count_and_period_are_priced_from_the_catalog(dialog: Dialog, text: str, total: str) -> None:
    said, _ = ask(dialog, text)
    assert total in said[:250]


@pytest.mark.parametrize(
    "text",
    ["一张 4090 包月多少", "how much is a 4090 per month?", "一張 4090 月租多少錢", "一张 4090 月租多少钱"],
)
def test_a_card_the_catalog_lacks_is_said_so_with_the_nearest(dialog: Dialog, text: str) -> None:
    said, _ = ask(dialog, text)
    said = simplified(said)
    assert ("没有" in said or "no offer" in said) and ("3090" in said)
    assert "4,090" not in said  # the card's name is never a count of months


@pytest.mark.parametrize(
    "text", ["训练租两张 A100、推理放一张 3090，每月合计", "2x A100 plus one 3090, in total per month?"]
)
def test_two_rentals_in_one_question_get_their_sum(dialog: Dialog, text: str) -> None:
    said, _ = ask(dialog, text)
    assert "7,350" in said  # 2 × ¥2,800 + ¥1,750


@pytest.mark.parametrize("text", ["最便宜的切片多少钱", "cheapest MIG slice price?", "最便宜的切片多少錢"])
def test_the_cheapest_slice_says_what_it_holds(dialog: Dialog, text: str) -> None:
    said, _ = ask(dialog, text)
    assert "1g.5gb" in said and "210" in said and "4.75" in said


@pytest.mark.parametrize("text", ["年付比月付省多少", "how much do I save paying yearly?"])
def test_yearly_savings_without_a_card_list_every_discount(dialog: Dialog, text: str) -> None:
    said, _ = ask(dialog, text)
    assert "2,240" in said and "68,000" in said  # A100 ¥2,800 at 8 折; 8×H100 ¥80,000 at 85 折


def test_the_priced_card_stays_for_the_next_message(dialog: Dialog) -> None:
    _, state = ask(dialog, "一张 T4 一周多少钱")
    assert state.slots["gpu"] == "t4" and "duration_hours" not in state.slots


def test_a_price_question_never_asks_train_or_serve(dialog: Dialog) -> None:
    said, _ = ask(dialog, "一张 T4 包月多少")
    assert "训练" not in said[:250] and "推理" not in said[:250]
