"""What several processes sharing one database rely on, on both backends (``store_at``); each
thread opens its own store, so its own connection, as a process would: dedupe under a race,
one conversation's turns in order, all-or-nothing transactions, migrations applied once by
connections that open together, the backend picked by URL."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.storage import Storage, StorageUnavailable, database_url
from gpu_advisor.bot.storage.sqlite import MIGRATIONS, SQLiteStore
from gpu_advisor.bot.turn import Conversations
from gpu_advisor.bot.turn_calls import Chat, Quota, QuotaExceeded
from tests.conftest import OpenStore
from tests.test_store import Clock


def together(count: int, target: Callable[[], object]) -> list[object]:
    """``target`` in ``count`` threads at once, each with its own store (its own connection)."""
    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(lambda _: target(), range(count)))


def test_a_redelivered_update_raced_by_four_connections_is_first_for_one(store_at: OpenStore) -> None:
    url = store_at("race").url

    def claim() -> bool:
        store = Storage(url)
        try:
            return store.first_time("telegram", 77)
        finally:
            store.close()

    assert sorted(together(4, claim)) == [False, False, False, True]  # type: ignore[type-var]


def test_one_conversations_turns_from_two_connections_are_applied_in_turn(store_at: OpenStore) -> None:
    store = store_at("order")
    if isinstance(store, SQLiteStore):
        pytest.skip("SQLite serves one machine, where the server orders a chat's turns itself")

    def count_turns() -> None:
        """Read, add one, write — under ``hold``, as a turn does; any interleaving loses counts."""
        mine = Storage(store.url)
        for _ in range(40):
            with mine.hold("web", "s", "u"):
                state = mine.load("web", "s", "u")
                with mine.transaction():
                    mine.save("web", "s", "u", state.model_copy(update={"turns": state.turns + 1}))
        mine.close()

    together(2, count_turns)
    assert store.load("web", "s", "u").turns == 80


def test_a_failed_transaction_leaves_nothing_behind(store_at: OpenStore) -> None:
    store = store_at()

    def failing_turn() -> None:
        with store.transaction():
            store.save("web", "s", "u", ConversationState(turns=3))
            store.first_time("web", 9)
            raise RuntimeError("the turn failed after writing")

    with pytest.raises(RuntimeError):
        failing_turn()
    assert store.load("web", "s", "u") == ConversationState()
    assert store.first_time("web", 9) is True  # the id was not marked either


def test_connections_opening_a_new_database_together_migrate_it_once(store_at: OpenStore) -> None:
    url = store_at("fresh").url
    together(3, lambda: Storage(url).close())
    store = Storage(url)
    assert store.schema_version == len(MIGRATIONS)  # type: ignore[attr-defined]
    store.save("web", "s", "u", ConversationState(turns=1))
    assert store.load("web", "s", "u").turns == 1
    store.close()


def test_the_database_url_picks_the_backend(tmp_path: Path) -> None:
    assert type(Storage(f"sqlite:///{tmp_path}/a.db")) is SQLiteStore
    assert (tmp_path / "a.db").exists()
    assert (
        database_url("x.db", {"GPU_ADVISOR_DATABASE_URL": "postgresql://db/advisor"})
        == "postgresql://db/advisor"
    )
    assert database_url("x.db", {}) == "x.db"


def test_a_lost_connection_is_unavailable_once_then_reopened(store_at: OpenStore) -> None:
    store = store_at("lost")
    if isinstance(store, SQLiteStore):
        pytest.skip("an SQLite file has no connection to lose")
    store.save("web", "s", "u", ConversationState(turns=2))
    (pid,) = store._execute("select pg_backend_pid()").fetchone()  # type: ignore[attr-defined]
    Storage(store.url)._execute("select pg_terminate_backend(%s)", [pid])  # type: ignore[attr-defined]
    with pytest.raises(StorageUnavailable) as lost:
        store.load("web", "s", "u")
    assert lost.value.reason == "io"
    assert store.load("web", "s", "u").turns == 2  # the next turn reconnects


def test_a_client_quota_is_one_count_for_every_connection(store_at: OpenStore) -> None:
    clock = Clock()
    stores = [store_at("quota", clock=clock) for _ in range(3)]  # three processes' connections
    waits = [stores[i % 3].hit("new-session:10.0.0.1", 4, 3600) for i in range(6)]
    assert waits[:4] == [0, 0, 0, 0] and all(w == 3600 for w in waits[4:])
    assert stores[0].hit("new-session:10.0.0.2", 4, 3600) == 0  # another address has its own
    clock.now += 3600
    assert stores[1].hit("new-session:10.0.0.1", 4, 3600) == 0  # the window moved on


def test_racing_connections_never_both_take_the_last_use(store_at: OpenStore) -> None:
    url = store_at("quota-race").url

    def take() -> float:
        store = Storage(url)
        try:
            return store.hit("new-session:10.0.0.9", 3, 3600)
        finally:
            store.close()

    waits = together(8, take)
    assert sum(1 for w in waits if w == 0) == 3


def test_a_turns_quota_is_charged_for_a_new_conversation_only_and_refuses_before_saving(
    store_at: OpenStore,
) -> None:
    host = Conversations(None, store_at("turn-quota"), "web")  # type: ignore[arg-type]  # act needs no dialog
    quota = Quota("new-session:10.0.0.5", 1, 3600)

    def act(state: ConversationState) -> tuple[Any, ConversationState]:
        return SimpleNamespace(kind="info", plan=None), state.model_copy(update={"turns": state.turns + 1})

    host.step(Chat("a", "a"), act, True, quota)  # the address's one new conversation
    host.step(Chat("a", "a"), act, True, quota)  # a stored one is not charged again
    with pytest.raises(QuotaExceeded) as refused:
        host.step(Chat("b", "b"), act, True, quota)
    assert refused.value.wait_s == pytest.approx(3600, abs=5)
    assert host.store.load("web", "a", "a").turns == 2 and host.store.load("web", "b", "b").turns == 0
