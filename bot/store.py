"""Conversation state and the plan log in SQLite (sqlite-utils), so a restart loses nothing.

One row per (platform, chat, user) holds the conversation state as JSON, written
after every turn. The database runs in WAL mode with a busy timeout, so two bot
processes (say Telegram and the web widget) can share one file. The plan log is
append-only and stores no message text unless the operator turns that on.

Schema versions are applied in order by ``MIGRATIONS``; ``meta.schema_version`` records
the last one applied, so an old database is upgraded in place on open.

Nothing is kept forever (``Retention``): a conversation idle for 30 days, a plan-log row
older than 90 and a redelivery id older than a day are deleted — on open, then from the
write path at most every ``PRUNE_INTERVAL_S`` — through the ``updated_at``/``ts`` indexes,
at most ``PRUNE_BATCH`` rows a table per pass so a turn never waits on a big backlog.

When SQLite cannot write at all (disk full, read-only file, I/O error) the store raises
``StorageUnavailable``, so a surface can say "try again later" instead of crashing.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

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


def _v4(db: sqlite_utils.Database) -> None:
    """Retention deletes by age: index the plan log's and the dedupe table's timestamps."""
    db.table("plans_log").create_index(["ts"], if_not_exists=True)
    db.table("seen_updates").create_index(["ts"], if_not_exists=True)


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
MIGRATIONS: tuple[Callable[[sqlite_utils.Database], None], ...] = (_v1, _v2, _v3, _v4)
DAY_S = 86_400.0
SEEN_KEEP_S = DAY_S
PRUNE_INTERVAL_S = 600.0
PRUNE_BATCH = 2_000
# SQLite's messages for "cannot write here at all" (sqlite3.c: sqlite3ErrStr), and what they mean.
UNAVAILABLE = {
    "database or disk is full": "full",
    "attempt to write a readonly database": "read_only",
    "disk i/o error": "io",
}
P = ParamSpec("P")
R = TypeVar("R")


class StorageUnavailable(Exception):
    """The database cannot be written (``reason``: full, read_only or io); nothing was saved."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"storage unavailable ({reason}): {detail}")
        self.reason, self.detail = reason, detail

    def __reduce__(self) -> tuple[type[StorageUnavailable], tuple[str, str]]:
        """Rebuilt from both arguments, so it crosses the worker-process boundary intact."""
        return (StorageUnavailable, (self.reason, self.detail))


def unavailable(exc: sqlite3.Error) -> StorageUnavailable | None:
    """The ``StorageUnavailable`` an SQLite error amounts to, or None if it is some other fault."""
    if not isinstance(exc, sqlite3.DatabaseError):  # OperationalError is one
        return None
    text = str(exc).lower()
    for message, reason in UNAVAILABLE.items():
        if message in text:
            return StorageUnavailable(reason, str(exc))
    return None


@contextmanager
def storage_errors() -> Iterator[None]:
    """Turn SQLite's disk-full / read-only / I/O errors into ``StorageUnavailable``."""
    try:
        yield
    except sqlite3.Error as exc:
        mapped = unavailable(exc)
        if mapped is None:
            raise
        raise mapped from exc


def _guarded(method: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with storage_errors():
            return method(*args, **kwargs)

    return wrapper


@dataclass(frozen=True)
class Retention:
    """How long rows live, in days; 0 keeps them forever. Read from the environment by default
    (``gpu-advisor --keep-conversations-days``/``--keep-plans-days`` set the same variables),
    so worker processes that open the store themselves apply the same policy."""

    conversations_days: float = 30
    plans_days: float = 90

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Retention:
        return cls(
            conversations_days=_days(env, "GPU_ADVISOR_KEEP_CONVERSATIONS_DAYS", cls.conversations_days),
            plans_days=_days(env, "GPU_ADVISOR_KEEP_PLANS_DAYS", cls.plans_days),
        )


def _days(env: Mapping[str, str], variable: str, default: float) -> float:
    raw = env.get(variable, "").strip()
    if not raw:
        return default
    try:
        days = float(raw)
    except ValueError:
        days = -1
    if days < 0:
        raise SystemExit(f"${variable} must be a number of days, 0 or more (0 keeps forever); got {raw!r}")
    return days


def migrate_state(data: dict[str, Any]) -> dict[str, Any]:
    """Bring a stored state dict up to ``STATE_VERSION`` (version 1 is the first)."""
    data.setdefault("version", 1)
    data["version"] = STATE_VERSION
    return data


class Store:
    @_guarded
    def __init__(
        self,
        path: str | Path,
        log_text: bool = False,
        retention: Retention | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = str(path)
        self.log_text = log_text
        self.retention = retention or Retention.from_env()
        self.clock = clock
        self._next_prune = 0.0
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self.db = sqlite_utils.Database(conn)
        if self.path != ":memory:":
            self.db.enable_wal()
            # In WAL mode NORMAL never corrupts and survives a process crash (kill -9); only an OS
            # crash or power cut can drop the last few turns. FULL would fsync every turn.
            conn.execute("PRAGMA synchronous=NORMAL")
        self._migrate()
        self.prune()

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
        with storage_errors():
            self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
            with storage_errors():
                self.db.execute("COMMIT")
        except BaseException:
            if self.db.conn.in_transaction:  # SQLite may have rolled back already (disk full, I/O)
                self.db.execute("ROLLBACK")
            raise

    @_guarded
    def load(self, platform: str, chat_id: str | int, user_id: str | int) -> ConversationState:
        rows = self.db.execute(
            "select state from conversations where platform = ? and chat_id = ? and user_id = ?",
            [platform, str(chat_id), str(user_id)],
        ).fetchall()
        if not rows:
            return ConversationState()
        return ConversationState.model_validate(migrate_state(json.loads(rows[0][0])))

    @_guarded
    def save(self, platform: str, chat_id: str | int, user_id: str | int, state: ConversationState) -> None:
        # Plain SQL: this runs after every turn, and sqlite-utils' upsert rebuilds its query each call.
        self.db.execute(
            "insert into conversations (platform, chat_id, user_id, state, lang, updated_at)"
            " values (?, ?, ?, ?, ?, ?) on conflict (platform, chat_id, user_id) do update set"
            " state = excluded.state, lang = excluded.lang, updated_at = excluded.updated_at",
            [platform, str(chat_id), str(user_id), state.model_dump_json(), state.lang, self.clock()],
        )
        self._prune_if_due()

    @_guarded
    def first_time(self, platform: str, update_id: str | int) -> bool:
        """True the first time an update id is seen: a redelivered update must not be answered twice.

        Telegram redelivers updates whose offset was never confirmed (say the bot was
        killed between answering and the next poll); the id is kept for a day.
        """
        cur = self.db.execute(
            "insert or ignore into seen_updates (platform, update_id, ts) values (?, ?, ?)",
            [platform, str(update_id), self.clock()],
        )
        self._prune_if_due()
        return bool(cur.rowcount)

    @_guarded
    def move_chat(self, platform: str, old_chat: str | int, new_chat: str | int) -> None:
        """A chat changed id (Telegram group → supergroup): keep everyone's conversation."""
        self.db.execute(
            "update conversations set chat_id = ? where platform = ? and chat_id = ?",
            [str(new_chat), platform, str(old_chat)],
        )

    @_guarded
    def log_plan(self, platform: str, plan: Plan, text: str | None = None) -> None:
        rec = plan.recommendation
        row = {
            "ts": self.clock(),
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

    @_guarded
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

    @_guarded
    def prune(self) -> dict[str, int]:
        """Delete what the retention policy no longer keeps, at most ``PRUNE_BATCH`` rows a table.

        Returns the rows deleted per table. A full batch leaves the next pass due at once, so a
        backlog drains a batch per write instead of stalling one turn.
        """
        now = self.clock()
        deleted = {
            table: self._delete_older(table, column, now - days * DAY_S)
            for table, column, days in (
                ("conversations", "updated_at", self.retention.conversations_days),
                ("plans_log", "ts", self.retention.plans_days),
                ("seen_updates", "ts", SEEN_KEEP_S / DAY_S),
            )
            if days > 0
        }
        backlog = any(n >= PRUNE_BATCH for n in deleted.values())
        self._next_prune = now if backlog else now + PRUNE_INTERVAL_S
        return deleted

    def _delete_older(self, table: str, column: str, cutoff: float) -> int:
        cur = self.db.execute(
            f"delete from {table} where rowid in"
            f" (select rowid from {table} where {column} < ? limit {PRUNE_BATCH})",
            [cutoff],
        )
        return int(cur.rowcount)

    def _prune_if_due(self) -> None:
        """Called after each write; costs a clock read unless a pass is due."""
        if self.clock() >= self._next_prune:
            self.prune()

    def close(self) -> None:
        self.db.close()
