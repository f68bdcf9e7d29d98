"""A non-LLM job on Discord: ``/advise`` with an image-service question asks its volume with
buttons, and a click edits in the job's priced card (the real bot against ``tests.fakes``)."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.discord_api import FakeDiscord
from tests.test_discord_bot import buttons, fake, running, shown_text, title

__all__ = ["fake"]  # the fixture, imported so pytest finds it here


async def test_an_image_service_is_asked_its_volume_and_answered_with_its_own_model(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    alice = fake.user(1101, "alice", locale="zh-CN")
    async with running(fake, tmp_path):
        ask = await fake.slash(alice, "advise", text="SDXL 租什么卡")
        (question,) = await fake.replies(ask)
        assert any("jq:images_per_day:" in b for b in buttons(question))
        click = await fake.click(alice, question, buttons(question)[1])
        (answer,) = await fake.replies(click)
    assert "¥" in title(answer) and "/月" in title(answer)
    assert "SDXL" in shown_text(answer) and "Llama" not in shown_text(answer)  # the name as written
