"""Admission on every surface, and a process that tells the truth about taking work (issue 40).

Every call that takes a turn worker's time passes one fair queue: web chat, engine requests,
the widget's chart and "start over", and Telegram's and Discord's turns and charts, each
costed first (``too_costly``). A refusal is cheap: the web decides it before the body is
read. /readyz says "not ready" when no request could start (every slot held past the wait,
or a worker dead), and the watchdog gives lost capacity back without waiting for traffic.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from gpu_advisor import knowledge, locales
from gpu_advisor.bot.admission import Admission
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.discord.app import DiscordConfig, build_bot
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.telegram.app import build_application, turn_of
from gpu_advisor.bot.telegram.config import TelegramConfig
from gpu_advisor.bot.turn import Conversations, Turn
from gpu_advisor.bot.turn_calls import Chat
from gpu_advisor.bot.web import WebConfig, build_app
from gpu_advisor.bot.web.app import watch
from gpu_advisor.bot.web.context import CONTEXT
from tests.test_admission import eventually

Client = TestClient[web.Request, web.Application]
DIALOG = Dialog(knowledge.load())


@asynccontextmanager
async def serving(tmp_path: Path, **overrides: Any) -> AsyncIterator[Client]:
    app = build_app(WebConfig(db_path=str(tmp_path / "web.db"), **overrides))
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        yield client


# --- the watchdog --------------------------------------------------------------------
async def test_the_watchdog_takes_back_a_slot_whose_request_ended_without_giving_it_back() -> None:
    admission = Admission(slots=2)

    async def leaky() -> None:
        await admission.acquire("a")  # and never released: a bug somewhere else

    await asyncio.create_task(leaky())
    assert admission.running == 1
    assert admission.reclaim() == 1 and admission.running == 0


async def test_the_watchdog_takes_back_a_slot_held_past_the_hard_limit() -> None:
    admission = Admission(slots=1, hard_limit_s=30.0)
    holder = await admission.acquire("a")
    assert admission.reclaim() == 0  # held a moment: in use
    holder.since -= 31.0
    assert admission.reclaim() == 1 and not holder.live
    assert not holder.release()  # the request's own release later is a no-op, not a second slot


# --- readiness -----------------------------------------------------------------------
async def test_readyz_is_not_ready_while_every_slot_is_held_past_the_wait_and_ready_once_freed(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path, workers=0, queue_wait_s=1.0) as client:
        admission = client.app[CONTEXT].admission
        holder = await admission.acquire("stuck")
        assert (await client.get("/readyz")).status == 200  # busy a moment is not stuck
        holder.since -= 2.0
        stuck = await client.get("/readyz")
        body = await stuck.json()
        holder.release()
        freed = await client.get("/readyz")
    assert stuck.status == 503 and body["checks"]["capacity"] is False
    assert freed.status == 200


async def test_a_dead_worker_makes_the_process_not_ready_until_the_watchdog_starts_another(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path, workers=1) as client:
        ctx = client.app[CONTEXT]
        (pid,) = ctx.turn.executor.pids
        os.kill(pid, signal.SIGKILL)
        assert await eventually(lambda: not ctx.turn.executor.capable)
        dead = await client.get("/readyz")
        dead_checks = (await dead.json())["checks"]
        watchdog = asyncio.create_task(watch(ctx, period_s=0.05))
        try:
            assert await eventually(lambda: ctx.turn.executor.capable, within_s=30.0)
        finally:
            watchdog.cancel()
        back = await client.get("/readyz")
    assert dead.status == 503 and dead_checks["workers"] is False
    assert back.status == 200 and ctx.turn.executor.pids != [pid]


# --- the widget's other calls, and cheap refusals ---------------------------------------
async def test_chart_and_forget_wait_their_turn_and_are_refused_503_when_the_queue_is_full(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path, queue_limit=0) as client:
        holder = await client.app[CONTEXT].admission.acquire("someone else")  # the one slot
        session = {"session_id": "s" * 24}
        chart = await client.post("/api/chat/chart", json=session, headers={"Accept-Language": "en"})
        body = await chart.json()
        forget = await client.post("/api/chat/forget", json=session)
        holder.release()
        after = await client.post("/api/chat/forget", json=session)
    assert chart.status == forget.status == 503 and chart.headers["Retry-After"]
    assert body["error"]["message"] == locales.t("en", "hardening.overloaded", seconds=2)
    assert after.status == 204


async def test_a_refusal_is_decided_before_the_body_is_read(tmp_path: Path) -> None:
    async with serving(tmp_path, queue_limit=0) as client:
        holder = await client.app[CONTEXT].admission.acquire("someone else")
        broken = await client.post(
            "/api/chat", data=b"{not json", headers={"Content-Type": "application/json"}
        )
        holder.release()
        read = await client.post("/api/chat", data=b"{not json", headers={"Content-Type": "application/json"})
    assert broken.status == 503  # refused unread: a parse would have said 422
    assert read.status == 422


# --- Telegram and Discord pass the same gate ----------------------------------------------
def _turn(tmp_path: Path, platform: str, admission: Admission) -> Turn:
    return Turn(Conversations(DIALOG, Store(tmp_path / "t.db"), platform), admission=admission)


async def test_a_bot_turn_refused_for_overload_says_busy_try_again_in_the_users_language(
    tmp_path: Path,
) -> None:
    admission = Admission(slots=1, queue_limit=0)
    turn = _turn(tmp_path, "telegram", admission)
    chat = Chat(7, 7, "en")
    holder = await admission.acquire("another user")
    turned = await turn.take(chat, "deploy a 13B model")
    holder.release()
    assert turned is not None and turned.refused == "busy" and turned.retry_after >= 1
    assert turned.reply.text == locales.t("en", "hardening.overloaded", seconds=turned.retry_after)
    answered = await turn.take(chat, "deploy a 13B model")
    assert answered is not None and answered.refused is None


async def test_a_bot_message_too_costly_to_read_is_refused_before_a_worker_in_the_users_language(
    tmp_path: Path,
) -> None:
    turn = _turn(tmp_path, "discord", Admission(slots=1))
    turned = await turn.take(Chat(7, 7, "zh-CN"), "\ufdfa" * 400)
    assert turned is not None and turned.refused == "cost"
    assert turned.reply.text == locales.t("zh", "hardening.too_costly", cost=7200, allowed=6000)


async def test_one_users_turns_queue_behind_their_own_share_while_another_user_gets_a_worker(
    tmp_path: Path,
) -> None:
    admission = Admission(slots=2, per_client_queue=1, queue_limit=8)
    turn = _turn(tmp_path, "telegram", admission)
    held = await admission.acquire(turn.client(Chat(1, 1, "en")))  # user 1 holds their one share
    mine = asyncio.create_task(turn.take(Chat(1, 1, "en"), "deploy a 7B model"))
    await eventually(lambda: admission.depth == 1)
    other = await asyncio.wait_for(turn.take(Chat(2, 2, "en"), "deploy a 7B model"), 10)
    assert other is not None and other.refused is None and not mine.done()
    held.release()
    assert (await mine) is not None


def test_the_telegram_and_discord_bots_admit_their_turns(tmp_path: Path) -> None:
    telegram = build_application(TelegramConfig(token="1:x", db_path=str(tmp_path / "tg.db")), dialog=DIALOG)
    discord = build_bot(DiscordConfig(token="unused", db_path=str(tmp_path / "d.db")), dialog=DIALOG)
    assert isinstance(turn_of(telegram).admission, Admission)
    assert isinstance(discord.conversations.turn.admission, Admission)
