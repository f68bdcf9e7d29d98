"""Stored state: persistence, dedupe, retention and the plan log on both backends (``store_at``);
WAL, migrations, two writers and SQLite's own failures on SQLite."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from pathlib import Path

import pytest
import sqlite_utils

from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.store import (
    DAY_S,
    MIGRATIONS,
    PRUNE_BATCH,
    PRUNE_INTERVAL_S,
    Retention,
    SQLiteStore,
    Storage,
    StorageUnavailable,
    Store,
    unavailable,
)
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from tests.conftest import OpenStore


def logged_texts(store: Storage) -> list[str | None]:
    """The plan log's text column, read through the store's own connection."""
    if isinstance(store, SQLiteStore):
        return [row["text"] for row in store.db.table("plans_log").rows]
    with store._connection() as conn:  # type: ignore[attr-defined]
        return [row[0] for row in conn.execute("select text from plans_log")]


def test_state_round_trips_per_platform_chat_and_user(store_at: OpenStore) -> None:
    store = store_at()
    a = ConversationState(lang="en", slots={"task": "infer", "params_b": 13.0}, pending="traffic")
    store.save("telegram", -100123, 42, a)
    assert store.load("telegram", -100123, 42) == a
    assert store.load("telegram", -100123, 43) == ConversationState()
    assert store.load("discord", -100123, 42) == ConversationState()


def test_database_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    assert store.db.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("pragma busy_timeout").fetchone()[0] >= 1000


def test_an_old_schema_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite_utils.Database(path)
    MIGRATIONS[0](db)  # a database written by the first schema version
    db.table("meta").insert({"key": "schema_version", "value": "1"}, pk="key")
    db.close()
    store = Store(path)
    assert store.schema_version == len(MIGRATIONS)
    indexes = {i.name for i in store.db.table("conversations").indexes}
    assert any("updated_at" in name for name in indexes)


def test_plan_log_keeps_no_message_text_unless_enabled(store_at: OpenStore, kb: Knowledge) -> None:
    plan = recommend(Workload(task="infer", params_b=7, always_on=True), kb)
    quiet, chatty = store_at("a"), store_at("b", log_text=True)
    quiet.log_plan("terminal", plan, text="my secret prompt")
    chatty.log_plan("terminal", plan, text="my secret prompt")
    assert logged_texts(quiet) == [None]
    assert logged_texts(chatty) == ["my secret prompt"]
    assert quiet.stats()["plans"] == 1 and quiet.stats()["top_offers"][0]["count"] == 1


def _writer(path: str, user: int, turns: int) -> None:
    store = Store(path)
    for turn in range(turns):
        store.save("telegram", 1, user, ConversationState(turns=turn, slots={"params_b": float(user)}))
    store.close()


def test_two_processes_writing_one_database_do_not_corrupt_it(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    Store(path).close()
    procs = [
        multiprocessing.get_context("spawn").Process(target=_writer, args=(path, u, 200)) for u in (1, 2)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    store = Store(path)
    assert store.db.execute("pragma integrity_check").fetchone()[0] == "ok"
    assert store.load("telegram", 1, 1).turns == 199 and store.load("telegram", 1, 2).turns == 199


def test_a_locked_database_waits_instead_of_failing(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    store = Store(path)
    blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the lock for half a second
    release = threading.Timer(0.5, lambda: blocker.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    store.save("web", "s", "u", ConversationState(turns=3))
    assert time.monotonic() - started >= 0.4
    assert store.load("web", "s", "u").turns == 3
    release.join()


def test_an_update_id_is_new_only_once_even_after_a_restart(store_at: OpenStore) -> None:
    store = store_at("u")
    assert store.first_time("telegram", 1001) is True
    assert store.first_time("telegram", 1001) is False
    assert store.first_time("discord", 1001) is True  # ids are per platform
    store.close()
    assert store_at("u").first_time("telegram", 1001) is False


# ---- retention ---------------------------------------------------------------------------------


class Clock:
    """A hand-moved clock: retention is about days, and a test must not wait for them."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, days: float) -> None:
        self.now += days * DAY_S


def test_a_conversation_idle_past_the_retention_is_deleted_on_open(store_at: OpenStore) -> None:
    clock = Clock()
    store = store_at("r", clock=clock)
    store.save("telegram", 1, 1, ConversationState(turns=5))
    store.close()
    clock.advance(31)
    again = store_at("r", clock=clock)
    assert again.load("telegram", 1, 1) == ConversationState()


def test_a_conversation_used_within_the_retention_is_kept(store_at: OpenStore) -> None:
    clock = Clock()
    store = store_at("r", clock=clock)
    store.save("telegram", 1, 1, ConversationState(turns=5))
    clock.advance(29)
    store.save("telegram", 1, 1, ConversationState(turns=6))
    clock.advance(29)
    assert store.prune()["conversations"] == 0
    assert store.load("telegram", 1, 1).turns == 6


def test_plan_log_rows_expire_after_their_own_longer_retention(store_at: OpenStore, kb: Knowledge) -> None:
    clock = Clock()
    store = store_at("r", clock=clock)
    store.log_plan("web", recommend(Workload(task="infer", params_b=7, always_on=True), kb))
    clock.advance(60)
    assert store.prune()["plans_log"] == 0  # older than a conversation may be, younger than 90 days
    clock.advance(31)
    assert store.prune()["plans_log"] == 1 and store.stats()["plans"] == 0


def test_the_save_path_prunes_at_most_once_per_interval(store_at: OpenStore) -> None:
    clock, long_ago = Clock(), Clock(Clock().now - 31 * DAY_S)
    store = store_at("r", clock=clock)  # opening ran a pass
    store_at("r", clock=long_ago).save("web", "old", "u", ConversationState())  # another process, long ago
    store.save("web", "new", "u", ConversationState())
    assert store.stats()["conversations"] == 2  # the next pass is not due yet
    clock.now += PRUNE_INTERVAL_S
    store.save("web", "new", "u", ConversationState())
    assert store.stats()["conversations"] == 1


def test_a_backlog_is_deleted_one_bounded_batch_per_pass(store_at: OpenStore) -> None:
    clock = Clock()
    store = store_at("r", clock=clock)
    with store.transaction():
        for i in range(PRUNE_BATCH + 10):
            store.save("web", str(i), "u", ConversationState())
    clock.advance(31)
    assert store.prune()["conversations"] == PRUNE_BATCH
    store.save("web", "fresh", "u", ConversationState())  # a full batch leaves the next pass due
    assert store.stats()["conversations"] == 1


def test_zero_days_keeps_conversations_forever(store_at: OpenStore) -> None:
    clock = Clock()
    store = store_at("r", retention=Retention(conversations_days=0), clock=clock)
    store.save("web", "s", "u", ConversationState(turns=2))
    clock.advance(3650)
    assert "conversations" not in store.prune() and store.load("web", "s", "u").turns == 2


def test_retention_is_read_from_the_environment() -> None:
    env = {"GPU_ADVISOR_KEEP_CONVERSATIONS_DAYS": "7", "GPU_ADVISOR_KEEP_PLANS_DAYS": "0"}
    assert Retention.from_env(env) == Retention(conversations_days=7, plans_days=0)
    assert Retention.from_env({}) == Retention(conversations_days=30, plans_days=90)


def test_a_negative_or_garbled_retention_stops_with_a_readable_message() -> None:
    for raw in ("-1", "a week"):
        with pytest.raises(SystemExit, match="GPU_ADVISOR_KEEP_PLANS_DAYS must be a number of days"):
            Retention.from_env({"GPU_ADVISOR_KEEP_PLANS_DAYS": raw})


def test_age_deletes_use_the_timestamp_indexes(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    for table, column in (("conversations", "updated_at"), ("plans_log", "ts"), ("seen_updates", "ts")):
        plan = store.db.execute(f"explain query plan select rowid from {table} where {column} < 1").fetchall()
        assert any("USING" in str(row[-1]) and "INDEX" in str(row[-1]) for row in plan), (table, plan)


# ---- storage that cannot be written ------------------------------------------------------------


def test_a_full_disk_raises_storage_unavailable(tmp_path: Path) -> None:
    store = Store(tmp_path / "full.db")
    pages = store.db.execute("pragma page_count").fetchone()[0]
    store.db.execute(f"pragma max_page_count = {pages}")  # SQLite answers SQLITE_FULL past this
    big = ConversationState(slots={"model": "x" * 200_000})
    with pytest.raises(StorageUnavailable) as caught, store.transaction():
        store.save("web", "s", "u", big)
    assert caught.value.reason == "full"
    assert not store.db.conn.in_transaction  # rolled back, ready for the next turn


def test_a_read_only_database_raises_storage_unavailable(tmp_path: Path) -> None:
    store = Store(tmp_path / "ro.db")
    store.db.execute("pragma query_only = 1")
    with pytest.raises(StorageUnavailable) as caught:
        store.save("web", "s", "u", ConversationState())
    assert caught.value.reason == "read_only"


def test_an_io_error_is_storage_unavailable_and_other_errors_are_not() -> None:
    mapped = unavailable(sqlite3.OperationalError("disk I/O error"))
    assert mapped is not None and mapped.reason == "io"
    assert unavailable(sqlite3.OperationalError("no such table: nothing")) is None
    assert unavailable(sqlite3.IntegrityError("UNIQUE constraint failed")) is None


def test_an_unrelated_sqlite_error_is_not_disguised(tmp_path: Path) -> None:
    store = Store(tmp_path / "x.db")
    store.db.execute("drop table conversations")
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        store.load("web", "s", "u")
