"""The chat side of money questions: a quote or a buy/rent question answered in one screen."""

from __future__ import annotations

import time

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.dialog.money import (
    ownership_answer,
    ownership_answerer,
    quote_answer,
    quote_answerer,
    quote_cmd,
    quote_command,
)
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.message import read_message
from gpu_advisor.text.normalize import normalize

SERVE_72B = {"model": "qwen2.5-72b", "task": "infer", "qps": 2}
H100_SERVICE = {"model": "deepseek-v3", "qps": 1, "gpu": "h100", "gpu_count": 8}


def test_a_pasted_quote_gets_its_billing_arithmetic_and_break_even(kb: Knowledge) -> None:
    c = quote_answer(kb, normalize("H100 整机每小时 ¥180 或包月 ¥9 万"), "zh", SERVE_72B)
    assert c is not None and c.title is not None
    text = c.as_text()
    assert "装得下" in c.title
    assert "720 小时 × ¥180" in text and "¥129,600" in text  # 720 h × ¥180
    assert "500 小时" in text  # 90,000 / 180
    assert "¥10,000–¥15,000" in text  # the catalog's range for the card


def test_a_usd_quote_is_never_printed_as_yuan(kb: Knowledge) -> None:
    c = quote_answer(kb, normalize("$2.5/hr per H100"), "en", SERVE_72B)
    assert c is not None and c.title is not None
    assert "US$2.5/card-hour" in c.title
    assert "US$1,800 per card-month" in c.as_text()
    assert "CN¥1,800" not in c.as_text()


def test_a_yearly_discount_is_shown_with_its_product(kb: Knowledge) -> None:
    c = quote_answer(kb, normalize("8×A800 80G ¥58,000/月 年付85折"), "zh", SERVE_72B)
    assert c is not None
    assert "年付 ¥49,300/月（¥58,000 × 85%）" in c.as_text()


def test_a_budget_is_not_taken_for_a_quote(kb: Knowledge) -> None:
    assert quote_answer(kb, normalize("预算 ¥5000/月，想跑 4090"), "zh", SERVE_72B) is None


def test_text_without_a_price_passes(kb: Knowledge) -> None:
    assert quote_answer(kb, normalize("H100 能跑 72B 吗"), "zh", SERVE_72B) is None


def test_a_quote_without_a_model_gets_its_money_first_then_the_model_question(kb: Knowledge) -> None:
    c = quote_answer(kb, normalize("4090 ¥1.6/卡时"), "zh", {})
    assert c is not None and "¥1,152" in c.as_text()  # 720 h × ¥1.6: a month of the card, no model needed
    assert "模型" in c.as_text()  # then the fit check is offered (issue 44)


def test_the_quote_command_without_a_quote_says_how_to_paste_one(kb: Knowledge) -> None:
    assert "/quote" in quote_command(kb, "", "en", SERVE_72B).as_text()


def test_buy_or_rent_is_answered_with_the_payback_months(kb: Knowledge) -> None:
    c = ownership_answer(kb, normalize("买卡还是租卡？电费 0.6 元一度"), "zh", H100_SERVICE)
    assert c is not None
    text = c.as_text()
    assert "26.1 个月回本" in text  # 1,940,868 / (80,000 − 5,728.32)
    assert "10.2 kW × 720 小时 × PUE 1.3 × ¥0.6/度 = ¥5,728" in text


def test_an_electricity_price_alone_is_an_ownership_input(kb: Knowledge) -> None:
    c = ownership_answer(kb, normalize("工业电 1 块"), "zh", H100_SERVICE)
    assert c is not None and "¥1/度" in c.as_text()


def test_a_plain_sizing_question_is_not_a_buy_or_rent_question(kb: Knowledge) -> None:
    assert ownership_answer(kb, normalize("7B 推理要什么卡"), "zh", H100_SERVICE) is None


def test_the_quote_answerer_judges_a_quote_and_keeps_no_budget_from_it(dialog: Dialog) -> None:
    state = ConversationState(slots=dict(SERVE_72B))
    msg = read_message("8×A800 80G ¥58,000/月 年付85折 划算吗", dialog.vocab)
    answered = quote_answerer(dialog, state, msg)
    assert answered is not None
    reply, new = answered
    assert reply.kind == "answer" and "¥49,300" in reply.text
    assert "budget" not in new.slots and new.slots["model"] == "qwen2.5-72b"


def test_an_electricity_price_is_not_kept_as_a_budget(dialog: Dialog) -> None:
    state = ConversationState(slots=dict(H100_SERVICE))
    answered = ownership_answerer(dialog, state, read_message("电费 0.6 元一度", dialog.vocab))
    assert answered is not None
    reply, new = answered
    assert "¥0.6/度" in reply.text and "budget" not in new.slots


def test_the_quote_command_answers_with_the_conversations_workload(dialog: Dialog) -> None:
    reply, _ = quote_cmd(dialog, ConversationState(slots=dict(SERVE_72B)), "4090 ¥1.6/卡时")
    assert "¥1.6/卡时" in reply.text


@pytest.mark.parametrize(
    "text",
    [
        "7B 推理，预算 2000/月",
        "一张 4090 包月多少钱",
        "我想部署一个13B的模型",
        "serve llama 3 8b for 50 users under $500 a month",
        "并发 20，上下文 8k",
    ],
)
def test_ordinary_requirements_pass_both_money_answerers(dialog: Dialog, text: str) -> None:
    state = ConversationState(slots=dict(SERVE_72B))
    msg = read_message(text, dialog.vocab)
    assert quote_answerer(dialog, state, msg) is None
    assert ownership_answerer(dialog, state, msg) is None


@pytest.mark.parametrize("filler", [" ", "买", "还是", "租", "api ", "8", "¥"])
def test_pathological_text_is_answered_or_passed_quickly(kb: Knowledge, filler: str) -> None:
    started = time.perf_counter()
    quote_answer(kb, normalize("1" + filler * 2000 + "!"), "zh", SERVE_72B)
    ownership_answer(kb, normalize("1" + filler * 2000 + "!"), "zh", {})
    assert time.perf_counter() - started < 1.0
