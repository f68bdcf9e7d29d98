"""Conversation state, the plan log and redelivery ids behind one interface, in SQLite or PostgreSQL.

``Storage`` is what a turn needs of a database (``load``/``save`` a conversation, ``first_time``
for an update id, ``log_plan``, ``move_chat``, ``prune``, ``stats``, one ``transaction``, and
``hold`` to serialize one conversation's turns across processes). Calling ``Storage(target)``
opens the backend the target names, as ``pathlib.Path(...)`` gives a ``PosixPath``:

- a file path or ``sqlite:///path`` — SQLite (``bot.storage.sqlite``), the embedded default;
- ``postgresql://…`` or a keyword DSN (``host=… dbname=…``) — PostgreSQL
  (``bot.storage.postgres``, psycopg 3), which several stateless server processes on
  several machines can share.

``GPU_ADVISOR_DATABASE_URL`` (``gpu-advisor --database-url``), when set, wins over the target
every surface passes (its ``--db`` path), so worker processes that open the store themselves
reach the same database. Both backends apply the same schema versions, the same
dedupe (a primary key: an insert that conflicts answers "seen before"), and the same
``Retention``; a database that cannot be written raises ``StorageUnavailable``. What is
neither (``mysql://…``) is refused by ``bot.storage.target`` before anything is created.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, cast

if TYPE_CHECKING:  # the dialog and the engine load with a backend, not with the settings' check
    from gpu_advisor.bot.dialog.state import ConversationState
    from gpu_advisor.engine.results import Plan

URL_VARIABLE = "GPU_ADVISOR_DATABASE_URL"
DEFAULT_PATH = "gpu-advisor.db"
DAY_S = 86_400.0
SEEN_KEEP_S = DAY_S
PRUNE_INTERVAL_S = 600.0
PRUNE_BATCH = 2_000

__all__ = [
    "DAY_S",
    "PRUNE_BATCH",
    "PRUNE_INTERVAL_S",
    "SEEN_KEEP_S",
    "Retention",
    "SchemaTooNew",
    "Storage",
    "StorageUnavailable",
    "check_schema",
    "database_url",
    "migrate_state",
    "plan_row",
]


class SchemaTooNew(SystemExit):
    """The database was written by a newer version of this program: an older binary must not
    open it (migrations only go forward; writing the version down would lie to the newer one).

    A ``SystemExit``: the process stops with this sentence, as for any setting it cannot use.
    """

    def __init__(self, found: int, known: int) -> None:
        super().__init__(
            f"the database is at schema version {found}, newer than this gpu-advisor knows ({known}):"
            " it was upgraded by a newer release. Run that release (or newer); this one will not"
            " open it, and never moves a schema back."
        )
        self.found, self.known = found, known


def check_schema(found: int, known: int) -> None:
    """Refuse a database whose schema is newer than the migrations this program has."""
    if found > known:
        raise SchemaTooNew(found, known)


class StorageUnavailable(Exception):
    """The database cannot be written (``reason``: full, read_only or io); nothing was saved."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"storage unavailable ({reason}): {detail}")
        self.reason, self.detail = reason, detail

    def __reduce__(self) -> tuple[type[StorageUnavailable], tuple[str, str]]:
        """Rebuilt from both arguments, so it crosses the worker-process boundary intact."""
        return (StorageUnavailable, (self.reason, self.detail))


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

    def ages(self) -> tuple[tuple[str, str, float], ...]:
        """(table, timestamp column, days kept) for each table that expires; redelivery ids a day."""
        every = (
            ("conversations", "updated_at", self.conversations_days),
            ("plans_log", "ts", self.plans_days),
            ("seen_updates", "ts", SEEN_KEEP_S / DAY_S),
            ("client_hits", "ts", SEEN_KEEP_S / DAY_S),  # quotas count an hour at most
        )
        return tuple(age for age in every if age[2] > 0)


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
    from gpu_advisor.bot.dialog.state import STATE_VERSION

    data.setdefault("version", 1)
    data["version"] = STATE_VERSION
    return data


def database_url(target: str | Path | None = None, env: Mapping[str, str] = os.environ) -> str:
    """The database to open: ``$GPU_ADVISOR_DATABASE_URL`` if set, else ``target``, else the default file."""
    return env.get(URL_VARIABLE, "").strip() or str(target or DEFAULT_PATH)


def _backend(url: str) -> type[Storage]:
    """The class that opens ``url``; ``BadDatabase`` (a ``ValueError``) for what is neither backend's."""
    from gpu_advisor.bot.storage.target import EXTRA, read_database

    if read_database(url).kind == "postgresql":
        try:
            from gpu_advisor.bot.storage.postgres import PostgresStore
        except ImportError as exc:  # the optional extra is not installed
            raise SystemExit(f"a PostgreSQL database needs psycopg: {EXTRA} ({exc})") from None
        return PostgresStore
    from gpu_advisor.bot.storage.sqlite import SQLiteStore

    return SQLiteStore


PLAN_COLUMNS = (
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


def plan_row(ts: float, platform: str, plan: Plan, text: str | None) -> tuple[Any, ...]:
    """One plan-log row, in ``PLAN_COLUMNS`` order: what was recommended, never who asked."""
    rec = plan.recommendation
    row = {
        "ts": ts,
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
        "text": text,
    }
    return tuple(row[c] for c in PLAN_COLUMNS)


class Storage:
    """What a turn needs of a database. ``Storage(target)`` opens the backend ``target`` names;
    each backend implements every method that raises ``NotImplementedError`` here."""

    url: str
    threadsafe = False  # may be called from another thread than the one that opened it (readyz)
    log_text: bool
    retention: Retention
    clock: Callable[[], float]

    def __new__(
        cls,
        target: str | Path | None = None,
        log_text: bool = False,
        retention: Retention | None = None,
        clock: Callable[[], float] = time.time,
    ) -> Self:
        """Pick the backend (when called on ``Storage`` itself), then open it."""
        url = database_url(target) if cls is Storage else str(target or DEFAULT_PATH)
        backend = _backend(url) if cls is Storage else cls
        self = cast(Self, object.__new__(backend))
        self.log_text, self.retention, self.clock = log_text, retention or Retention.from_env(), clock
        self._next_prune = 0.0
        self.open(url)
        self.prune()
        return self

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Everything is done in ``__new__`` (``open``), whichever class was called."""

    def open(self, url: str) -> None:
        """Connect and bring the schema up to date (every process may do this at once)."""
        raise NotImplementedError

    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction; nested use joins the outer one."""
        raise NotImplementedError

    def hold(self, platform: str, chat_id: str | int, user_id: str | int) -> AbstractContextManager[None]:
        """This conversation's turns one at a time, whichever process runs them."""
        raise NotImplementedError

    def load(self, platform: str, chat_id: str | int, user_id: str | int) -> ConversationState:
        """The stored state, or a fresh one."""
        raise NotImplementedError

    def save(self, platform: str, chat_id: str | int, user_id: str | int, state: ConversationState) -> None:
        """Write the state (and prune, if a pass is due)."""
        raise NotImplementedError

    def first_time(self, platform: str, update_id: str | int) -> bool:
        """True the first time an update id is seen: a redelivered update must not be answered twice.

        Telegram redelivers updates whose offset was never confirmed (say the bot was killed
        between answering and the next poll); the id is kept for a day.
        """
        raise NotImplementedError

    def move_chat(self, platform: str, old_chat: str | int, new_chat: str | int) -> None:
        """A chat changed id (Telegram group → supergroup): keep everyone's conversation."""
        raise NotImplementedError

    def log_plan(self, platform: str, plan: Plan, text: str | None = None) -> None:
        """Append to the plan log (``text`` only when the operator turned that on)."""
        raise NotImplementedError

    def stats(self) -> dict[str, Any]:
        """Operator statistics: conversations, plans, and the most recommended offers."""
        raise NotImplementedError

    def hit(self, key: str, limit: int, window_s: float) -> float:
        """Count one use of a per-client quota that every process shares (``limit`` uses in any
        ``window_s``): 0 when this use is allowed and counted, else the seconds until one is free."""
        raise NotImplementedError

    def delete_older(self, table: str, column: str, cutoff: float) -> int:
        """Delete at most ``PRUNE_BATCH`` rows of ``table`` older than ``cutoff``; how many went."""
        raise NotImplementedError

    def close(self) -> None:
        """Let the connection go."""
        raise NotImplementedError

    def ping(self) -> None:
        """Raise unless the database answers a keyed read now (readiness)."""
        self.load("readyz", "probe", "probe")

    def prune(self) -> dict[str, int]:
        """Delete what the retention policy no longer keeps, at most ``PRUNE_BATCH`` rows a table.

        Returns the rows deleted per table. A full batch leaves the next pass due at once, so a
        backlog drains a batch per write instead of stalling one turn.
        """
        now = self.clock()
        deleted = {
            table: self.delete_older(table, column, now - days * DAY_S)
            for table, column, days in self.retention.ages()
        }
        backlog = any(n >= PRUNE_BATCH for n in deleted.values())
        self._next_prune = now if backlog else now + PRUNE_INTERVAL_S
        return deleted

    def prune_if_due(self) -> None:
        """Called after each write; costs a clock read unless a pass is due."""
        if self.clock() >= self._next_prune:
            self.prune()
