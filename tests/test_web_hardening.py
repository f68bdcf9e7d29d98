"""Issue 14, the web surface: slow turns, session caps, idle floods, short tokens, a full disk.

Real aiohttp servers on 127.0.0.1 with real clients; the only thing instrumented is the
dialog (``tests.fakes.slow_dialog``), which stalls on one message like a runaway parser.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from gpu_advisor import knowledge, locales
from gpu_advisor.bot.web import WebConfig, build_app
from gpu_advisor.bot.web.context import CONTEXT
from gpu_advisor.bot.web.run import add_web_command, config_from
from gpu_advisor.bot.web.server import listen
from tests.fakes.slow_dialog import STALL, SlowDialog
from tests.test_web_api import TOKEN, YAML_CATALOG, post, upload

Client = TestClient[web.Request, web.Application]


@asynccontextmanager
async def serving(tmp_path: Path, slow: bool = False, **overrides: Any) -> AsyncIterator[Client]:
    config = WebConfig(db_path=str(tmp_path / "web.db"), admin_token=TOKEN, **overrides)
    app = build_app(config, dialog=SlowDialog(knowledge.load()) if slow else None)
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        yield client


async def eventually(condition: Callable[[], bool], within_s: float = 20.0) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while not condition() and loop.time() < deadline:
        await asyncio.sleep(0.05)
    return condition()


# --- a slow turn --------------------------------------------------------------------
async def test_a_stalled_chat_turn_does_not_hold_up_other_requests_and_is_answered_politely(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path, slow=True, workers=1, turn_deadline_s=3.0) as client:
        _, first = await post(client, "/api/chat", {"text": "serve a 7B model", "lang": "en"})
        session = first["session_id"]
        stalled = asyncio.create_task(post(client, "/api/chat", {"session_id": session, "text": STALL}))
        await asyncio.sleep(0.3)  # the stalled turn is in its worker now
        response = await client.get("/openapi.json")
        assert response.status == 200 and (await response.json())["openapi"] == "3.1.0"
        assert not stalled.done()  # answered while the stalled turn still ran
        status, reply = await stalled
        assert status == 200 and reply["kind"] == "error" and reply["session_id"] == session
        assert reply["text"] == locales.t("en", "dialog.too_slow") and reply["lang"] == "en"
        assert reply["requirements"] == first["requirements"]  # the conversation as it was
        next_turn = {"session_id": session, "text": "10 concurrent users"}
        status, after = await post(client, "/api/chat", next_turn)
    assert status == 200 and after["kind"] in ("question", "answer")
    assert after["requirements"]["params_b"] == 7.0 and after["requirements"]["concurrency"] == 10


async def test_chat_turns_in_workers_answer_from_an_uploaded_catalog_with_its_plan(tmp_path: Path) -> None:
    async with serving(tmp_path, workers=1) as client:
        assert (await upload(client, YAML_CATALOG, "application/yaml")).status == 200
        _, reply = await post(client, "/api/chat", {"text": "部署 13B 模型，并发 8，7×24"})
        while reply["kind"] != "answer":
            button = reply["buttons"][0]["payload"]
            _, reply = await post(client, "/api/chat", {"session_id": reply["session_id"], "button": button})
        assert client.app[CONTEXT].turn.executor.pooled
    offer = reply["plan"]["recommendation"]
    assert offer["offer"] in ("l4-one", "h100-eight")
    assert offer["order_url"] == f"https://rent.example/order/{offer['offer']}"


# --- sessions per address -----------------------------------------------------------
async def test_one_address_may_start_only_so_many_conversations_an_hour(tmp_path: Path) -> None:
    async with serving(tmp_path, sessions_per_ip_per_hour=2) as client:
        _, a = await post(client, "/api/chat", {"text": "hello"})
        await post(client, "/api/chat", {"text": "hello"})
        response = await client.post("/api/chat", json={"text": "hello", "lang": "zh"})
        body = await response.json()
        made_up = {"session_id": "m" * 20, "text": "hello", "lang": "en"}  # an id never issued is new
        status, invented = await post(client, "/api/chat", made_up)
        status_old, old = await post(client, "/api/chat", {"session_id": a["session_id"], "text": "7B"})
    assert response.status == 429 and 3500 <= int(response.headers["Retry-After"]) <= 3600
    assert body["error"]["message"] == locales.t("zh", "web.too_many_sessions", minutes=60)
    assert status == 429 and invented["error"]["message"].startswith("Many new conversations")
    assert status_old == 200 and old["session_id"] == a["session_id"]  # open ones carry on


def test_the_session_cap_is_a_web_command_flag() -> None:
    parser = argparse.ArgumentParser()
    add_web_command(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["web", "--sessions-per-hour", "7", "--turn-deadline", "4", "--workers", "2"])
    config = config_from(args)
    assert (config.sessions_per_ip_per_hour, config.turn_deadline_s, config.workers) == (7, 4.0, 2)


# --- cheap ones ---------------------------------------------------------------------
def test_a_short_admin_token_stops_the_server_with_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = argparse.ArgumentParser()
    add_web_command(parser.add_subparsers(dest="command"))
    monkeypatch.setenv("GPU_ADVISOR_ADMIN_TOKEN", "x")
    with pytest.raises(SystemExit, match=r"GPU_ADVISOR_ADMIN_TOKEN.*1 characters; use 32 or more"):
        config_from(parser.parse_args(["web"]))
    with pytest.raises(ValueError, match="32 or more"):
        WebConfig(admin_token="a" * 31)


async def test_responses_do_not_name_the_server_software_or_its_version(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        for response in (await client.get("/openapi.json"), await client.get("/no-such-page")):
            assert response.headers["Server"] == "gpu-advisor"


async def test_a_store_that_cannot_be_written_answers_503_with_a_polite_message(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        client.app[CONTEXT].store.db.execute("PRAGMA query_only = ON")  # as on a read-only mount
        response = await client.post("/api/chat", json={"text": "部署 13B 模型", "lang": "zh"})
        assert response.status == 503 and int(response.headers["Retry-After"]) > 0
        body = await response.json()
    assert body["error"]["code"] == "storage_unavailable"
    assert body["error"]["message"] == locales.t("zh", "dialog.storage_unavailable")


# --- connections ----------------------------------------------------------------------
def closed_by_server(sock: socket.socket, within_s: float) -> bool:
    sock.settimeout(within_s)
    try:
        return sock.recv(1) == b""
    except (TimeoutError, ConnectionResetError):
        return False


async def test_one_address_holds_only_so_many_idle_connections(tmp_path: Path) -> None:
    config = WebConfig(db_path=str(tmp_path / "web.db"), connections_per_ip=3)
    listening = await listen(build_app(config), config, port=0)
    held: list[socket.socket] = []
    try:
        for _ in range(3):
            held.append(socket.create_connection(("127.0.0.1", listening.port)))
        extra = socket.create_connection(("127.0.0.1", listening.port))
        held.append(extra)
        assert await asyncio.to_thread(closed_by_server, extra, 10.0)
        assert not await asyncio.to_thread(closed_by_server, held[0], 0.2)  # the first three stay
        held[0].close()
        await asyncio.sleep(0.2)
        another = socket.create_connection(("127.0.0.1", listening.port))
        held.append(another)
        another.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        head = await asyncio.to_thread(another.recv, 64)
        assert head.startswith(b"HTTP/1.1 200")
    finally:
        for sock in held:
            sock.close()
        await listening.close()


async def test_an_idle_connection_is_closed_after_the_keep_alive_timeout(tmp_path: Path) -> None:
    config = WebConfig(db_path=str(tmp_path / "web.db"), keepalive_timeout_s=0.5)
    listening = await listen(build_app(config), config, port=0)
    try:
        with socket.create_connection(("127.0.0.1", listening.port)) as idle:
            assert await asyncio.to_thread(closed_by_server, idle, 15.0)
    finally:
        await listening.close()
