"""Fault injection on the loopback Bot API: every user message gets exactly one answer."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.telegram_api import FakeTelegram
from tests.test_telegram_bot import running


async def test_a_duplicated_update_is_answered_once(tg: FakeTelegram, tmp_path: Path) -> None:
    user = tg.user(21, "Dup", "en")
    tg.duplicate_next_update()
    async with running(tg, tmp_path):
        tg.send_text(user, "/help")
        tg.send_text(user, "/gpu T4")
        await tg.wait_for("sendMessage", count=2)
        await tg.wait_for("getUpdates", count=len(tg.calls_of("getUpdates")) + 2)
    assert len(tg.calls_of("sendMessage")) == 2


async def test_a_dropped_connection_is_retried_and_delivered_once(tg: FakeTelegram, tmp_path: Path) -> None:
    user = tg.user(22, "Drop", "en")
    tg.drop_next("sendMessage")
    async with running(tg, tmp_path):
        tg.send_text(user, "/help")
        await tg.wait_for("sendMessage", timeout=10)
    assert len(tg.calls_of("sendMessage")) == 1


async def test_a_stalled_request_times_out_and_is_retried_once(tg: FakeTelegram, tmp_path: Path) -> None:
    user = tg.user(23, "Stall", "en")
    tg.delay_next("sendMessage", 30.0)  # longer than PTB's 5 s read timeout
    async with running(tg, tmp_path):
        tg.send_text(user, "/help")
        await tg.wait_for("sendMessage", timeout=20)
    assert len(tg.calls_of("sendMessage")) == 1
