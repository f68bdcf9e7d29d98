"""Two cards weighed for value ("哪个更划算", "better value for money") get their prices side by side.

knowledge/catalog.yaml: a100-40g-1x ¥2,800/月, rtx3090-1x ¥1,750/月: the A100 is ¥1,050 a
month dearer, 1.6 times the 3090.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk


@pytest.mark.parametrize(
    "text",
    [
        "跑 LoRA 微调，3090 跟 A100 哪个性价比高",
        "for LoRA training, is an A100 or a 3090 better value for money?",
    ],
)
def test_value_asked_between_two_cards_gets_both_prices_and_the_gap(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert "¥2,800" in said and "¥1,750" in said and "¥1,050" in said, said
    assert "1.6" in said  # 2,800 / 1,750, not rounded to "2×"
