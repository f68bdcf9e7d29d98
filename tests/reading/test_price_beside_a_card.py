"""A price beside a card is a price, not a count of cards (issue 47).

"¥210 的 A100 切片" was read as 210 A100s and judged as a 210-card machine. A number right
after a currency sign or code is an amount (``reading.money``); a count is a bare number
or one with a measure word ("8 张 A100", "2x H100").
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.requirements import Vocabulary, extract


@pytest.fixture(scope="module")
def vocab(dialog: Dialog) -> Vocabulary:
    return dialog.vocab


@pytest.mark.parametrize(
    "text", ["¥210 的 A100 切片能跑 7B 吗", "¥210的A100切片", "can the $0.30 A100 slice run 7B?"]
)
def test_a_price_before_a_card_is_not_its_count(vocab: Vocabulary, text: str) -> None:
    slots = extract(text, vocab).slots
    assert slots["gpu"] == "a100-40g-sxm" and "gpu_count" not in slots


@pytest.mark.parametrize(("text", "count"), [("8 张 A100 跑 70B", 8), ("2 张 A100 ¥5600 一个月", 2)])
def test_a_count_beside_a_price_is_still_the_count(vocab: Vocabulary, text: str, count: int) -> None:
    assert extract(text, vocab).slots["gpu_count"] == count
