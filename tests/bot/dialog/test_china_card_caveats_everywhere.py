"""A China-market card named anywhere in a reply carries its caveat there (issue 47).

A plan's card, its /why, a price lookup ("910B 多少钱"), a comparison and /gpu each say it.

Asked to serve Qwen2.5-72B on H20 with 8,000-token prompts, the catalog has no H20, so the
pick is another card; the H20's slow prefill (148 BF16 TFLOPS against the H100's 990,
knowledge/gpus.yaml) used to show only deep in /why all: the card's one caveat was the NVLink
line and /why's one screen dropped it. Now a China-market card's own caveat (the H20's
prefill, the Ascend stack, a rebuilt 4090's warranty) is the card's caveat and stays on /why's
screen, in the user's language, while lines before it make room.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.dialog.render import fitted
from gpu_advisor.bot.dialog.reply import Content, Section
from tests.dialogs import talk

H20 = {
    "zh": (
        "用 H20 部署 Qwen2.5-72B，并发 20，7×24，提示词 8000 token",
        "预填充约慢 6.7 倍",
        "约慢 6.7 倍：每条 8,000 token",
    ),
    "en": (
        "deploy Qwen2.5-72B on H20, 20 users, 24/7, prompts of 8000 tokens",
        "prefill about 6.7 times slower",
        "about 6.7 times slower and 8,000-token prompts wait",
    ),
}


@pytest.mark.parametrize("lang", H20)
def test_the_card_names_the_h20s_slow_prefill_when_the_pick_is_another_card(
    dialog: Dialog, lang: str
) -> None:
    asked, on_card, _ = H20[lang]
    card, _ = talk(dialog, asked)
    pick = card.plan.recommendation if card.plan else None
    assert pick is not None and "H20" not in pick.gpu
    assert "⚠ H20 96GB" in card.text and on_card in card.text


@pytest.mark.parametrize("lang", H20)
def test_why_keeps_the_h20s_caveat_on_its_one_screen(dialog: Dialog, lang: str) -> None:
    asked, _, in_why = H20[lang]
    why, _ = talk(dialog, asked, "!/why")
    assert in_why in why.text


def test_the_ascend_stack_is_the_cards_caveat_when_a_910b_does_not_fit(dialog: Dialog) -> None:
    card, _ = talk(dialog, "用 910B 部署 Qwen2.5-72B，并发 20，7×24")
    assert "⚠ Ascend 910B 不走 CUDA：用 CANN + MindIE/vLLM-Ascend" in card.text


def test_a_short_view_drops_other_lines_before_a_kept_caveat() -> None:
    content = Content(
        title="t",
        sections=[
            Section(id="reasoning", heading="why", lines=["a" * 300, "b" * 300]),
            Section(id="pitfalls", heading="watch", lines=["must say", "c" * 300]),
        ],
    )
    shown = fitted(content, limit=400, keep=frozenset({"must say"}))
    assert [s.lines for s in shown.sections] == [["a" * 300], ["must say"]]


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("910B 多少钱", "⚠ Ascend 910B 不走 CUDA：用 CANN + MindIE/vLLM-Ascend"),
        ("4090 48G 包月多少钱", "⚠ RTX 4090 48GB（魔改）：无原厂保修、驱动未经验证、难转手"),
        ("H20 多少钱", "⚠ H20 96GB 算力低，预填充约慢 6.7 倍：长提示词首 token 慢"),
        ("how much is an H20 a month", "⚠ H20 96GB has little compute: prefill about 6.7 times slower"),
    ],
)
def test_a_price_question_that_names_a_china_market_card_says_its_caveat(
    dialog: Dialog, asked: str, said: str
) -> None:
    reply, _ = talk(dialog, asked)
    assert said in reply.text


def test_a_price_question_on_another_card_has_no_such_caveat(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "A100 多少钱")
    assert "⚠" not in reply.text


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("H20 和 A100 哪个适合部署 72B", "⚠ H20 96GB 算力低，预填充约慢 6.7 倍"),
        ("compare 910B and H100", "⚠ Ascend 910B runs no CUDA: CANN + MindIE/vLLM-Ascend"),
        ("/gpu 910B", "⚠ Ascend 910B 不走 CUDA"),
        ("/gpu H20", "⚠ H20 96GB 算力低"),
    ],
)
def test_a_comparison_or_a_cards_sheet_says_its_caveat(dialog: Dialog, asked: str, said: str) -> None:
    reply, _ = talk(dialog, asked)
    assert said in reply.text
