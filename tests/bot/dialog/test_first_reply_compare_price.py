"""A card comparison that asks the price gets the catalog's monthly prices and the gap
(bot.dialog.compare_view.price_lines): each machine as the catalog rents it."""

from __future__ import annotations

from gpu_advisor.bot.dialog import ConversationState, Dialog


def _said(dialog: Dialog, text: str) -> str:
    reply, _ = dialog.handle(ConversationState(), text)
    return reply.text


def test_a_chinese_price_gap_question_gets_both_prices_and_the_gap(dialog: Dialog) -> None:
    said = _said(dialog, "T4 跟 A100 40G 差别在哪，贵多少钱")
    assert "1 张 T4：价目表 ¥900/月" in said and "每月贵 ¥1,900" in said


def test_an_eight_card_machine_is_priced_as_the_catalog_sells_it(dialog: Dialog) -> None:
    said = _said(dialog, "A100 40GB vs an 8x H100 box, what's the price difference?")
    assert "8× H100 80GB SXM5: CN¥80,000–CN¥120,000 a month" in said


def test_a_traditional_price_gap_question_is_answered_in_traditional(dialog: Dialog) -> None:
    said = _said(dialog, "單卡 A100 和 8 卡 H100 價格差多少")
    assert "每月貴 ¥77,200–¥117,200" in said


def test_a_card_rented_only_in_a_bigger_machine_names_that_machine(dialog: Dialog) -> None:
    said = _said(dialog, "T4 和 H100 差多少钱")
    assert "最小是 8 张 H100 80GB SXM5 的整机" in said


def test_a_comparison_that_asks_no_price_shows_none(dialog: Dialog) -> None:
    assert "价目表" not in _said(dialog, "T4 和 A100 哪个好")


def test_money_said_as_a_noun_asks_for_the_prices_too(dialog: Dialog) -> None:
    said = _said(dialog, "compare the t4 and a100 40g prices")
    assert "1× T4: CN¥900 a month in the catalog" in said
