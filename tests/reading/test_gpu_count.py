"""One GPU-count grammar (reading.gpu_count) for the chat, quote and sheet readers: the
same line gives the same number of cards to all three."""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading import gpu_count, quote
from gpu_advisor.reading.message import read_message
from gpu_advisor.reading.sheet.parse import parse

LINES = [
    ("A100 x 12 ¥3/卡时", 12),  # x 12 is the count; ¥3 a card-hour's price
    ("H100 整机 ¥180/小时", gpu_count.WHOLE_BOX),  # a whole machine
    ("8x A800 ¥58,000/月", 8),
    ("两张 4090 每卡时 2 元", 2),
]


@pytest.mark.parametrize(("line", "cards"), LINES)
def test_the_chat_quote_and_sheet_readers_count_a_line_alike(
    dialog: Dialog, kb: Knowledge, line: str, cards: int
) -> None:
    chat = read_message(line, dialog.vocab).slots.get("gpu_count")
    sheet = parse(line, kb)[0].gpu_count
    assert (chat, quote.read(line, kb).count, sheet) == (cards, cards, cards)


@pytest.mark.parametrize("line", ["¥210 的 A100 切片", "A100 3/卡时", "A100 12 元一小时"])
def test_a_price_beside_a_card_is_not_a_count(line: str) -> None:
    start = line.lower().index("a100")
    assert gpu_count.beside(line.lower(), start, start + 4) is None


def test_a_card_hour_is_not_a_count_of_cards() -> None:
    assert gpu_count.elsewhere("每卡时 3 元，8 卡") == 8
    assert gpu_count.elsewhere("3/卡时") is None
