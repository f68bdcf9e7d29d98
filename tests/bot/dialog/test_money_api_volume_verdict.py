"""Rent vs API with a daily output volume and the user's own price per million is a verdict.

"~2M output tokens a day … ¥8 per M out, would renting a T4 be cheaper?" is priced: the
volume × the price × 30 days against the card's month (knowledge/catalog.yaml: t4-1x ¥900,
a100-40g-1x ¥2,800). The price per million is never read as a budget.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk

VOLUMES: list[tuple[str, str, str]] = [
    # 3M × ¥8 × 30 = ¥720 against ¥900
    ("每天大概输出 300 万 token，用 DeepSeek API 每百万输出 8 块，租一张 T4 会更便宜吗", "¥720", "¥900"),
    # 5M × ¥6 × 30 = ¥900 against ¥2,800
    ("每天產出約 500 萬 token，API 每百萬 token 6 塊，租一張 A100 划算嗎", "¥900", "¥2,800"),
    # 3M × ¥15 × 30 = ¥1,350 against ¥2,800
    (
        "our app burns about 3M output tokens per day via the GPT API at ¥15 per million;"
        " cheaper to rent an A100?",
        "CN¥1,350",
        "CN¥2,800",
    ),
]


@pytest.mark.parametrize(("text", "api", "rent"), VOLUMES, ids=[t for t, _, _ in VOLUMES])
def test_a_daily_volume_at_the_users_price_is_set_against_the_cards_month(
    dialog: Dialog, text: str, api: str, rent: str
) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert api in said and rent in said, said
    assert "预算" not in said and "budget" not in said.lower()


def test_the_rent_line_names_the_card_asked_about(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "每天输出 300 万 token，DeepSeek API 每百万输出 8 块，租一张 T4 会更便宜吗")
    assert "租：1 张 T4，¥900/月" in simplified(reply.text)  # knowledge/catalog.yaml t4-1x
