"""Telegram in webhook mode served by two processes on one port, over one PostgreSQL database.

``gpu-advisor telegram --webhook-url … --processes 2`` as an operator starts it, against the
loopback Bot API. Updates are POSTed the way Telegram's Bot API server delivers them: each
chat's next update only after the previous delivery was answered, all chats at once, each
POST a new connection, so the kernel (SO_REUSEPORT) gives it to either process. Every
update must be answered exactly once, each chat's answers in the order it asked.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bench.scale_bench import listening_ports
from gpu_advisor.bot.telegram import run
from gpu_advisor.bot.telegram.webhook import VARIABLE
from tests.fakes.telegram_api import FakeTelegram, User
from tests.pg import Cluster
from tests.test_telegram_bot import TOKEN

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT")
PROCESSES, CHATS, TURNS = 2, 20, 5
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
WORDS = ("hi", "7b chat model", "30 users", "budget 2000 usd", "/help")


def _port_of_children(supervisor: int) -> int:
    """The one port every child of the supervisor listens on (Linux: /proc)."""
    with open(f"/proc/{supervisor}/task/{supervisor}/children") as f:
        pids = [int(pid) for pid in f.read().split()]
    ports = set.intersection(*(listening_ports(pid) for pid in pids))
    assert len(pids) == PROCESSES and len(ports) == 1, (pids, ports)
    return ports.pop()


@asynccontextmanager
async def webhook_processes(tg: FakeTelegram, database_url: str, tmp_path: Path) -> AsyncIterator[str]:
    """The CLI's supervisor and its children, until every child has registered the webhook; the
    URL they serve. The port is the kernel's pick (``--port 0``: the supervisor holds it for its
    children), read back from the children, never found free here and bound later."""
    url = "https://bot.example/telegram"  # what Telegram is told: a proxy in front, in production
    env = {key: value for key, value in os.environ.items() if not key.startswith(VARIABLE)}
    env |= {"TELEGRAM_BOT_TOKEN": TOKEN}
    argv = ["--database-url", database_url, "telegram", "--base-url", tg.base_url, "--webhook-url", url]
    argv += ["--port", "0", "--processes", str(PROCESSES), "--workers", "0"]
    argv += ["--db", str(tmp_path / "tg.db")]
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gpu_advisor.bot.cli", *argv, env=env)
    try:
        await tg.wait_for("setWebhook", count=PROCESSES, timeout=60)
        yield f"http://127.0.0.1:{_port_of_children(proc.pid)}/telegram"
    finally:
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 30)


async def deliver(session: aiohttp.ClientSession, url: str, secret: str, update: dict[str, Any]) -> int:
    async with session.post(url, json=update, headers={SECRET_HEADER: secret}) as resp:
        return resp.status


async def converse(tg: FakeTelegram, session: aiohttp.ClientSession, url: str, user: User) -> list[int]:
    """One chat's turns, each delivered once the previous delivery was answered, as Telegram does."""
    asked: list[int] = []
    for text in WORDS[:TURNS]:
        update = tg._queued(tg.send_text(user, text))
        asked.append(update["message"]["message_id"])
        assert await deliver(session, url, tg.webhook["secret_token"], update) == 200
    return asked


def answers(tg: FakeTelegram) -> dict[int, list[tuple[int, str]]]:
    """Per chat, the bot's messages (id, text) in the order it sent them.

    Telegram (and the fake) number a chat's messages one after another, the user's and the
    bot's alike: the answer to user message ``m`` is ``m + 1`` exactly when it was sent
    before the chat's next update was delivered.
    """
    sent: dict[int, list[tuple[int, str]]] = {}
    for call in tg.calls_of("sendMessage"):
        sent.setdefault(call.result["chat"]["id"], []).append(
            (call.result["message_id"], call.params["text"])
        )
    return sent


@pytest.fixture
def database_url(pg_cluster: Cluster) -> str:
    return pg_cluster.fresh_url()


async def test_every_update_over_two_processes_is_answered_once_in_each_chats_order(
    tg: FakeTelegram, database_url: str, tmp_path: Path
) -> None:
    users = [tg.user(1000 + i, f"User {i}", "en") for i in range(CHATS)]
    async with (
        webhook_processes(tg, database_url, tmp_path) as url,
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session,
    ):
        asked = await asyncio.gather(*(converse(tg, session, url, user) for user in users))
    sent = answers(tg)
    for user, messages in zip(users, asked, strict=True):
        ids = [message_id for message_id, _ in sent[user.id]]
        assert ids == [m + 1 for m in messages]  # each answered once, before the chat's next update
        assert "7B" in sent[user.id][1][1]  # the second answer is to the second question


async def test_an_update_delivered_twice_at_once_is_answered_once(
    tg: FakeTelegram, database_url: str, tmp_path: Path
) -> None:
    user = tg.user(2000, "Twice", "en")
    async with (
        webhook_processes(tg, database_url, tmp_path) as url,
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session,
    ):
        update = tg._queued(tg.send_text(user, "7b chat model"))
        secret = tg.webhook["secret_token"]
        statuses = await asyncio.gather(*(deliver(session, url, secret, update) for _ in range(4)))
        assert statuses == [200] * 4
    assert [message_id for message_id, _ in answers(tg)[user.id]] == [update["message"]["message_id"] + 1]


def test_several_processes_with_long_polling_refuse_to_start_saying_why() -> None:
    args = argparse.Namespace(processes=2, webhook_url=None)
    with pytest.raises(SystemExit, match="--processes needs --webhook-url"):
        run.main(args)
