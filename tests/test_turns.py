"""Conversation turns in worker processes: same answers as on the loop, state in the shared store."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

import knowledge
import locales
from bot.dialog import ConversationState, Dialog
from bot.store import Store
from bot.turns import STORAGE_ERRORS, Chat, Conversations, TurnRefused, Turns
from tests.fakes.slow_dialog import STALL, SlowDialog

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
    reply = await pooled.text(chat, "10 concurrent users")  # answered by the replacement
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


# --- deadlines and a store that cannot be written -------------------------------------
@pytest.fixture
async def stalling(tmp_path: Path) -> AsyncIterator[Turns]:
    slow = Conversations(SlowDialog(knowledge.load()), Store(tmp_path / "slow.db"), "telegram")
    turns = Turns(slow, workers=1, deadline_s=2.0)
    await turns.start()
    try:
        yield turns
    finally:
        await turns.stop()


async def test_a_turn_past_its_deadline_is_answered_politely_and_its_worker_replaced(stalling: Turns) -> None:
    chat = Chat(9, 9, "en")
    await stalling.text(chat, "serve a 7B model")
    before = stalling.local.load(chat)
    (stuck,) = stalling.pids
    reply = await stalling.text(chat, f"{STALL}, 10 concurrent users")
    assert reply is not None and reply.kind == "error"
    assert reply.text == locales.t("en", "dialog.too_slow")
    assert stalling.local.load(chat) == before  # nothing of the stalled turn was saved
    after = await stalling.text(chat, "10 concurrent users")  # waits for the replacement worker
    assert after is not None and after.kind in ("question", "answer")
    assert stalling.pids and stalling.pids != [stuck]
    assert stalling.local.load(chat).slots["concurrency"] == 10
    assert stalling.local.load(chat).slots["params_b"] == before.slots["params_b"]


async def test_a_deadline_reply_speaks_the_conversations_language(stalling: Turns) -> None:
    chat = Chat(10, 10, "en")
    await stalling.text(chat, "部署 13B 模型")  # the conversation switched to Chinese
    reply = await stalling.press(chat, "q:concurrency:0")
    assert reply is not None and reply.lang == "zh"
    stalled = await stalling.text(chat, STALL)
    assert stalled is not None and stalled.text == locales.t("zh", "dialog.too_slow")


def read_only(store: Store) -> None:
    """SQLite's own refusal, as on a read-only mount: every write fails with OperationalError."""
    store.db.execute("PRAGMA query_only = ON")


def full_disk(store: Store) -> None:
    """SQLite's "database or disk is full": the file may not grow, and its pages are filled up."""
    (pages,) = store.db.execute("PRAGMA page_count").fetchone()
    store.db.execute(f"PRAGMA max_page_count = {pages + 2}")
    with contextlib.suppress(*STORAGE_ERRORS):
        for filler in range(100_000):
            store.save("telegram", f"filler-{filler}", 0, ConversationState(lang="en"))


@pytest.mark.parametrize("fault", [read_only, full_disk])
async def test_a_store_that_cannot_be_written_gets_a_polite_reply_not_a_traceback(
    tmp_path: Path, fault: Callable[[Store], None]
) -> None:
    turns = Turns(conversations(tmp_path / "s.db"), workers=0)
    fault(turns.local.store)
    chat = Chat(11, 11, "en")  # a new conversation needs a new row
    reply = await turns.text(chat, "serve a 7B model for 10 concurrent users")
    assert reply is not None and reply.kind == "error"
    assert reply.text == locales.t("en", "dialog.storage_unavailable")
    with pytest.raises(TurnRefused) as refused:
        await turns.converse(chat, "serve a 7B model for 10 concurrent users")
    assert refused.value.reason == "storage"


async def test_a_worker_that_cannot_write_hands_back_a_polite_storage_reply(pooled: Turns) -> None:
    """The worker's write waits out SQLite's busy timeout (5 s) behind a lock held here."""
    chat = Chat(12, 12, "zh")
    store = pooled.local.store
    with store.transaction():
        reply = await pooled.text(chat, "部署 13B 模型")
    assert reply is not None and reply.text == locales.t("zh", "dialog.storage_unavailable")
    assert pooled.pooled and not pooled.local.known(chat)
