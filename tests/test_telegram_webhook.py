"""Webhook mode: the real PTB Application behind its real webhook server, against the loopback Bot API.

A forged update must not run an admin command: the secret that Telegram echoes in
``X-Telegram-Bot-Api-Secret-Token`` is long, random, private to the bot's data
directory, and never the bot id (which every user can read).
"""

from __future__ import annotations

import argparse
import asyncio
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from telegram.ext import Application

from gpu_advisor.bot.store import Store
from gpu_advisor.bot.telegram.app import TelegramConfig, build_application, turn_of
from gpu_advisor.bot.telegram.run import webhook_options
from gpu_advisor.bot.telegram.webhook import FILE_NAME, MIN_CHARS, VARIABLE, webhook_secret
from tests.fakes.telegram_api import FakeTelegram
from tests.listening import loopback_listener, port_of
from tests.test_telegram_bot import DIALOG, TOKEN

ADMIN = 8
BOT_ID = TOKEN.split(":")[0]  # the old default secret: visible to anyone who talks to the bot


def _args(tmp_path: Path, port: int) -> argparse.Namespace:
    return argparse.Namespace(
        listen="127.0.0.1",
        port=port,
        webhook_url=f"http://127.0.0.1:{port}/telegram",
        db=str(tmp_path / "tg.db"),
    )


@asynccontextmanager
async def webhook_bot(tg: FakeTelegram, tmp_path: Path) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    """The bot as ``gpu-advisor telegram --webhook-url`` starts it, with the same webhook options."""
    listener = loopback_listener()  # bound here and handed over: never a port found free, bound later
    args = _args(tmp_path, port_of(listener))
    config = TelegramConfig(
        token=TOKEN, base_url=tg.base_url, db_path=args.db, admin_ids=frozenset({ADMIN}), workers=0
    )
    app = build_application(config, dialog=DIALOG, store=Store(args.db))
    async with app:
        await turn_of(app).executor.initialize()
        await app.start()
        assert app.updater is not None
        options = {k: v for k, v in webhook_options(args).items() if k not in ("listen", "port")}
        await app.updater.start_webhook(**options, unix=listener)
        try:
            yield app
        finally:
            await asyncio.wait_for(app.updater.stop(), 5)
            await asyncio.wait_for(app.stop(), 5)
            await turn_of(app).executor.shutdown()


@pytest.fixture(autouse=True)
def _no_operator_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    monkeypatch.delenv(f"{VARIABLE}_FILE", raising=False)


async def test_the_registered_secret_is_long_and_not_the_bot_id(tg: FakeTelegram, tmp_path: Path) -> None:
    async with webhook_bot(tg, tmp_path):
        secret = tg.webhook["secret_token"]
    assert len(secret) >= MIN_CHARS
    assert BOT_ID not in secret and secret != "123"


async def test_the_generated_secret_is_kept_owner_only_beside_the_database(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    async with webhook_bot(tg, tmp_path):
        secret = tg.webhook["secret_token"]
    kept = tmp_path / FILE_NAME
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert kept.read_text(encoding="utf-8").strip() == secret


async def test_a_restart_registers_the_same_secret(tg: FakeTelegram, tmp_path: Path) -> None:
    async with webhook_bot(tg, tmp_path):
        first = tg.webhook["secret_token"]
    async with webhook_bot(tg, tmp_path):
        assert tg.webhook["secret_token"] == first


async def test_an_update_forged_with_the_bot_id_is_refused_and_runs_nothing(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    admin = tg.user(ADMIN, "Admin", "en")
    async with webhook_bot(tg, tmp_path):
        url = tg.webhook["url"]
        assert await tg.post_update_to(url, tg.send_text(admin, "/stats"), secret_token=BOT_ID) == 403
        assert await tg.post_update_to(url, tg.send_text(admin, "/reload_catalog")) == 403
        assert await tg.deliver_to_webhook(tg.send_text(admin, "/help")) == 200
        (sent,) = await tg.wait_for("sendMessage")  # the genuine update is answered...
    # ...and it is the only thing that ran: no statistics, no reload.
    assert len(tg.calls_of("sendMessage")) == 1
    assert "conversations" not in str(sent.params["text"]) and "reloaded" not in str(sent.params["text"])


def test_a_short_operator_secret_refuses_to_start(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=f"at least {MIN_CHARS}"):
        webhook_secret(tmp_path, {VARIABLE: BOT_ID})


def test_an_operator_secret_with_characters_telegram_refuses_is_refused_here(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="A-Z a-z 0-9"):
        webhook_secret(tmp_path, {VARIABLE: "x" * 40 + "!"})


def test_a_long_operator_secret_is_used_as_given_and_nothing_is_written(tmp_path: Path) -> None:
    given = "o" * MIN_CHARS
    assert webhook_secret(tmp_path, {VARIABLE: given}) == given
    assert not (tmp_path / FILE_NAME).exists()


def test_a_kept_secret_readable_by_others_is_tightened(tmp_path: Path) -> None:
    first = webhook_secret(tmp_path, {})
    (tmp_path / FILE_NAME).chmod(0o644)
    assert webhook_secret(tmp_path, {}) == first
    assert stat.S_IMODE((tmp_path / FILE_NAME).stat().st_mode) == 0o600


async def test_a_delivery_with_the_right_secret_that_is_not_json_is_refused_400_and_the_bot_carries_on(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    import aiohttp

    user = tg.user(ADMIN, "Admin", "en")
    async with webhook_bot(tg, tmp_path):
        url, secret = tg.webhook["url"], tg.webhook["secret_token"]
        statuses = []
        async with aiohttp.ClientSession() as http:
            for body in (b"{not json", b"\xff\xfe", b"[1, 2]", b"[" * 5000):
                headers = {"X-Telegram-Bot-Api-Secret-Token": secret, "Content-Type": "application/json"}
                async with http.post(url, data=body, headers=headers) as response:
                    statuses.append(response.status)
        assert statuses == [400, 400, 400, 400]
        assert await tg.deliver_to_webhook(tg.send_text(user, "/help")) == 200
        assert await tg.wait_for("sendMessage")
