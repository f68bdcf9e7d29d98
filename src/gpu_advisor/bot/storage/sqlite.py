"""The embedded default: one SQLite file (sqlite-utils), so a restart loses nothing.

One row per (platform, chat, user) holds the conversation state as JSON, written after
every turn. The database runs in WAL mode with a busy timeout, so two bot processes (say
Telegram and the web widget) on one machine can share one file; several machines need
PostgreSQL (``bot.storage.postgres``). The plan log is append-only.

Schema versions are applied in order by ``MIGRATIONS``; ``meta.schema_version`` records the
last one applied, so an old database is upgraded in place on open. Retention deletes go
through the ``updated_at``/``ts`` indexes, ``PRUNE_BATCH`` rows a table per pass.

When SQLite cannot write at all (disk full, read-only file, I/O error) the store raises
``StorageUnavailable``, so a surface can say "try again later" instead of crashing.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

import sqlite_utils

from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.storage import (
    PLAN_COLUMNS,
    PRUNE_BATCH,
    Storage,
    StorageUnavailable,
    check_schema,
    migrate_state,
    plan_row,
)
from gpu_advisor.bot.storage.outage import OUTAGE
from gpu_advisor.engine.results import Plan

BUSY_TIMEOUT_MS = 5000
SCHEME = "sqlite:///"


def _v1(db: sqlite_utils.Database) -> None:
    db.table("conversations").create(
        {"platform": str, "chat_id": str, "user_id": str, "state": str, "lang": str, "updated_at": float},
        pk=("platform", "chat_id", "user_id"),
        if_not_exists=True,
    )
    columns: dict[str, Any] = {"id": int, "ts": float, "platform": str, "task": str, "model": str}
    columns |= {"params_b": float, "offer": str, "gpu": str, "gpus": int, "amount": float}
    columns |= {"currency": str, "per": str, "status": str, "text": str}
    db.table("plans_log").create(columns, pk="id", if_not_exists=True)


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


def _v5(db: sqlite_utils.Database) -> None:
    """Per-client quotas shared by every process (``Storage.hit``)."""
    db.table("client_hits").create({"key": str, "ts": float}, if_not_exists=True)
    db.table("client_hits").create_index(["key", "ts"], if_not_exists=True)
    db.table("client_hits").create_index(["ts"], if_not_exists=True)


MIGRATIONS: tuple[Callable[[sqlite_utils.Database], None], ...] = (_v1, _v2, _v3, _v4, _v5)
_LOG_PLAN = f"insert into plans_log ({', '.join(PLAN_COLUMNS)}) values ({', '.join('?' * len(PLAN_COLUMNS))})"
# SQLite's messages for "cannot write here at all" (sqlite3.c: sqlite3ErrStr), and what they mean.
UNAVAILABLE = {
    "database or disk is full": "full",
    "attempt to write a readonly database": "read_only",
    "disk i/o error": "io",
}
P = ParamSpec("P")
R = TypeVar("R")


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
        OUTAGE.failed(mapped.reason, mapped.detail)  # said once per outage, with a count
        raise mapped from exc
    OUTAGE.answered()


def _guarded(method: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with storage_errors():
            return method(*args, **kwargs)

    return wrapper


class SQLiteStore(Storage):
    """One SQLite file; ``url`` is its path (``sqlite:///path`` is read the same)."""

    @_guarded
    def open(self, url: str) -> None:
        self.path = self.url = url.removeprefix(SCHEME)
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
            check_schema(current, len(MIGRATIONS))
            for version, step in enumerate(MIGRATIONS, start=1):
                if version > current:
                    step(self.db)
            if current < len(MIGRATIONS):
                row = {"key": "schema_version", "value": str(len(MIGRATIONS))}
                self.db.table("meta").upsert(row, pk="key")

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

    @contextmanager
    def hold(self, platform: str, chat_id: str | int, user_id: str | int) -> Iterator[None]:
        """Nothing to take: one file serves one machine, whose server orders a chat's turns itself."""
        yield

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
        self.prune_if_due()

    @_guarded
    def first_time(self, platform: str, update_id: str | int) -> bool:
        cur = self.db.execute(
            "insert or ignore into seen_updates (platform, update_id, ts) values (?, ?, ?)",
            [platform, str(update_id), self.clock()],
        )
        self.prune_if_due()
        return bool(cur.rowcount)

    @_guarded
    def move_chat(self, platform: str, old_chat: str | int, new_chat: str | int) -> None:
        self.db.execute(
            "update conversations set chat_id = ? where platform = ? and chat_id = ?",
            [str(new_chat), platform, str(old_chat)],
        )

    @_guarded
    def log_plan(self, platform: str, plan: Plan, text: str | None = None) -> None:
        self.db.execute(_LOG_PLAN, plan_row(self.clock(), platform, plan, text if self.log_text else None))

    @_guarded
    def stats(self) -> dict[str, Any]:
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
    def hit(self, key: str, limit: int, window_s: float) -> float:
        now = self.clock()
        with self.transaction():  # BEGIN IMMEDIATE: no other writer between the count and the insert
            used, first = self.db.execute(
                "select count(*), min(ts) from client_hits where key = ? and ts > ?", [key, now - window_s]
            ).fetchone()
            if used >= limit:
                return max(0.0, float(first) + window_s - now)
            self.db.execute("insert into client_hits (key, ts) values (?, ?)", [key, now])
        return 0.0

    @_guarded
    def prune(self) -> dict[str, int]:
        return super().prune()

    def delete_older(self, table: str, column: str, cutoff: float) -> int:
        cur = self.db.execute(
            f"delete from {table} where rowid in"
            f" (select rowid from {table} where {column} < ? limit {PRUNE_BATCH})",
            [cutoff],
        )
        return int(cur.rowcount)

    def close(self) -> None:
        self.db.close()
