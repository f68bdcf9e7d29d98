"""A non-LLM job on Telegram: the job's question comes with buttons, and pressing one gives the
job's priced card, through the real bot over the loopback Bot API (``tests.fakes``)."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.telegram_api import FakeTelegram
from tests.test_telegram_bot import running


async def test_an_image_service_is_asked_its_volume_and_answered_with_its_own_model(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    alice = tg.user(1101, "Alice", lang="zh")
    async with running(tg, tmp_path):
        tg.send_text(alice, "SDXL 租什么卡")
        (question,) = await tg.wait_for("sendMessage")
        keyboard = question.params["reply_markup"]["inline_keyboard"]
        data = keyboard[0][0]["callback_data"]
        assert "jq:images_per_day:" in data  # the surface may prefix its own routing
        tg.press(alice, question, data)
        (edit,) = await tg.wait_for("editMessageText")
    answer = str(edit.params["text"])
    assert "SDXL" in answer and "¥" in answer and "/月" in answer  # the model named as the user wrote it
    assert "Llama" not in answer and "Qwen" not in answer
