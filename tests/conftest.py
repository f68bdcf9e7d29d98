"""Shared fixtures: the shipped knowledge and a dialog over it, loaded once; the loopback Bot API
and its first user; the storage backends every store test runs on."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.storage import Storage
from gpu_advisor.engine.specs import Knowledge
from tests.calibration.report import pytest_collection_modifyitems, pytest_terminal_summary  # noqa: F401
from tests.fakes import FakeTelegram, User
from tests.pg import Cluster, pg_cluster  # noqa: F401  (a session fixture)


@pytest.fixture(scope="session")
def kb() -> Knowledge:
    return knowledge.load()


@pytest.fixture(scope="session")
def dialog(kb: Knowledge) -> Dialog:
    """The dialog core over the shipped knowledge; it keeps nothing between turns but its plan cache."""
    return Dialog(kb)


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
def alice(tg: FakeTelegram) -> User:
    return tg.user(42, "Alice")


# ---- storage backends: every behaviour test that takes ``store_at`` runs on SQLite and PostgreSQL ----

OpenStore = Callable[..., Storage]
# A developer's own database URL must not send every test's tmp-path store to it.
os.environ.pop("GPU_ADVISOR_DATABASE_URL", None)


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], str]:
    """``database(name)``: the URL of database ``name`` on this test's backend (one per name)."""
    if request.param == "sqlite":
        return lambda name: str(tmp_path / f"{name}.db")
    cluster: Cluster = request.getfixturevalue("pg_cluster")
    urls: dict[str, str] = {}
    return lambda name: urls.setdefault(name, cluster.fresh_url())


@pytest.fixture
def store_at(database: Callable[[str], str]) -> Iterator[OpenStore]:
    """``store_at(name, **options)`` opens database ``name`` on this test's backend."""
    opened: list[Storage] = []

    def open_store(name: str = "s", **options: Any) -> Storage:
        opened.append(Storage(database(name), **options))
        return opened[-1]

    yield open_store
    for store in opened:
        store.close()
