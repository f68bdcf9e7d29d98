"""One message through the one turn on every surface, and the plan log's one rule on each.

The rule (``bot.turn``): a plan is logged when the turn produced it from the user's
requirements; ``/why`` and a repeated ``/plan`` show it again and are not logged. Each
surface below is driven through its real entry point (the terminal session, PTB against
the loopback Bot API, discord.py against the loopback Discord, aiohttp's test client,
the test surface) with the same script, and each must log exactly one plan.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.discord.conversation import Conversations as DiscordChats
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.surface import Surface, converse
from gpu_advisor.bot.telegram.surface import TelegramChats
from gpu_advisor.bot.terminal import Session
from gpu_advisor.bot.turn import Conversations, Turn
from gpu_advisor.bot.turn_calls import Chat
from gpu_advisor.bot.web.api import WebChats
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.test_surface import TestSurface
from tests.test_discord_bot import fake  # noqa: F401  (the loopback Discord fixture)
from tests.test_discord_bot import running as discord_running
from tests.test_telegram_bot import running as telegram_running
from tests.test_web_api import post, serving

# Task and model known, the rest left to defaults: "/plan" answers, "/why" and "/plan" re-display.
SCRIPT = ("serve a 70B model 24/7 for 64 users, int4", "/plan", "/why", "/plan")
DIALOG = Dialog(knowledge.load())
PNG = b"\x89PNG"
ROOT = Path(__file__).resolve().parent.parent
ADAPTERS = (
    "src/gpu_advisor/bot/terminal.py",
    "src/gpu_advisor/bot/telegram/app.py",
    "src/gpu_advisor/bot/telegram/surface.py",
    "src/gpu_advisor/bot/discord/app.py",
    "src/gpu_advisor/bot/discord/conversation.py",
    "src/gpu_advisor/bot/web/api.py",
)


def plans_logged(db: Path) -> int:
    store = Store(db)
    try:
        return int(store.stats()["plans"])
    finally:
        store.close()


async def test_the_test_surface_logs_a_plan_once_and_draws_it_for_plan(tmp_path: Path) -> None:
    surface = TestSurface(Turn(Conversations(DIALOG, Store(tmp_path / "t.db"), "test")))
    chat = Chat(1, 1, "en")
    for text in SCRIPT:
        await converse(surface, chat, chat, text)
    kinds = [turned.reply.kind for _, turned in surface.shown]
    assert kinds[1:] == ["answer", "answer", "answer"]
    assert surface.shown[1][1].chart is not None and surface.shown[1][1].chart.startswith(PNG)
    assert surface.shown[2][1].chart is None  # /why: words, no picture
    assert plans_logged(tmp_path / "t.db") == 1


async def test_a_surface_without_pictures_gets_no_chart(tmp_path: Path) -> None:
    surface = TestSurface(
        Turn(Conversations(DIALOG, Store(tmp_path / "t.db"), "test")), can_show_pictures=False
    )
    for text in SCRIPT[:2]:
        await converse(surface, Chat(2, 2, "en"), Chat(2, 2, "en"), text)
    assert surface.shown[-1][1].reply.kind == "answer" and surface.shown[-1][1].chart is None


def test_the_terminal_logs_a_plan_once(tmp_path: Path) -> None:
    session = Session(DIALOG, Store(tmp_path / "term.db"), "me")
    try:
        replies = [session.send(text) for text in SCRIPT]
    finally:
        session.close()
    assert replies[1].kind == "answer" and replies[1].plan is not None
    assert plans_logged(tmp_path / "term.db") == 1


async def test_telegram_logs_a_plan_once_and_sends_the_chart_after_plan(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    user = tg.user(3001, "T", lang="en")
    async with telegram_running(tg, tmp_path):
        for text in SCRIPT:
            sent = "sendPhoto" if text == "/plan" else "sendMessage"  # a short answer is the photo's caption
            before = len(tg.calls_of(sent))
            tg.send_text(user, text)
            await tg.wait_for(sent, count=before + 1)
        await tg.wait_for("sendPhoto", count=2)  # both /plan turns, the last one included
    assert plans_logged(tmp_path / "tg.db") == 1


async def test_discord_logs_a_plan_once(fake: FakeDiscord, tmp_path: Path) -> None:  # noqa: F811
    user = fake.user(3002, "d", locale="en-US")
    async with discord_running(fake, tmp_path):
        await fake.replies(await fake.slash(user, "advise", text=SCRIPT[0]))
        for command in ("plan", "why", "plan"):
            await fake.replies(await fake.slash(user, command))
    assert plans_logged(tmp_path / "discord.db") == 1


async def test_the_web_logs_a_plan_once(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, first = await post(client, "/api/chat", {"text": SCRIPT[0], "lang": "en"})
        assert status == 200
        for text in SCRIPT[1:]:
            status, reply = await post(client, "/api/chat", {"text": text, "session_id": first["session_id"]})
            assert status == 200 and reply["kind"] == "answer"
    assert plans_logged(tmp_path / "web.db") == 1


def test_every_surface_satisfies_the_surface_contract(tmp_path: Path) -> None:
    turn = Turn(Conversations(DIALOG, Store(tmp_path / "s.db"), "test"))
    session = Session(DIALOG, Store(tmp_path / "term.db"), "me")
    try:
        # Typed as surfaces, so mypy checks each signature as well as the runtime check its members.
        surfaces: list[Surface[Any, Any]] = [
            session,
            TelegramChats(turn),
            DiscordChats(turn),
            WebChats(turn),
            TestSurface(turn),
        ]
        assert all(isinstance(surface, Surface) for surface in surfaces)
        assert [s.platform for s in surfaces] == ["terminal", "telegram", "discord", "web", "test"]
    finally:
        session.close()


def test_a_class_without_show_is_not_a_surface(tmp_path: Path) -> None:
    class Mute:
        platform = "mute"

        def __init__(self, turn: Turn) -> None:
            self.turn = turn

        def pictures(self, where: object) -> bool:
            return False

    assert not isinstance(Mute(Turn(Conversations(DIALOG, Store(tmp_path / "m.db"), "mute"))), Surface)


@pytest.mark.parametrize("path", ADAPTERS)
def test_adapters_take_turns_only_through_converse(path: str) -> None:
    """A thin adapter: no surface calls ``Turn.take`` itself, so none can add a rule around it."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    takes = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "take"
    ]
    assert takes == [], f"{path} calls .take( on lines {takes}; use bot.surface.converse"
