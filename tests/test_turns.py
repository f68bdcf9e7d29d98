"""Conversation turns in worker processes: same answers as on the loop, state in the shared store."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import knowledge
from bot.dialog import Dialog
from bot.store import Store
from bot.turns import Chat, Conversations, Turns

SCRIPT = ("部署 13B 模型", "并发 8", "7×24", "/why", "/cost", "其实是70B")
DIALOG = Dialog(knowledge.load())


def conversations(db: Path) -> Conversations:
    return Conversations(DIALOG, Store(db), "telegram")


@pytest.fixture
async def pooled(tmp_path: Path) -> AsyncIterator[Turns]:
    turns = Turns(conversations(tmp_path / "pooled.db"), workers=1)
    await turns.start()
    try:
        yield turns
    finally:
        await turns.stop()


async def test_turns_in_a_worker_read_like_turns_on_the_loop(pooled: Turns, tmp_path: Path) -> None:
    assert pooled.pooled
    here = Turns(conversations(tmp_path / "here.db"))
    chat = Chat(5, 5, "zh")
    for text in SCRIPT:
        there, local = await pooled.text(chat, text), await here.text(chat, text)
        assert (there.kind, there.text, there.buttons) == (local.kind, local.text, local.buttons)
        assert there.plan is None  # the worker logged it; only text and buttons travel back
    # What the worker saved is what this process reads from the shared database.
    assert pooled.local.load(chat) == here.local.load(chat)
    assert pooled.local.store.stats()["plans"] == here.local.store.stats()["plans"] > 0


async def test_a_redelivered_update_is_answered_once_and_its_turn_applied_once(pooled: Turns) -> None:
    chat = Chat(8, 8, "zh", update_id=41)
    assert await pooled.text(chat, "部署 13B 模型") is not None
    assert await pooled.text(chat, "部署 13B 模型") is None
    assert pooled.local.load(chat).turns == 1
    assert pooled.local.store.first_time("telegram", 41) is False  # recorded in the shared store
    # Updates that run no turn (inline queries, say) are checked on their own.
    assert await pooled.first_time(42) is True
    assert await pooled.first_time(42) is False


async def test_a_killed_worker_costs_no_answer_and_is_replaced(pooled: Turns) -> None:
    chat = Chat(6, 6, "en")
    await pooled.text(chat, "serve a 7B model")
    (victim,) = pooled.pids
    os.kill(victim, signal.SIGKILL)
    reply = await pooled.text(chat, "10 concurrent users")  # answered here while a worker restarts
    assert reply.kind in ("question", "answer") and reply.text
    for _ in range(100):
        if pooled.pooled:
            break
        await asyncio.sleep(0.1)
    assert pooled.pooled and pooled.pids != [victim]
    assert pooled.local.load(chat).turns == 2  # both turns were saved exactly once


async def test_restart_brings_up_fresh_workers(pooled: Turns) -> None:
    """A catalog reload restarts the workers; turns run here until the new ones are up."""
    before = pooled.pids
    await pooled.restart()
    await pooled.start()  # wait for them
    assert pooled.pooled and len(pooled.pids) == 1 and pooled.pids != before


async def test_without_workers_turns_run_in_this_process(tmp_path: Path) -> None:
    turns = Turns(conversations(tmp_path / "s.db"), workers=0)
    await turns.start()
    assert not turns.pooled and turns.pids == []
    reply = await turns.text(Chat(1, 1, "zh"), "部署 13B 模型")
    assert reply.kind == "question"
    await turns.stop()
