"""Operator commands (``Turn.operate``): /stats and /reload_catalog, the same rule on every surface."""

from __future__ import annotations

from pathlib import Path

from gpu_advisor import knowledge, locales
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.surface import converse
from gpu_advisor.bot.turn import Conversations, Turn
from gpu_advisor.bot.turn_calls import Chat
from gpu_advisor.engine.specs import Knowledge
from tests.fakes.test_surface import TestSurface


def turn_in(tmp_path: Path) -> Turn:
    return Turn(Conversations(Dialog(knowledge.load()), Store(tmp_path / "ops.db"), "test"))


def never_read() -> Knowledge:
    raise AssertionError("the catalog must not be read for this command")


async def test_someone_not_named_an_operator_is_refused_in_their_language(tmp_path: Path) -> None:
    reply = await turn_in(tmp_path).operate(Chat(1, 9, "zh-hans"), "/stats", False, never_read)
    assert reply is not None and reply.text == locales.t("zh", "admin.refused")


async def test_stats_counts_the_plans_the_turns_logged(tmp_path: Path) -> None:
    turn = turn_in(tmp_path)
    chat = Chat(1, 1, "en")
    for text in ("serve a 70B model 24/7 for 64 users, int4", "/plan"):
        await converse(TestSurface(turn), chat, chat, text)
    reply = await turn.operate(Chat(1, 8, "en"), "/stats@GpuAdvisorBot", True, never_read)
    assert reply is not None and "1 conversations, 1 plans" in reply.text


async def test_reload_reads_the_catalog_again_and_says_how_many_offers(tmp_path: Path) -> None:
    turn = turn_in(tmp_path)
    reloaded = knowledge.load()
    reply = await turn.operate(Chat(1, 8, "en"), "/reload_catalog", True, lambda: reloaded)
    assert turn.local.dialog.kb is reloaded
    assert reply is not None and f"{len(reloaded.catalog.offers)} offers" in reply.text


async def test_a_redelivered_operator_command_is_not_answered_twice(tmp_path: Path) -> None:
    turn = turn_in(tmp_path)
    chat = Chat(1, 8, "en", update_id=77)
    assert await turn.operate(chat, "/stats", True, never_read) is not None
    assert await turn.operate(chat, "/stats", True, never_read) is None
