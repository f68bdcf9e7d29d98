"""A fit question about one training method answers that method first
(bot.dialog.verdicts.asked_first), the other ways after it."""

from __future__ import annotations

from gpu_advisor.bot.dialog import ConversationState, Dialog


def _title(dialog: Dialog, text: str) -> str:
    reply, _ = dialog.handle(ConversationState(), text)
    return reply.title or ""


def test_a_chinese_lora_question_leads_with_lora(dialog: Dialog) -> None:
    title = _title(dialog, "LoRA 微调 Qwen2.5-14B 一张 A100 80G 够不够")
    assert title.split("：", 1)[1].startswith("LoRA 能")


def test_an_english_qlora_question_leads_with_qlora(dialog: Dialog) -> None:
    title = _title(dialog, "can I QLoRA Llama-3.1-70B on one A100 80GB?")
    assert title.split(": ", 1)[1].startswith("QLoRA: yes")


def test_a_traditional_qlora_question_leads_with_qlora(dialog: Dialog) -> None:
    title = _title(dialog, "用一張 4090 做 QLoRA 微調 qwen2.5 14b 可以嗎")
    assert title.split("：", 1)[1].startswith("QLoRA 能")


def test_the_first_line_under_the_title_is_the_method_asked(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "QLoRA 训练 Llama-3.1-8B，单张 3090 可以吗")
    assert reply.summary[0].startswith("QLoRA：能")
