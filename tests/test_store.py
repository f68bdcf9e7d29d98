"""SQLite state: persistence, WAL, migrations, two writers, and a plan log without message text."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from pathlib import Path

import sqlite_utils

from bot.dialog.state import ConversationState
from bot.store import MIGRATIONS, Store
from engine.recommend import recommend
from engine.specs import Knowledge
from engine.workload import Workload


def test_state_round_trips_per_platform_chat_and_user(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
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


def test_plan_log_keeps_no_message_text_unless_enabled(tmp_path: Path, kb: Knowledge) -> None:
    plan = recommend(Workload(task="infer", params_b=7, always_on=True), kb)
    quiet, chatty = Store(tmp_path / "a.db"), Store(tmp_path / "b.db", log_text=True)
    quiet.log_plan("terminal", plan, text="my secret prompt")
    chatty.log_plan("terminal", plan, text="my secret prompt")
    assert next(quiet.db.table("plans_log").rows)["text"] is None
    assert next(chatty.db.table("plans_log").rows)["text"] == "my secret prompt"
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


def test_an_update_id_is_new_only_once_even_after_a_restart(tmp_path: Path) -> None:
    store = Store(tmp_path / "u.db")
    assert store.first_time("telegram", 1001) is True
    assert store.first_time("telegram", 1001) is False
    assert store.first_time("discord", 1001) is True  # ids are per platform
    store.close()
    assert Store(tmp_path / "u.db").first_time("telegram", 1001) is False
