"""A card is written one way through a whole conversation: plan, price, comparison (issue 47).

The plan said "1 张 RTX 3090", the price answer "1 张 NVIDIA GeForce RTX 3090" and the
comparison "NVIDIA GeForce RTX 3090"; a Chinese comparison named the rebuilt 4090 with the
catalogue's English "RTX 4090 48GB (rebuilt)", and the caveat beside it "RTX 4090 48GB 是魔改卡".
Every reply now names a card through ``locales.names.card_name`` — the confirmation line,
the pick, the findings, the caveat, the price line, the comparison's rows: the short name,
a rebuilt board with its qualifier in the user's language ("RTX 4090 48GB（魔改）",
"RTX 4090 48GB (modified board)").
"""

from __future__ import annotations

import re

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.locales.names import card_name
from tests.dialogs import talk

_A_3090 = re.compile(r"(?:NVIDIA )?(?:GeForce )?(?:RTX )?3090(?: \(rebuilt\))?")
_A_4090_48G = re.compile(
    r"(?:NVIDIA )?(?:GeForce )?(?:RTX )?4090 48GB?(?:（魔改）| \(modified board\)| \(rebuilt\))?"
)


def _names(dialog: Dialog, messages: list[str], pattern: re.Pattern[str]) -> set[str]:
    """Every way the conversation's replies write the card."""
    state = None
    seen: set[str] = set()
    for message in messages:
        reply, state = talk(dialog, message, state=state)
        found = {m.group() for m in pattern.finditer(reply.text)}
        assert found, f"{message!r} did not name the card: {reply.text}"
        seen |= found
    return seen


@pytest.mark.parametrize(
    "messages",
    [
        ["用一张 3090 部署 Qwen2.5-7B，并发 4，7x24", "3090 多少钱", "3090 和 4090 哪个好"],
        [
            "serve Qwen2.5-7B on one RTX 3090 for 4 users 24/7",
            "how much is an RTX 3090?",
            "RTX 3090 vs 4090, which is better?",
        ],
    ],
    ids=["zh", "en"],
)
def test_plan_price_and_comparison_write_the_3090_one_way(dialog: Dialog, messages: list[str]) -> None:
    assert _names(dialog, messages, _A_3090) == {"RTX 3090"}


@pytest.mark.parametrize(
    ("lang", "messages"),
    [
        (
            "zh",
            [
                "用 4090 48G 部署 Qwen2.5-7B，并发 4，7x24",
                "4090 48G 能跑 Qwen2.5-32B 吗",
                "4090 48G 包月多少钱",
                "4090 48G 和 3090 哪个好",
            ],
        ),
        (
            "en",
            [
                "serve Qwen2.5-7B on a 4090 48G for 4 users 24/7",
                "can a 4090 48G run Qwen2.5-32B?",
                "how much is a 4090 48G a month?",
                "4090 48G vs RTX 3090, which is better?",
            ],
        ),
    ],
)
def test_plan_verdict_price_and_comparison_write_the_rebuilt_4090_one_way(
    dialog: Dialog, lang: str, messages: list[str]
) -> None:
    named = card_name(lang, dialog.kb.gpus["rtx4090-48g"].name)
    assert _names(dialog, messages, _A_4090_48G) == {named}


def test_the_rebuilt_qualifier_is_said_in_chinese() -> None:
    assert card_name("zh", "RTX 4090 48GB (rebuilt)") == "RTX 4090 48GB（魔改）"
    assert card_name("zh", "NVIDIA GeForce RTX 3090") == "RTX 3090"


_AN_A100 = re.compile(r"(?:NVIDIA )?A100 40GB(?: SXM4)?")


@pytest.mark.parametrize(
    "messages",
    [
        ["SDXL 每天 5000 张 租什么卡", "/why", "/alt", "A100 40GB 多少钱"],
        ["SDXL, 5000 images a day, which GPU?", "/why", "/alt", "how much is an A100 40GB?"],
    ],
    ids=["zh", "en"],
)
def test_a_job_card_its_folds_and_the_price_write_the_a100_one_way(
    dialog: Dialog, messages: list[str]
) -> None:
    assert _names(dialog, messages, _AN_A100) == {"A100 40GB SXM4"}
