"""What the store costs one web chat turn, SQLite against PostgreSQL, measured side by side.

A web chat turn is one call to the store's host (``Conversations.step`` with the web's
new-session quota): ``hold`` the conversation, ``load`` it, for a new one (nothing stored) one
``hit`` of the per-address quota, and one transaction that ``save``s the state and logs the
plan. This replays exactly that (the dialog's answer computed once beforehand, so only the
store is timed) for ``--turns`` turns over ``SESSION_TURNS``-turn sessions, on an SQLite file
and on a throw-away PostgreSQL cluster (``tests/pg.py``, Unix socket), and prints per turn:
wall time, this process's CPU, the database server's CPU (PostgreSQL's backend process, from
/proc) and what was sent: SQLite's statements, PostgreSQL's messages (each a round trip; a
message may carry several statements).

    python -m bench.storage_bench [--turns 2000] [--tiny]

This isolates the store's share of a turn: SQLite runs in the worker's own process, so the
ratio here is far below 1 by construction. The goal of issue 31 — one PostgreSQL server
process serving ≥ 0.7× the chat turns of one SQLite process — is measured end to end, with
the dialog, HTTP and worker hand-off around the store, by ``bench.scale_bench``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SESSION_TURNS = 5
WINDOW_S = 3600.0


@dataclass(frozen=True)
class Cost:
    wall_ms: float
    cpu_ms: float
    server_cpu_ms: float
    statements: float


def replay(store_url: str, turns: int) -> Cost:
    """``turns`` web chat turns' store calls; the cost of one, averaged."""
    from gpu_advisor import knowledge
    from gpu_advisor.bot.dialog import ConversationState, Dialog
    from gpu_advisor.bot.storage import Storage
    from gpu_advisor.bot.turn import Conversations
    from gpu_advisor.bot.turn_calls import Chat, Quota

    dialog = Dialog(knowledge.load())
    reply, answered = dialog.handle(ConversationState(), "deploy a 13B model for 8 users 24/7")
    store = Storage(store_url)
    host = Conversations(dialog, store, "web")
    counted = _count_statements(store)
    server = _server_cpu(store)

    def act(state: ConversationState) -> tuple[object, ConversationState]:
        return reply, answered.model_copy(update={"turns": state.turns + 1})

    def turn(i: int) -> None:
        chat = Chat(f"s{i // SESSION_TURNS}", f"s{i // SESSION_TURNS}", "en")
        quota = Quota(f"new-session:10.0.0.{i % 250}", 10**6, WINDOW_S)
        host.step(chat, act, True, quota)  # type: ignore[arg-type]

    turn(-SESSION_TURNS)  # warm: the connection, prepared statements
    before_server, before_statements = server(), counted()
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(turns):
        turn(i)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    cost = Cost(
        1000 * wall / turns,
        1000 * cpu / turns,
        1000 * (server() - before_server) / turns,
        (counted() - before_statements) / turns,
    )
    store.close()
    return cost


def _count_statements(store: object) -> Callable[[], int]:
    """Count what the store sends: SQLite's trace callback, or psycopg's cursor executes, each one
    message (a connection's ``execute`` is a cursor's: counting both would count each twice)."""
    sent = [0]
    db = getattr(store, "db", None)
    if db is not None:
        db.conn.set_trace_callback(lambda _: sent.__setitem__(0, sent[0] + 1))
    else:
        from psycopg import Cursor

        original = Cursor.execute

        def counting(self: object, *a: object, **k: object) -> Any:
            sent[0] += 1
            return original(self, *a, **k)  # type: ignore[arg-type]

        Cursor.execute = counting  # type: ignore[method-assign]
    return lambda: sent[0]


def _server_cpu(store: object) -> Callable[[], float]:
    """Seconds of CPU the store's PostgreSQL backend has used (0 for SQLite: it runs in-process)."""
    conn = getattr(store, "_conn", None)
    if conn is None:
        return lambda: 0.0
    pid = conn.info.backend_pid
    ticks = os.sysconf("SC_CLK_TCK")

    def read() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    return read


def line(name: str, cost: Cost, base: Cost | None) -> str:
    ratio = f"  ×{base.cpu_ms / cost.cpu_ms:.2f} of SQLite's turns per CPU-second" if base else ""
    sent = "round trips" if base else "statements"
    return (
        f"{name:<11} {cost.wall_ms:6.3f} ms wall  {cost.cpu_ms:6.3f} ms CPU"
        f"  server {cost.server_cpu_ms:6.3f} ms  {cost.statements:4.1f} {sent}/turn{ratio}"
    )


def main(argv: list[str] | None = None) -> int:
    from tests.pg import running_cluster

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--tiny", action="store_true", help="a few turns: does the bench still run?")
    args = parser.parse_args(argv)
    turns = 20 if args.tiny else args.turns
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = replay(str(Path(tmp) / "bench.db"), turns)
    print(line("sqlite", sqlite, None))
    with running_cluster() as cluster:
        print(line("postgresql", replay(cluster.fresh_url(), turns), sqlite))
    return 0


if __name__ == "__main__":
    sys.exit(main())
