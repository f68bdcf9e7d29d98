"""A message in Traditional characters is answered in Traditional (bot.dialog.script)."""

from __future__ import annotations

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.bot.dialog.script import traditional, writes_traditional

SIMPLIFIED_ONLY = "这说么们发个时价网络训练预计显"


def test_a_traditional_message_gets_a_traditional_reply(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "部署 Qwen2.5-7B 給客服用，大概 20 人同時在線")
    assert "並發" in reply.text and not any(ch in reply.text for ch in SIMPLIFIED_ONLY)


def test_button_labels_follow_the_script(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "部署 Qwen2.5-7B 給客服用")
    assert any("幾十人" in b.label for b in reply.buttons)


def test_a_simplified_message_stays_simplified(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "部署 Qwen2.5-7B 给客服用，大概 20 人同时在线")
    assert "并发" in reply.text and "並發" not in reply.text


def test_a_message_without_hanzi_keeps_the_conversations_script(dialog: Dialog) -> None:
    _, state = dialog.handle(ConversationState(), "部署 Qwen2.5-7B 給客服用，大概 20 人同時在線")
    reply, state = dialog.handle(state, "7x24")
    assert state.hant and "推薦" in reply.text


def test_english_is_never_converted(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "serve qwen2.5 7b for 20 users 24/7")
    assert reply.text.isascii() or "¥" in reply.text


def test_only_is_never_the_measure_word_and_concurrency_is_the_taiwan_form() -> None:
    assert traditional("还是只跑一段时间？20 路并发") == "還是只跑一段時間？20 路並發"


def test_traditional_writing_is_told_by_characters_simplified_lacks() -> None:
    assert writes_traditional("預算每月五萬") and not writes_traditional("预算每月五万")
    assert not writes_traditional("部署 7B")
