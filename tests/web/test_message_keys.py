"""A chat message sent twice under its key is answered once (issue 47, bot.web.replies).

The widget resends a message after a reload cut its response, or after a 429/503, under the
key it made for it (``message_id``). The server must not run the turn again: a repeat gets
the first send's reply, byte for byte, whether it arrives after the first finished or while
it is still running; another server process sharing the database (``--processes``), which
never saw that reply, answers 409 ``duplicate`` and saves nothing (the store marked the key
in the first turn's transaction). A refused first send ran no
turn, so its repeat runs one; a new key is a new message.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from gpu_advisor.bot.web import WebConfig, build_app
from gpu_advisor.bot.web.context import CONTEXT
from gpu_advisor.bot.web.errors import ApiError, rate_limited
from gpu_advisor.bot.web.replies import Replies

QUESTION = "部署 13B 聊天机器人，并发 8，7×24"
KEY = "k3y-0f-the-first-message"


@asynccontextmanager
async def serving(db: Path, **config: Any) -> AsyncIterator[tuple[TestClient[Any, Any], list[str]]]:
    """A server over ``db``, and the texts of the turns it took (counted where the turn is taken)."""
    app = build_app(WebConfig(db_path=str(db), **config))
    ran: list[str] = []
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        turn = app[CONTEXT].turn
        take = turn.take

        async def counted(chat: Any, text: str | None = None, button: str | None = None, **kw: Any) -> Any:
            ran.append(text or button or "")
            return await take(chat, text, button, **kw)

        turn.take = counted  # type: ignore[method-assign]
        yield client, ran


async def send(client: TestClient[Any, Any], **body: Any) -> tuple[int, bytes]:
    response = await client.post(
        "/api/chat", data=json.dumps(body), headers={"Content-Type": "application/json"}
    )
    return response.status, await response.read()


async def started(client: TestClient[Any, Any]) -> str:
    status, body = await send(client, text=QUESTION, lang="zh")
    assert status == 200
    return str(json.loads(body)["session_id"])


async def test_a_repeated_key_gets_the_first_reply_without_a_second_turn(tmp_path: Path) -> None:
    async with serving(tmp_path / "web.db") as (client, ran):
        session = await started(client)
        first = await send(client, session_id=session, text="其实是 70B", message_id=KEY)
        again = await send(client, session_id=session, text="其实是 70B", message_id=KEY)
    assert first[0] == 200 and again == first
    assert ran.count("其实是 70B") == 1


async def test_a_repeat_that_arrives_while_the_first_runs_waits_for_its_reply(tmp_path: Path) -> None:
    async with serving(tmp_path / "web.db") as (client, ran):
        session = await started(client)
        both = await asyncio.gather(
            send(client, session_id=session, text="其实是 70B", message_id=KEY),
            send(client, session_id=session, text="其实是 70B", message_id=KEY),
        )
    assert both[0][0] == 200 and both[0] == both[1]
    assert ran.count("其实是 70B") == 1


async def test_a_repeat_is_answered_even_past_the_conversations_rate_limit(tmp_path: Path) -> None:
    async with serving(tmp_path / "web.db", session_per_minute=2) as (client, ran):
        session = await started(client)
        first = await send(client, session_id=session, text="其实是 70B", message_id=KEY)
        refused, _ = await send(client, session_id=session, text="预算 5000", message_id=KEY + "-2")
        again = await send(client, session_id=session, text="其实是 70B", message_id=KEY)
    assert refused == 429  # a new message waits…
    assert first[0] == 200 and again == first  # …a repeat asks nothing new: its reply, at once
    assert ran.count("其实是 70B") == 1


async def test_a_new_key_is_a_new_message(tmp_path: Path) -> None:
    async with serving(tmp_path / "web.db") as (client, ran):
        session = await started(client)
        await send(client, session_id=session, text="其实是 70B", message_id=KEY)
        status, _ = await send(client, session_id=session, text="其实是 70B", message_id=KEY + "-2")
    assert status == 200 and ran.count("其实是 70B") == 2


async def test_another_process_on_the_same_database_answers_a_repeat_409_and_changes_nothing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "web.db"
    async with serving(db) as (client, _):
        session = await started(client)
        await send(client, session_id=session, text="其实是 70B", message_id=KEY)
        kept = client.app[CONTEXT].store.load("web", session, session)
    async with serving(db) as (other, _):  # a second process: it never saw the reply
        status, body = await send(other, session_id=session, text="其实是 70B", message_id=KEY, lang="zh")
        after = other.app[CONTEXT].store.load("web", session, session)
    error = json.loads(body)["error"]
    assert status == 409 and error["code"] == "duplicate" and "已经回答过" in error["message"]
    assert kept.slots.get("params_b") == 70 and after == kept  # the store marked the key: nothing saved twice


async def test_a_refused_first_send_is_not_remembered_so_its_repeat_runs() -> None:
    replies, calls = Replies(), []

    async def answer() -> web.Response:
        calls.append(1)
        if len(calls) == 1:
            raise rate_limited("conversation")  # refused: no turn ran
        return web.Response(text="the reply")

    with pytest.raises(ApiError):  # the handler's 429
        await replies.once("session", KEY, answer)
    second = await replies.once("session", KEY, answer)
    assert second.text == "the reply" and len(calls) == 2


async def test_a_session_remembers_only_its_recent_keys() -> None:
    from gpu_advisor.bot.web.replies import PER_SESSION

    replies, calls = Replies(), []

    async def answer() -> web.Response:
        calls.append(1)
        return web.Response(text=str(len(calls)))

    for n in range(PER_SESSION + 1):
        await replies.once("session", f"key-{n:04d}", answer)
    again_last = await replies.once("session", f"key-{PER_SESSION:04d}", answer)
    again_first = await replies.once("session", "key-0000", answer)
    assert again_last.text == str(PER_SESSION + 1)  # still remembered
    assert again_first.text == str(PER_SESSION + 2)  # pushed out by newer keys: run again
