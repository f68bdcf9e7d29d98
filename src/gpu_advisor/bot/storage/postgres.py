"""PostgreSQL (psycopg 3): one database that several server processes on several machines share.

Same tables, same schema versions, same retention as SQLite (``bot.storage.sqlite``); the
differences are what sharing needs:

- **Migrations** run under a transaction-scoped advisory lock, so processes that start
  together apply each version once.
- **Dedupe** is the ``seen_updates`` primary key: ``INSERT … ON CONFLICT DO NOTHING`` inserts
  one row for the first delivery; a concurrent second one waits for the first to commit and
  then inserts nothing.
- **Per-chat ordering** (``hold``): the turn is one transaction under an advisory lock keyed
  by the conversation, taken before the state is read and let go when it is saved, so one
  chat's turns run one at a time whichever process or machine receives them (two round
  trips). A process killed with ``-9`` loses its connection, and PostgreSQL lets its locks go.
- **Per-client quotas** (``hit``): counted in ``client_hits`` under a transaction-scoped
  advisory lock per key, so two processes never both take the last use.

Each process keeps one connection (turns in a process run one at a time), opened lazily and
reopened after a failure. A lost connection or server (no SQLSTATE, class 08 or 57), a full
disk (SQLSTATE 53100) or a read-only server (25006) is ``StorageUnavailable``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

import psycopg
from psycopg.pq import TransactionStatus

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
from gpu_advisor.bot.storage.watchdog import Watchdog
from gpu_advisor.engine.results import Plan

# Client-side deadlines (``bot.storage.watchdog``): a server that answers nothing this long is hung,
# and the caller gets StorageUnavailable (the web: 503 + Retry-After) instead of waiting with it.
CONNECT_TIMEOUT_S = 2  # libpq's connect_timeout: whole seconds
STATEMENT_DEADLINE_S = 2.0
LOCK_DEADLINE_S = 15.0  # behind another process's turn of the same conversation (turn deadline 10 s)
MIGRATE_DEADLINE_S = 60.0  # a migration may build an index on a large table
PING_DEADLINE_S = 1.0  # /readyz answers within its own short timeout
MIGRATION_LOCK = 0x6770_7561  # any constant: every process of this application takes the same one
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "create table if not exists conversations (platform text, chat_id text, user_id text,"
        " state text, lang text, updated_at double precision, primary key (platform, chat_id, user_id))",
        "create table if not exists plans_log (id bigserial primary key, ts double precision,"
        " platform text, task text, model text, params_b double precision, offer text, gpu text,"
        " gpus integer, amount double precision, currency text, per text, status text, text text)",
    ),
    ("create index if not exists conversations_updated_at on conversations (updated_at)",),
    (
        "create table if not exists seen_updates (platform text, update_id text, ts double precision,"
        " primary key (platform, update_id))",
    ),
    (
        "create index if not exists plans_log_ts on plans_log (ts)",
        "create index if not exists seen_updates_ts on seen_updates (ts)",
    ),
    (
        "create table if not exists client_hits (key text, ts double precision)",
        "create index if not exists client_hits_key_ts on client_hits (key, ts)",
        "create index if not exists client_hits_ts on client_hits (ts)",
    ),
)
_LOG_PLAN = (
    f"insert into plans_log ({', '.join(PLAN_COLUMNS)}) values ({', '.join(['%s'] * len(PLAN_COLUMNS))})"
)
# The window's count and its oldest use, and the use itself only below the limit (a statement of
# its own after the key's lock, so its snapshot sees every use committed before the lock was had).
_HIT = (
    "with used as (select count(*) as n, coalesce(min(ts), 0) as first from client_hits"
    " where key = %s and ts > %s),"
    " counted as (insert into client_hits (key, ts) select %s, %s from used where n < %s)"
    " select n, first from used"
)
# SQLSTATEs meaning "cannot write here at all" (PostgreSQL appendix A, error codes).
UNAVAILABLE = {"53100": "full", "25006": "read_only"}
LOST_CLASSES = (
    "",
    "08",
    "57",
)  # no SQLSTATE (no server reached), connection exception, operator intervention
P = ParamSpec("P")
R = TypeVar("R")


def unavailable(exc: psycopg.Error) -> StorageUnavailable | None:
    """The ``StorageUnavailable`` a psycopg error amounts to, or None if it is some other fault."""
    state = exc.sqlstate or ""
    reason = UNAVAILABLE.get(state)
    if reason is None and isinstance(exc, psycopg.OperationalError) and state[:2] in LOST_CLASSES:
        reason = "io"  # the connection failed or the server is shutting down: try again later
    return None if reason is None else StorageUnavailable(reason, str(exc).strip())


def reported(exc: psycopg.Error) -> StorageUnavailable | None:
    """``unavailable(exc)``, counted in this process's outage (said once, ``bot.storage.outage``)."""
    mapped = unavailable(exc)
    if mapped is not None:
        OUTAGE.failed(mapped.reason, mapped.detail)
    return mapped


def _guarded(method: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            result = method(*args, **kwargs)
        except psycopg.Error as exc:
            mapped = reported(exc)
            if mapped is None:
                raise
            raise mapped from exc
        OUTAGE.answered()
        return result

    return wrapper


def chat_key(platform: str, chat_id: str | int, user_id: str | int) -> int:
    """A signed 64-bit advisory-lock key for one conversation (a collision only serializes two chats)."""
    digest = hashlib.blake2b(f"{platform}\0{chat_id}\0{user_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class PostgresStore(Storage):
    """A PostgreSQL database named by a ``postgresql://`` URL or a keyword DSN (libpq's reading)."""

    threadsafe = True

    @_guarded
    def open(self, url: str) -> None:
        self.url = url
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.RLock()  # a connection's transaction is one thread's at a time
        self._pending: list[str] | None = None  # inside ``hold``: statements that go with the next send
        self._batch: psycopg.ClientCursor[Any] | None = None  # binds and sends them, inside ``hold``
        self._wait_lock: str | None = None  # inside ``hold`` until the first send: the blocking lock
        self.watchdog = Watchdog(self._socket)
        with self._connection() as conn, self.watchdog.armed(MIGRATE_DEADLINE_S):
            if self._current(conn) == len(MIGRATIONS):
                return  # the usual start: nothing to apply, no lock to take
            with conn.transaction():
                conn.execute("select pg_advisory_xact_lock(%s)", [MIGRATION_LOCK])
                conn.execute("create table if not exists meta (key text primary key, value text)")
                self._migrate(conn, self._version(conn))

    @staticmethod
    def _migrate(conn: psycopg.Connection[Any], current: int) -> None:
        check_schema(current, len(MIGRATIONS))
        for version, statements in enumerate(MIGRATIONS, start=1):
            for statement in statements if version > current else ():
                conn.execute(statement)
        if current < len(MIGRATIONS):
            conn.execute(
                "insert into meta values ('schema_version', %s)"
                " on conflict (key) do update set value = excluded.value",
                [str(len(MIGRATIONS))],
            )

    def _current(self, conn: psycopg.Connection[Any]) -> int:
        """The schema version without a lock (0 before the first migration); a newer one stops here."""
        if conn.execute("select to_regclass('meta') is not null").fetchone() != (True,):
            return 0
        current = self._version(conn)
        check_schema(current, len(MIGRATIONS))
        return current

    @staticmethod
    def _version(conn: psycopg.Connection[Any]) -> int:
        row = conn.execute("select value from meta where key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    @property
    def schema_version(self) -> int:
        with self._connection() as conn:
            return self._version(conn)

    def _socket(self) -> int | None:
        conn = self._conn
        return None if conn is None or conn.closed else conn.pgconn.socket

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """This process's connection, opened (again) if it is gone; a broken one is dropped."""
        with self._lock:
            if self._conn is None or self._conn.closed:
                with self.watchdog.armed(CONNECT_TIMEOUT_S + 1):
                    self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
            try:
                yield self._conn
            except psycopg.OperationalError:
                if self._conn.broken:
                    self._conn = None
                raise

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction; inside ``hold`` it joins the turn's, else nested use is a savepoint."""
        if self._pending is not None:
            yield
            return
        try:
            with self._connection() as conn, self.watchdog.armed(STATEMENT_DEADLINE_S), conn.transaction():
                yield
        except psycopg.Error as exc:
            mapped = reported(exc)
            if mapped is None:
                raise
            raise mapped from exc

    @contextmanager
    def hold(self, platform: str, chat_id: str | int, user_id: str | int) -> Iterator[None]:
        """The turn as one transaction under a transaction-scoped advisory lock, in two round trips:
        BEGIN and the lock travel with the ``load`` that follows, the writes are kept and travel
        with the COMMIT. Each trip is one simple-query message of several statements, bound by
        the client (``ClientCursor``): one send and one read, where an extended-protocol pipeline
        spends a parse/bind/execute exchange and a Python round of its own on every statement.

        The lock is first *tried*, so every trip answers within the short statement deadline and
        a hung server fails the turn in seconds; only when another process's turn of this
        conversation holds it does a third trip wait for it (``LOCK_DEADLINE_S``)."""
        key = chat_key(platform, chat_id, user_id)
        try:
            with self._connection() as conn:
                self._batch = psycopg.ClientCursor(conn)
                self._pending = ["begin", self._batch.mogrify("select pg_try_advisory_xact_lock(%s)", [key])]
                self._wait_lock = self._batch.mogrify("select pg_advisory_xact_lock(%s)", [key])
                try:
                    yield
                    self.watchdog.rearm(STATEMENT_DEADLINE_S)  # the COMMIT's round trip
                    self._send("commit")
                except BaseException:
                    self._pending = None
                    if not conn.broken and conn.info.transaction_status != TransactionStatus.IDLE:
                        with contextlib.suppress(psycopg.Error):
                            conn.execute("rollback")
                    raise
                finally:
                    self._pending, self._batch, self._wait_lock = None, None, None
        except psycopg.Error as exc:
            mapped = reported(exc)
            if mapped is None:
                raise
            raise mapped from exc
        finally:
            self.watchdog.disarm()

    def _send(self, last: str) -> psycopg.ClientCursor[Any]:
        """Inside ``hold``: the kept statements and ``last`` in one message; the cursor on its result."""
        batch, sent = self._batch, [*(self._pending or ()), last]
        assert batch is not None
        batch.execute("; ".join(sent))  # no parameters: sent as written
        self._pending = []
        if self._wait_lock is not None:  # the first send: BEGIN, the tried lock, …
            wait, self._wait_lock = self._wait_lock, None
            batch.nextset()
            if batch.fetchone() != (True,):  # another turn of this conversation has it: start over, waiting
                self.watchdog.rearm(LOCK_DEADLINE_S)
                batch.execute("; ".join(["rollback", "begin", wait, *sent[2:]]))
        while batch.nextset():
            pass
        return batch

    def _execute(self, query: str, params: Any = ()) -> psycopg.Cursor[Any]:
        """One statement within its deadline; inside ``hold``, with the statements kept so far."""
        with self._connection() as conn, self.watchdog.armed(STATEMENT_DEADLINE_S):
            if self._batch is not None:
                return self._send(self._batch.mogrify(query, params))
            return conn.execute(query, params)

    def _write(self, query: str, params: Any) -> None:
        """A statement whose result nobody reads: inside ``hold`` it waits for the next send."""
        if self._batch is None or self._pending is None:
            self._execute(query, params)
        else:
            self._pending.append(self._batch.mogrify(query, params))

    @_guarded
    def load(self, platform: str, chat_id: str | int, user_id: str | int) -> ConversationState:
        with self.watchdog.armed(STATEMENT_DEADLINE_S):
            row = self._execute(
                "select state from conversations where platform = %s and chat_id = %s and user_id = %s",
                [platform, str(chat_id), str(user_id)],
            ).fetchone()
        if row is None:
            return ConversationState()
        return ConversationState.model_validate(migrate_state(json.loads(row[0])))

    @_guarded
    def save(self, platform: str, chat_id: str | int, user_id: str | int, state: ConversationState) -> None:
        self._write(
            "insert into conversations (platform, chat_id, user_id, state, lang, updated_at)"
            " values (%s, %s, %s, %s, %s, %s) on conflict (platform, chat_id, user_id) do update set"
            " state = excluded.state, lang = excluded.lang, updated_at = excluded.updated_at",
            [platform, str(chat_id), str(user_id), state.model_dump_json(), state.lang, self.clock()],
        )
        self.prune_if_due()

    @_guarded
    def first_time(self, platform: str, update_id: str | int) -> bool:
        with self.watchdog.armed(STATEMENT_DEADLINE_S):
            row = self._execute(
                "insert into seen_updates (platform, update_id, ts) values (%s, %s, %s)"
                " on conflict do nothing returning 1",
                [platform, str(update_id), self.clock()],
            ).fetchone()
        self.prune_if_due()
        return row is not None

    @_guarded
    def move_chat(self, platform: str, old_chat: str | int, new_chat: str | int) -> None:
        self._write(
            "update conversations set chat_id = %s where platform = %s and chat_id = %s",
            [str(new_chat), platform, str(old_chat)],
        )

    @_guarded
    def log_plan(self, platform: str, plan: Plan, text: str | None = None) -> None:
        self._write(_LOG_PLAN, plan_row(self.clock(), platform, plan, text if self.log_text else None))

    @_guarded
    def stats(self) -> dict[str, Any]:
        with self.watchdog.armed(STATEMENT_DEADLINE_S):
            top = self._execute(
                "select offer, count(*) from plans_log where offer is not null"
                " group by offer order by 2 desc, 1 limit 5"
            ).fetchall()
            (conversations,) = self._execute("select count(*) from conversations").fetchone() or (0,)
            (plans,) = self._execute("select count(*) from plans_log").fetchone() or (0,)
        return {
            "conversations": conversations,
            "plans": plans,
            "top_offers": [{"offer": o, "count": n} for o, n in top],
        }

    @_guarded
    def hit(self, key: str, limit: int, window_s: float) -> float:
        """The key's lock, then one statement that counts the window and inserts only below the
        limit: one round trip inside a turn (``hold``: it joins the turn's transaction, and its
        lock is held until the turn commits), pipelined with BEGIN … COMMIT on its own."""
        now = self.clock()
        lock = ("select pg_advisory_xact_lock(%s)", [chat_key("quota", key, "")])
        params = [key, now - window_s, key, now, limit]
        if self._pending is not None:
            self._write(*lock)
            used, first = self._execute(_HIT, params).fetchone() or (0, now)
        else:
            with (
                self._connection() as conn,
                self.watchdog.armed(STATEMENT_DEADLINE_S),
                conn.pipeline(),
                conn.transaction(),
            ):
                conn.execute(*lock)
                used, first = conn.execute(_HIT, params).fetchone() or (0, now)
        return max(0.0, float(first) + window_s - now) if used >= limit else 0.0

    def ping(self) -> None:
        """A fresh connection's ``select 1`` within ``PING_DEADLINE_S`` (readiness): it never waits
        behind a turn on this store's connection, and a hung server fails it in time."""
        dog: Watchdog | None = None
        conn = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        try:
            dog = Watchdog(lambda: None if conn.closed else conn.pgconn.socket)
            with dog.armed(PING_DEADLINE_S):
                conn.execute("select 1").fetchone()
        finally:
            if dog is not None:
                dog.stop()
            conn.close()

    @_guarded
    def prune(self) -> dict[str, int]:
        return super().prune()

    def delete_older(self, table: str, column: str, cutoff: float) -> int:
        with self.watchdog.armed(STATEMENT_DEADLINE_S):
            rows = self._execute(
                f"with gone as (delete from {table} where ctid in"
                f" (select ctid from {table} where {column} < %s limit {PRUNE_BATCH}) returning 1)"
                " select count(*) from gone",
                [cutoff],
            ).fetchone()
        return int(rows[0]) if rows else 0

    def close(self) -> None:
        self.watchdog.stop()
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
