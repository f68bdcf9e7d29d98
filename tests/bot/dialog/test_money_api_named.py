"""Rent vs a hosted API answered for the provider the user names and their own volume (issue 44).

Prices are the dated rows of knowledge/api_prices.yaml, converted at the catalog's
fx_to_cny of 2024-12-31 (US$1 = ¥7.1884); a month is 30 days (engine.api_compare).
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.money_words import providers_named
from gpu_advisor.text.normalize import normalize
from tests.dialogs import simplified, talk


def said(dialog: Dialog, *messages: str) -> str:
    reply, _ = talk(dialog, *messages)
    return simplified(reply.text)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("is renting cheaper than the OpenAI API?", ["OpenAI"]),
        ("每天 5000 万 token，租卡还是调 DeepSeek API 划算", ["DeepSeek"]),
        ("比 Claude 和 Gemini 便宜吗", ["Anthropic", "Google"]),
        ("用通义千问的 API 还是自己跑", ["Alibaba Bailian"]),
        ("跑 Qwen2.5-72B，自建还是调 API", []),  # a model run at home names no provider
    ],
)
def test_the_providers_a_message_names(text: str, named: list[str]) -> None:
    assert providers_named(normalize(text)) == named


def test_a_named_provider_is_priced_and_no_other(dialog: Dialog) -> None:
    text = said(dialog, "we process 30M tokens a day, is renting an A100 cheaper than the OpenAI API?")
    assert "OpenAI gpt-5.4-mini" in text and "2026-05-04" in text
    assert "qwen-" not in text and "deepseek" not in text.lower()


def test_input_and_output_said_apart_give_one_month_and_a_break_even(dialog: Dialog) -> None:
    text = said(
        dialog, "we send 5M input and 1M output tokens a day to Claude, would renting an H100 box be cheaper?"
    )
    # Haiku 4.5: US$1 in, US$5 out per million → (5 × 7.1884 + 1 × 35.942) × 30 = CN¥2,157
    assert "CN¥2,157/month" in text and "Past " in text
    assert "How many of those tokens are input" not in text


def test_one_price_for_every_token_needs_no_split_and_gives_the_break_even(dialog: Dialog) -> None:
    text = said(dialog, "API 每百万 token 8 元，每天 1000 万 token，租一张 A100 划算吗")
    assert "¥2,400/月" in text  # 10M × 30 × ¥8 / 1M
    assert "1,166.67万 token" in text  # ¥2,800 ÷ 30 ÷ ¥8 × 1M
    assert "各多少" not in text and "按你给的价格，调 API 更省" in text


def test_with_a_model_given_the_fit_question_is_not_asked_again(dialog: Dialog) -> None:
    text = said(dialog, "自建还是调 API：每天 2000 万 token，跑 Qwen2.5-72B")
    assert "租：¥5,600/月" in text  # the plan's pick for Qwen2.5-72B, 2 × A100 40GB
    assert "要跑的模型" not in text
