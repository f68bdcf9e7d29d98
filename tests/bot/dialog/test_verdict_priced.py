"""A fit question with a price beside it ("能跑…吗，包月多少") gets the verdict, then the price.

Answering only the price (the intent reader's first decision) left the first question
unanswered; answering only the verdict dropped the second.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk


@pytest.mark.parametrize(
    ("text", "verdict", "price"),
    [
        ("一张 A100 40G 能跑 Qwen2.5-14B 吗，包月多少", "能", "¥2,800"),
        ("一張 A100 40G 跑得動 Qwen2.5-14B 嗎？月租多少", "能", "¥2,800"),
        ("can a single A100 40G run qwen2.5 14b? how much a month?", "yes", "CN¥2,800"),
    ],
)
def test_a_fit_question_that_asks_the_price_gets_both(
    dialog: Dialog, text: str, verdict: str, price: str
) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.as_text())
    assert verdict in said.splitlines()[0]  # the verdict leads
    assert price in said  # catalog: A100 40GB SXM4, ¥2,800 a month (knowledge/catalog.yaml)


def test_a_price_question_without_a_model_is_still_a_price_lookup(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "A100 月租多少")
    assert reply.as_text().startswith("1 张 A100")
