"""A card's offered rent, weighed, is set against the catalog's price for that card.

"有个供应商报 3090 整卡 2500 一个月，贵不贵" is a quote to judge, never a budget followed by
"train or serve?". Catalog prices (knowledge/catalog.yaml): rtx3090-1x ¥1,750/月, t4-1x
¥900/月, a100-40g-1x ¥2,800/月.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk

OFFERS: list[tuple[str, str, str]] = [
    ("朋友介绍的机房，3090 一张 2300 一个月，贵不贵", "¥1,750", "1.31"),  # 2,300 ÷ 1,750
    ("有家機房報 A100 一張 3600 一個月，會不會太貴", "¥2,800", "1.29"),  # 3,600 ÷ 2,800
    ("a supplier quoted 1200 a month for a T4, is that expensive?", "CN¥900", "1.33"),  # 1,200 ÷ 900
]


@pytest.mark.parametrize(("text", "catalog", "ratio"), OFFERS, ids=[t for t, _, _ in OFFERS])
def test_an_offered_rent_is_compared_with_the_catalogs_price_for_the_card(
    dialog: Dialog, text: str, catalog: str, ratio: str
) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert catalog in said and ratio in said, said


@pytest.mark.parametrize(
    "text",
    [
        "朋友介绍的机房，3090 一张 2300 一个月，贵不贵",
        "a supplier quoted 1200 a month for a T4, is that expensive?",
    ],
)
def test_an_offered_rent_is_no_budget(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert "预算" not in said and "budget" not in said.lower()
    assert "训练/微调" not in said and "train / fine-tune" not in said.lower()
