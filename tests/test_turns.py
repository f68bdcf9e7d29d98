"""The one turn in worker processes: same answers as in this process, state in the shared store."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable
from datetime import date
from pathlib import Path

import pytest

from gpu_advisor import knowledge, locales
from gpu_advisor.bot.dialog import ConversationState, Dialog, Reply
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.turn import STORAGE_ERRORS, Conversations, Turn, executor_for
from gpu_advisor.bot.turn_calls import Chat, FirstTime, Known, budget_of
from gpu_advisor.engine.results import Cost
from tests.fakes.slow_dialog import STALL, SlowDialog

SCRIPT = ("部署 13B 模型", "并发 8", "7×24", "/why", "/cost", "其实是70B")
DIALOG = Dialog(knowledge.load())


def conversations(db: Path | str) -> Conversations:
    return Conversations(DIALOG, Store(db), "telegram")


def pool(host: Conversations, deadline_s: float | None = None) -> Turn:
    return Turn(host, executor_for(host, 1, deadline_s=deadline_s))


async def reply_to(
    turn: Turn, chat: Chat, text: str | None = None, button: str | None = None
) -> Reply | None:
    turned = await turn.take(chat, text, button)
    return None if turned is None else turned.reply


@pytest.fixture
async def pooled(database: Callable[[str], str]) -> AsyncIterator[Turn]:
    """One worker over the shared database, on each backend (SQLite and PostgreSQL)."""
    turn = pool(conversations(database("pooled")))
    async with turn.executor:
        yield turn


@pytest.fixture
async def pooled_sqlite(tmp_path: Path) -> AsyncIterator[Turn]:
    turn = pool(conversations(tmp_path / "pooled.db"))
    async with turn.executor:
        yield turn


async def test_turns_in_a_worker_read_like_turns_on_the_loop(pooled: Turn, tmp_path: Path) -> None:
    assert pooled.executor.pooled
    here = Turn(conversations(tmp_path / "here.db"))
    chat = Chat(5, 5, "zh")
    for text in SCRIPT:
        there, local = await reply_to(pooled, chat, text), await reply_to(here, chat, text)
        assert there is not None and local is not None
        assert (there.kind, there.text, there.buttons) == (local.kind, local.text, local.buttons)
        assert there.plan is None  # the worker logged it; only text and buttons travel back
    # What the worker saved is what this process reads from the shared database.
    assert pooled.local.load(chat) == here.local.load(chat)
    assert pooled.local.store.stats()["plans"] == here.local.store.stats()["plans"] > 0


async def test_a_redelivered_update_is_answered_once_and_its_turn_applied_once(pooled: Turn) -> None:
    chat = Chat(8, 8, "zh", update_id=41)
    assert await pooled.take(chat, "部署 13B 模型") is not None
    assert await pooled.take(chat, "部署 13B 模型") is None
    assert pooled.local.load(chat).turns == 1
    assert pooled.local.store.first_time("telegram", 41) is False  # recorded in the shared store
    # Updates that run no turn (inline queries, say) are checked on their own.
    assert await pooled.ask(FirstTime(42)) is True
    assert await pooled.ask(FirstTime(42)) is False


async def test_a_killed_worker_costs_no_answer_and_is_replaced(pooled: Turn) -> None:
    chat = Chat(6, 6, "en")
    await pooled.take(chat, "serve a 7B model")
    (victim,) = pooled.executor.pids
    os.kill(victim, signal.SIGKILL)
    reply = await reply_to(pooled, chat, "10 concurrent users")  # answered by the replacement
    assert reply is not None and reply.kind in ("question", "answer") and reply.text
    for _ in range(100):
        if pooled.executor.pooled:
            break
        await asyncio.sleep(0.1)
    assert pooled.executor.pooled and pooled.executor.pids != [victim]
    assert pooled.local.load(chat).turns == 2  # both turns were saved exactly once


async def test_restart_brings_up_fresh_workers(pooled_sqlite: Turn) -> None:
    """A catalog reload restarts the workers; turns run here until the new ones are up."""
    pooled = pooled_sqlite
    before = pooled.executor.pids
    await pooled.executor.restart()
    await pooled.executor.initialize()  # wait for them
    assert pooled.executor.pooled and len(pooled.executor.pids) == 1 and pooled.executor.pids != before


async def test_without_workers_turns_run_in_this_process(tmp_path: Path) -> None:
    host = conversations(tmp_path / "s.db")
    turn = Turn(host, executor_for(host, 0))
    async with turn.executor:
        assert not turn.executor.pooled and turn.executor.pids == []
        reply = await reply_to(turn, Chat(1, 1, "zh"), "部署 13B 模型")
    assert reply is not None and reply.kind == "question"


# --- deadlines and a store that cannot be written -------------------------------------
@pytest.fixture
async def stalling(tmp_path: Path) -> AsyncIterator[Turn]:
    turn = pool(Conversations(SlowDialog(knowledge.load()), Store(tmp_path / "slow.db"), "telegram"), 2.0)
    async with turn.executor:
        yield turn


async def test_a_turn_past_its_deadline_is_answered_politely_and_its_worker_replaced(stalling: Turn) -> None:
    chat = Chat(9, 9, "en")
    await stalling.take(chat, "serve a 7B model")
    before = stalling.local.load(chat)
    (stuck,) = stalling.executor.pids
    turned = await stalling.take(chat, f"{STALL}, 10 concurrent users")
    assert turned is not None and turned.refused == "deadline" and turned.reply.kind == "error"
    assert turned.reply.text == locales.t("en", "dialog.too_slow")
    assert stalling.local.load(chat) == before  # nothing of the stalled turn was saved
    after = await reply_to(stalling, chat, "10 concurrent users")  # waits for the replacement worker
    assert after is not None and after.kind in ("question", "answer")
    assert stalling.executor.pids and stalling.executor.pids != [stuck]
    assert stalling.local.load(chat).slots["concurrency"] == 10
    assert stalling.local.load(chat).slots["params_b"] == before.slots["params_b"]


async def test_a_deadline_reply_speaks_the_conversations_language(stalling: Turn) -> None:
    chat = Chat(10, 10, "en")
    await stalling.take(chat, "部署 13B 模型")  # the conversation switched to Chinese
    reply = await reply_to(stalling, chat, button="q:concurrency:0")
    assert reply is not None and reply.lang == "zh"
    stalled = await reply_to(stalling, chat, STALL)
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
    turn = Turn(conversations(tmp_path / "s.db"))
    fault(turn.local.store)
    chat = Chat(11, 11, "en")  # a new conversation needs a new row
    turned = await turn.take(chat, "serve a 7B model for 10 concurrent users", keep_plan=True)
    assert turned is not None and turned.refused == "storage" and turned.reply.kind == "error"
    assert turned.reply.text == locales.t("en", "dialog.storage_unavailable")


async def test_a_worker_that_cannot_write_hands_back_a_polite_storage_reply(pooled_sqlite: Turn) -> None:
    """The worker's write waits out SQLite's busy timeout (5 s) behind a lock held here."""
    pooled = pooled_sqlite
    chat = Chat(12, 12, "zh")
    store = pooled.local.store
    with store.transaction():
        turned = await pooled.take(chat, "部署 13B 模型")
    assert turned is not None and turned.refused == "storage"
    assert turned.reply.text == locales.t("zh", "dialog.storage_unavailable")
    assert pooled.executor.pooled and not Known(chat).run(pooled.local)


# --- what the turn hands the dialog and the chart ------------------------------------
async def test_the_turn_dates_each_message_so_by_friday_is_a_deadline(tmp_path: Path) -> None:
    host = conversations(tmp_path / "s.db")
    turn = Turn(host, today=lambda: date(2026, 12, 3))  # a Thursday: Friday is 24 hours away
    chat = Chat(1, 1, "zh")
    await reply_to(turn, chat, "LoRA 微调 7B，1亿 token，周五前训完")
    assert host.load(chat).slots["deadline_hours"] == 24.0


async def test_the_plan_chart_gets_the_conversations_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gpu_advisor.bot.charts

    drawn: list[Cost | None] = []

    def chart(
        plan: object, lang: str, fx: object = None, budget: Cost | None = None, traditional: bool = False
    ) -> bytes:
        drawn.append(budget)
        return b"png"

    monkeypatch.setattr(gpu_advisor.bot.charts, "plan_chart", chart)
    turn = Turn(conversations(tmp_path / "s.db"))
    chat = Chat(1, 1, "en")
    await turn.take(chat, "serve a 13B model, 8 users, 24/7, budget 500 USD a month")
    turned = await turn.take(chat, "/plan", pictures=True)
    assert turned is not None and turned.chart == b"png"
    assert drawn == [Cost(amount=500.0, currency="USD", per="month")]


def test_a_conversation_without_a_budget_draws_no_budget_line() -> None:
    assert budget_of(ConversationState(lang="en")) is None
