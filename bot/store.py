"""Conversation state and the plan log in SQLite (sqlite-utils), so a restart loses nothing.

One row per (platform, chat, user) holds the conversation state as JSON, written
after every turn. The database runs in WAL mode with a busy timeout, so two bot
processes (say Telegram and the web widget) can share one file. The plan log is
append-only and stores no message text unless the operator turns that on.

Schema versions are applied in order by ``MIGRATIONS``; ``meta.schema_version`` records
the last one applied, so an old database is upgraded in place on open.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlite_utils

from bot.dialog.state import STATE_VERSION, ConversationState
from engine.results import Plan

BUSY_TIMEOUT_MS = 5000


def _v1(db: sqlite_utils.Database) -> None:
    db.table("conversations").create(
        {"platform": str, "chat_id": str, "user_id": str, "state": str, "lang": str, "updated_at": float},
        pk=("platform", "chat_id", "user_id"),
        if_not_exists=True,
    )
    db.table("plans_log").create(
        {
            "id": int,
            "ts": float,
            "platform": str,
            "task": str,
            "model": str,
            "params_b": float,
            "offer": str,
            "gpu": str,
            "gpus": int,
            "amount": float,
            "currency": str,
            "per": str,
            "status": str,
            "text": str,
        },
        pk="id",
        if_not_exists=True,
    )


def _v2(db: sqlite_utils.Database) -> None:
    db.table("conversations").create_index(["updated_at"], if_not_exists=True)


def _v3(db: sqlite_utils.Database) -> None:
    db.table("seen_updates").create(
        {"platform": str, "update_id": str, "ts": float}, pk=("platform", "update_id"), if_not_exists=True
    )


_LOG_PLAN_COLUMNS = (
    "ts",
    "platform",
    "task",
    "model",
    "params_b",
    "offer",
    "gpu",
    "gpus",
    "amount",
    "currency",
    "per",
    "status",
    "text",
)
_LOG_PLAN = (
    f"insert into plans_log ({', '.join(_LOG_PLAN_COLUMNS)})"
    f" values ({', '.join('?' * len(_LOG_PLAN_COLUMNS))})"
)
MIGRATIONS: tuple[Callable[[sqlite_utils.Database], None], ...] = (_v1, _v2, _v3)
SEEN_KEEP_S = 86_400.0
PRUNE_EVERY = 500


def migrate_state(data: dict[str, Any]) -> dict[str, Any]:
    """Bring a stored state dict up to ``STATE_VERSION`` (version 1 is the first)."""
    data.setdefault("version", 1)
    data["version"] = STATE_VERSION
    return data


class Store:
    def __init__(self, path: str | Path, log_text: bool = False) -> None:
        self.path = str(path)
        self.log_text = log_text
        self._seen_inserts = 0
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self.db = sqlite_utils.Database(conn)
        if self.path != ":memory:":
            self.db.enable_wal()
            # In WAL mode NORMAL never corrupts and survives a process crash (kill -9); only an OS
            # crash or power cut can drop the last few turns. FULL would fsync every turn.
            conn.execute("PRAGMA synchronous=NORMAL")
        self._migrate()

    @property
    def schema_version(self) -> int:
        if "meta" not in self.db.table_names():
            return 0
        row = self.db.execute("select value from meta where key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    def _migrate(self) -> None:
        with self.db.conn:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.table("meta").create({"key": str, "value": str}, pk="key", if_not_exists=True)
            current = self.schema_version
            for version, step in enumerate(MIGRATIONS, start=1):
                if version > current:
                    step(self.db)
            self.db.table("meta").upsert(
                {"key": "schema_version", "value": str(len(MIGRATIONS))},
                pk="key",
            )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction (BEGIN IMMEDIATE takes the write lock at once, so a second process
        waits at the start instead of failing midway); nested use joins the outer one."""
        if self.db.conn.in_transaction:
            yield
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def load(self, platform: str, chat_id: str | int, user_id: str | int) -> ConversationState:
        rows = self.db.execute(
            "select state from conversations where platform = ? and chat_id = ? and user_id = ?",
            [platform, str(chat_id), str(user_id)],
        ).fetchall()
        if not rows:
            return ConversationState()
        return ConversationState.model_validate(migrate_state(json.loads(rows[0][0])))

    def save(self, platform: str, chat_id: str | int, user_id: str | int, state: ConversationState) -> None:
        # Plain SQL: this runs after every turn, and sqlite-utils' upsert rebuilds its query each call.
        self.db.execute(
            "insert into conversations (platform, chat_id, user_id, state, lang, updated_at)"
            " values (?, ?, ?, ?, ?, ?) on conflict (platform, chat_id, user_id) do update set"
            " state = excluded.state, lang = excluded.lang, updated_at = excluded.updated_at",
            [platform, str(chat_id), str(user_id), state.model_dump_json(), state.lang, time.time()],
        )

    def first_time(self, platform: str, update_id: str | int) -> bool:
        """True the first time an update id is seen: a redelivered update must not be answered twice.

        Telegram redelivers updates whose offset was never confirmed (say the bot was
        killed between answering and the next poll); the id is kept for a day.
        """
        cur = self.db.execute(
            "insert or ignore into seen_updates (platform, update_id, ts) values (?, ?, ?)",
            [platform, str(update_id), time.time()],
        )
        self._seen_inserts += cur.rowcount
        if self._seen_inserts % PRUNE_EVERY == 1:
            self.db.execute("delete from seen_updates where ts < ?", [time.time() - SEEN_KEEP_S])
        return bool(cur.rowcount)

    def move_chat(self, platform: str, old_chat: str | int, new_chat: str | int) -> None:
        """A chat changed id (Telegram group → supergroup): keep everyone's conversation."""
        self.db.execute(
            "update conversations set chat_id = ? where platform = ? and chat_id = ?",
            [str(new_chat), platform, str(old_chat)],
        )

    def log_plan(self, platform: str, plan: Plan, text: str | None = None) -> None:
        rec = plan.recommendation
        row = {
            "ts": time.time(),
            "platform": platform,
            "task": plan.task,
            "model": plan.model.id,
            "params_b": plan.model.params_b,
            "offer": rec.offer if rec else None,
            "gpu": rec.gpu if rec else None,
            "gpus": rec.count * rec.machines if rec else None,
            "amount": rec.cost.amount if rec else None,
            "currency": rec.cost.currency if rec else None,
            "per": rec.cost.per if rec else None,
            "status": plan.status,
            "text": text if self.log_text else None,
        }
        self.db.execute(_LOG_PLAN, [row[c] for c in _LOG_PLAN_COLUMNS])

    def stats(self) -> dict[str, Any]:
        """Operator statistics: conversations, plans, and the most recommended offers."""
        top = self.db.execute(
            "select offer, count(*) from plans_log where offer is not null"
            " group by offer order by 2 desc limit 5"
        ).fetchall()
        return {
            "conversations": self.db.table("conversations").count,
            "plans": self.db.table("plans_log").count,
            "top_offers": [{"offer": o, "count": n} for o, n in top],
        }

    def close(self) -> None:
        self.db.close()
