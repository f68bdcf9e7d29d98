"""A model the user named is said back in the user's spelling (bot.dialog.spelling).

"Llama-3.1-8B" answered as "Llama 3.1 8B" reads like an answer about another model; the
chat says the name as typed, while the JSON keeps the catalog id and commands stay verbatim.
"""

from __future__ import annotations

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.locales.names import respelled, spelled


def _reply_text(dialog: Dialog, text: str) -> str:
    reply, _ = dialog.handle(ConversationState(), text)
    return reply.text


def test_an_english_fit_question_names_the_model_as_typed(dialog: Dialog) -> None:
    said = _reply_text(dialog, "is one L4 enough for Qwen2.5-7B in bf16?")
    assert "Qwen2.5-7B" in said and "Qwen2.5 7B" not in said


def test_a_chinese_fit_question_keeps_the_users_lower_case(dialog: Dialog) -> None:
    said = _reply_text(dialog, "一张 4090 能跑 llama-3.1-8b 吗")
    assert "llama-3.1-8b" in said and "Llama 3.1 8B" not in said


def test_a_traditional_question_keeps_the_users_spelling(dialog: Dialog) -> None:
    said = _reply_text(dialog, "一張 L40S 跑得動 Mistral-7B 嗎")
    assert "Mistral-7B" in said and "Mistral 7B v0.1" not in said


def test_the_reply_json_keeps_the_catalog_id(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "部署 Mistral-7B，并发 12，租什么卡")
    assert reply.requirements["model"] == "mistral-7b" and "Mistral-7B" in reply.text


def test_a_one_shot_answer_names_the_model_as_typed(dialog: Dialog) -> None:
    reply = dialog.quick("serve qwen2.5 14b for a small team", lang="en")
    assert "qwen2.5 14b" in reply.text


def test_the_span_is_found_in_full_width_letters_too() -> None:
    assert spelled("部署 Ｑｗｅｎ2.5-7B", [("Qwen2.5 7B", "qwen2.5-7b")]) == {"Qwen2.5 7B": "Qwen2.5-7B"}


def test_a_longer_name_that_contains_the_display_name_is_left_alone() -> None:
    line = "Llama 3.1 8B Instruct AWQ beats Llama 3.1 8B here"
    assert (
        respelled(line, {"Llama 3.1 8B": "llama3.1-8b"}) == "Llama 3.1 8B Instruct AWQ beats llama3.1-8b here"
    )
