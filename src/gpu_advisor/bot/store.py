"""Where conversations are kept: ``bot.storage`` (SQLite by default, PostgreSQL by URL).

Kept so that ``from bot.store import Store, StorageUnavailable`` reads as before: ``Store``
is ``bot.storage.Storage``, and ``Store(path_or_url)`` opens the backend that names.
"""

from __future__ import annotations

from gpu_advisor.bot.storage import (
    DAY_S,
    PRUNE_BATCH,
    PRUNE_INTERVAL_S,
    SEEN_KEEP_S,
    Retention,
    Storage,
    StorageUnavailable,
    database_url,
    migrate_state,
)
from gpu_advisor.bot.storage.sqlite import (
    BUSY_TIMEOUT_MS,
    MIGRATIONS,
    UNAVAILABLE,
    SQLiteStore,
    storage_errors,
    unavailable,
)

Store = Storage

__all__ = [
    "BUSY_TIMEOUT_MS",
    "DAY_S",
    "MIGRATIONS",
    "PRUNE_BATCH",
    "PRUNE_INTERVAL_S",
    "SEEN_KEEP_S",
    "UNAVAILABLE",
    "Retention",
    "SQLiteStore",
    "Storage",
    "StorageUnavailable",
    "Store",
    "database_url",
    "migrate_state",
    "storage_errors",
    "unavailable",
]
