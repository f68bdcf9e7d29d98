"""One name for one card in one conversation (issue 47).

The card said "1 张 RTX 3090" and the price answer "1 张 NVIDIA GeForce RTX 3090"; the
lead said "显卡 Huawei Ascend 910B". Every reply names a card by the short name the card
uses (``locales.names.short_gpu``), a rebuilt board without the English "(rebuilt)".
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import talk


@pytest.mark.parametrize(
    ("said", "name"),
    [("RTX 3090 多少钱", "1 张 RTX 3090"), ("how much is an RTX 3090?", "RTX 3090")],
)
def test_the_price_answer_names_the_card_as_the_card_does(dialog: Dialog, said: str, name: str) -> None:
    reply, _ = talk(dialog, said)
    assert name in reply.text and "NVIDIA GeForce" not in reply.text


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("用 910B 部署 Qwen2.5-72B", "显卡 Ascend 910B"),
        ("H20 部署 Qwen2.5-72B，提示 20000 token", "显卡 H20 96GB"),
    ],
)
def test_the_lead_names_the_card_without_its_vendor(dialog: Dialog, said: str, name: str) -> None:
    reply, _ = talk(dialog, said)
    assert name in reply.text and "Huawei" not in reply.text and "NVIDIA" not in reply.text


def test_a_follow_up_names_the_pick_as_the_card_does(dialog: Dialog) -> None:
    _, state = talk(dialog, "微调 Llama 3 8B，全参，50亿 token")
    reply, _ = talk(dialog, "那 2 台机器呢？", state=state)
    assert "NVIDIA" not in reply.text and "A100 40GB SXM4" in reply.text
