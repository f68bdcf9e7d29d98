"""Classes of misreading reported after the fourth pass (issue 42), held with phrasings of our own.

Each test is a class, not a sentence: a verdict asked as a tag after a statement of hardware
and job ("… — ok?", "…，可行吗"); "what's X" of a domain term; a cost asked with "what would
… cost me"; a count written "8-GPU" or away from the card's name; a price noun inside a
comparison (价差, prices); Traditional spellings of paying and renting (月繳, 租賃, 結算).
None of these phrasings is a corpus line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.reading.message import Message, read_message
from gpu_advisor.reading.period import HOURS, read_period
from gpu_advisor.text.hanzi import simplified


def read(dialog: Dialog, text: str) -> Message:
    return read_message(text, dialog.vocab)


# --- a verdict asked as a tag ---------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "LoRA on Qwen2.5-14B with one L4 — doable?",
        "serving Mistral-7B fp16 on a single A10G, feasible?",
        "Llama-3.1-8B QLoRA on one 3090, ok?",
        "两张 4090 跑 Qwen2.5-72B AWQ，行吗",
        "單張 L40S 微調 14B，可行嗎",
    ],
)
def test_a_statement_of_hardware_and_job_closed_by_a_tag_asks_a_verdict(dialog: Dialog, text: str) -> None:
    msg = read(dialog, text)
    assert (msg.intent, msg.form.yes_no) == ("fit", True)


def test_a_tag_without_hardware_or_job_is_no_verdict(dialog: Dialog) -> None:
    assert read(dialog, "what's up").intent == "small_talk"


def test_a_month_written_with_ge_is_not_one_card(dialog: Dialog) -> None:
    """ "A100 一个月": 一个 before 月 counts the months, not the cards."""
    assert "gpu_count" not in read(dialog, "A100 一个月多少钱").slots


# --- what a domain term is ------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    ["what's NVLink and do I need it for two cards?", "whats a KV cache?", "what's FP8?", "NVLink 是啥"],
)
def test_what_a_term_is_asks_a_concept(dialog: Dialog, text: str) -> None:
    assert read(dialog, text).intent == "concept"


# --- what something would cost ------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "What would four L40S cost us over a quarter?",
        "what will a 2x A100 box cost me per month",
        "roughly what does an H100 node cost?",
        "how much would 2x L40S set me back a month?",
        "4-GPU A100 node for a year, what's the damage?",
    ],
)
def test_what_hardware_would_cost_asks_a_price(dialog: Dialog, text: str) -> None:
    msg = read(dialog, text)
    assert (msg.intent, msg.form.price) == ("price", True)


def test_a_full_year_is_a_year_of_rent() -> None:
    assert read_period("what would 4 a100 cost for one full year?").hours == HOURS["year"]


# --- a count written with its hardware ------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("a 4-GPU L40S server", 4),
        ("8-card H100 machine, monthly price?", 8),
        ("an 8-GPU box of A100s per month?", 8),
        ("4卡服务器 L40S 包月多少", 4),
        ("八卡机 L40S 一个月多少钱", 8),
        ("an 8-way A100 box, monthly price?", 8),
    ],
)
def test_a_count_written_with_the_machine_is_the_cards_count(dialog: Dialog, text: str, count: int) -> None:
    msg = read(dialog, text)
    assert msg.slots["gpu_count"] == count
    assert [c for _, c in msg.ext.gpu_mentions] == [count]  # what the price reader prices


def test_a_machine_counted_apart_from_its_card_is_priced_for_all_its_cards(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(lang="en"), "4-GPU box of A100 80G, price per month?")
    assert "4 ×" in reply.text


# --- money nouns in a question ---------------------------------------------------------------
@pytest.mark.parametrize(
    "text", ["L40S 跟 A6000 的差价", "H100 和 H200 价差大吗", "A10G vs L4 prices", "cost difference L4 vs T4"]
)
def test_a_price_noun_makes_a_price_form(dialog: Dialog, text: str) -> None:
    assert read(dialog, text).form.price


# --- Traditional spellings of paying and renting ---------------------------------------------
@pytest.mark.parametrize(
    ("traditional", "simple"),
    [("月繳", "月缴"), ("租賃", "租赁"), ("結算", "结算"), ("競價", "竞价"), ("稅", "税"), ("計費", "计费")],
)
def test_billing_words_in_traditional_read_as_their_simplified_twins(traditional: str, simple: str) -> None:
    assert simplified(traditional) == simple


@pytest.mark.parametrize(
    "text",
    [
        "月繳多少",
        "L4 季繳多少",
        "租賃一張 A100，年繳要多少",
        "L40S 顯卡租賃怎麼計費",
        "A100 年繳有折扣嗎",
        "how is an L40S billed?",
    ],
)
def test_a_traditional_payment_question_asks_a_price(dialog: Dialog, text: str) -> None:
    msg = read(dialog, text)
    assert (msg.intent, msg.form.price) == ("price", True)


def test_a_cards_name_is_never_a_count_of_months(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "L40S 月繳多少")
    assert "1 個月" in reply.text
    assert "40 個月" not in reply.text


# --- what the dialog used to hear itself, on the reading ---------------------------------------
def test_every_question_a_message_asks_is_on_the_reading(dialog: Dialog) -> None:
    msg = read(dialog, "一张 L40S 能跑 Qwen2.5-32B 吗，包月多少")
    assert {"fit", "price"} <= msg.asked
    assert msg.intent in msg.asked


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("最低價能租到什麼", "cheapest"),
        ("lowest priced card you have?", "cheapest"),
        ("A100 切一个 MIG 多少钱", "slice"),
        ("那换成 L40S 呢", "swap"),
        ("顺便也要做 LoRA 微调", "also"),
        ("T4 的 FP16 是 65 TFLOPS 对吧", "claim_asked"),
        ("4090 和 3090 价差多少", "compare_money"),
        ("单卡 4090 QLoRA 微调 Qwen2.5-7B 行吗", "train"),
    ],
)
def test_a_word_class_the_answerers_test_is_heard_by_the_reading(
    dialog: Dialog, text: str, word: str
) -> None:
    assert word in read(dialog, text).heard


def test_hearsay_inside_a_job_description_is_no_claim_asked(dialog: Dialog) -> None:
    assert "claim_asked" not in read(dialog, "听说 vLLM 快，部署 Qwen2.5-7B，并发 20").heard


@pytest.mark.parametrize(
    ("text", "lead"),
    [
        ("Llama-3.1-8B QLoRA on one 3090, ok?", "1× RTX 3090 training Llama-3.1-8B"),
        ("serve Qwen2.5-14B fp16 on 2x L4, possible?", "2× L4 serving Qwen2.5-14B"),
    ],
)
def test_a_verdict_asked_as_a_tag_is_answered_with_the_verdict(dialog: Dialog, text: str, lead: str) -> None:
    reply, _ = dialog.handle(ConversationState(lang="en"), text)
    assert reply.text.startswith(lead)


DIALOG = Path(__file__).resolve().parents[2] / "src" / "gpu_advisor" / "bot" / "dialog"


@pytest.mark.parametrize("module", ["verdicts.py", "faq.py", "cheapest.py", "merge.py"])
def test_these_answerers_read_the_reading_not_the_text(module: str) -> None:
    """No pattern is imported into them and none is run on the message's text."""
    tree = ast.parse((DIALOG / module).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"gpu_advisor.text.lazy", "gpu_advisor.reading.dialog_words", "re"}
    calls = [
        n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    ]
    assert not {"search", "match", "fullmatch", "finditer", "findall"} & set(calls)
