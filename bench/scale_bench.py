"""Several server processes over one PostgreSQL database: throughput as a ratio to one process.

Starts a throw-away PostgreSQL cluster (``tests/pg.py``), then for 1, 2 and 4 server processes
(``gpu-advisor web --processes N --workers 1``, one turn worker each) drives the same load —
``SESSIONS`` web conversations of the same script, ``CONCURRENCY`` at a time, each from its
own client address (``X-Forwarded-For`` from the ``--trusted-proxy`` 127.0.0.1, so the per-address
limits do not throttle a benchmark) — and prints turns per second and the ratio to one process
measured in the same run. It then counts what the database holds: every conversation must
have exactly as many turns as were sent (0 lost, 0 duplicated). Last, with 2 processes, it
kills one with ``-9`` halfway through every conversation and checks that they all finish on
the other.

    python -m bench.scale_bench [--sessions 96] [--concurrency 24] [--processes 1 2 4]

The ratio is bounded by the machine's cores: each process needs about two (server and turn
worker), so a 2-core machine shows little gain past one process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import aiohttp

SCRIPT = ("部署 13B 模型", "并发 8", "7×24", "/why", "/cost")
START_S = 120.0
WARM_SESSIONS = 8  # run first and not counted: each backend is measured warm
STDERR = None if os.environ.get("SCALE_BENCH_LOG") else subprocess.DEVNULL


@dataclass
class Load:
    """What one run sent and got back."""

    turns: int
    seconds: float
    failed: int

    @property
    def per_second(self) -> float:
        return self.turns / self.seconds


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def servers(url: str, processes: int, port: int) -> Iterator[subprocess.Popen[bytes]]:
    """``gpu-advisor web --processes N`` over ``url`` on ``port``, ready once it answers; stopped after."""
    argv = ["--database-url", url, "web", "--port", str(port), "--processes", str(processes)]
    argv += ["--workers", "1", "--trusted-proxy", "127.0.0.1"]
    proc = subprocess.Popen([sys.executable, "-m", "gpu_advisor.bot.cli", *argv], stderr=STDERR)
    try:
        asyncio.run(_ready(port, processes, proc))
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def children(proc: subprocess.Popen[bytes]) -> list[int]:
    """The supervisor's server processes (Linux: /proc)."""
    with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
        return [int(pid) for pid in f.read().split()]


async def _ready(port: int, processes: int, proc: subprocess.Popen[bytes]) -> None:
    """Until every process listens: as many answering sockets as processes is not observable,
    so wait for an answer, then for each child to have its turn worker (a grandchild)."""
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the servers exited ({proc.returncode})")
        pids = children(proc) if processes > 1 else [proc.pid]  # one process serves without a supervisor
        workers = sum(1 for pid in pids if _has_children(pid))
        if len(pids) == processes and workers == processes and await _answers(port):
            return
        await asyncio.sleep(0.3)
    raise TimeoutError(f"{processes} server process(es) did not come up in {START_S:g} s")


def _has_children(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return bool(f.read().split())
    except OSError:
        return False


async def _answers(port: int) -> bool:
    try:
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"http://127.0.0.1:{port}/openapi.json") as response,
        ):
            return response.status == 200
    except aiohttp.ClientError:
        return False


async def say(http: aiohttp.ClientSession, port: int, client: int, session: str | None, text: str) -> str:
    """One chat turn from client address ``client``; the session id it belongs to."""
    body = {"text": text} if session is None else {"session_id": session, "text": text}
    headers = {"X-Forwarded-For": f"10.{client // 65536 % 256}.{client // 256 % 256}.{client % 256}"}
    async with http.post(f"http://127.0.0.1:{port}/api/chat", json=body, headers=headers) as response:
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status}: {await response.text()}")
        answer = await response.json()
        return str(answer["session_id"])


async def converse(
    port: int, sessions: int, concurrency: int, midway: Midway | None = None
) -> tuple[Load, list[str]]:
    """``sessions`` conversations of ``SCRIPT``; with ``midway``, all of them pause halfway for it."""
    gate = asyncio.Semaphore(concurrency)
    failed = 0
    ids: list[str] = []
    errors: list[str] = []

    async def one(client: int) -> None:
        nonlocal failed
        session: str | None = None
        for i, text in enumerate(SCRIPT):
            if midway is not None and i == len(SCRIPT) // 2:
                await midway.arrive(sessions)
            try:
                async with gate:
                    session = await say(http, port, client, session, text)
            except (aiohttp.ClientError, RuntimeError) as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
                failed += 1
                if midway is not None and i < len(SCRIPT) // 2:
                    await midway.arrive(sessions)
                return
        ids.append(session or "")

    connector = aiohttp.TCPConnector(force_close=True, limit=0)  # a new connection a turn
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as http:
        start = time.perf_counter()
        await asyncio.gather(*(one(c) for c in range(sessions)))
        seconds = time.perf_counter() - start
    for error in sorted(set(errors))[:3]:
        print("  failed:", error[:200], file=sys.stderr)
    return Load(sessions * len(SCRIPT), seconds, failed), ids


class Midway:
    """Every conversation waits here halfway; ``all_arrived`` is set when the last one does."""

    def __init__(self) -> None:
        self.arrived = 0
        self.all_arrived, self.go_on = asyncio.Event(), asyncio.Event()

    async def arrive(self, sessions: int) -> None:
        self.arrived += 1
        if self.arrived == sessions:
            self.all_arrived.set()
        await self.go_on.wait()


def expected_turns() -> int:
    """The turns ``SCRIPT`` leaves in a conversation, from the dialog in this process (``/why``
    and ``/cost`` only show the plan again: they do not count)."""
    from gpu_advisor import knowledge
    from gpu_advisor.bot.dialog import ConversationState, Dialog

    dialog, state = Dialog(knowledge.load()), ConversationState()
    for text in SCRIPT:
        state = dialog.handle(state, text)[1]
    return state.turns


def stored_turns(url: str) -> dict[str, int]:
    """session id → turns the database holds for it."""
    query = "select chat_id, state from conversations where platform = 'web'"
    if url.startswith("sqlite:///"):
        import sqlite3

        with contextlib.closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as db:
            rows = db.execute(query).fetchall()
    else:
        import psycopg

        with psycopg.connect(url) as conn:
            rows = conn.execute(query).fetchall()
    return {chat: int(json.loads(state)["turns"]) for chat, state in rows}


def lost_and_duplicated(url: str, ids: Sequence[str], load: Load) -> tuple[int, int]:
    """Turns sent but not stored, and stored more than once, over every conversation."""
    stored, expected = stored_turns(url), expected_turns()
    lost = load.failed + sum(max(0, expected - stored.get(s, 0)) for s in ids)
    duplicated = sum(max(0, stored.get(s, 0) - expected) for s in ids)
    return lost, duplicated


def measure(url: str, processes: int, sessions: int, concurrency: int) -> tuple[Load, int, int]:
    with servers(url, processes, free_port()) as proc:
        port = int(proc.args[proc.args.index("--port") + 1])  # type: ignore[union-attr, index]
        asyncio.run(converse(port, min(WARM_SESSIONS, sessions), concurrency))  # plan caches, statements
        load, ids = asyncio.run(converse(port, sessions, concurrency))
    return (load, *lost_and_duplicated(url, ids, load))


def kill_one_midway(url: str, sessions: int, concurrency: int) -> tuple[Load, int, int, int]:
    """Two processes; one killed with -9 when every conversation is halfway. The victim's pid too."""
    port = free_port()
    with servers(url, 2, port) as proc:

        async def run() -> tuple[Load, list[str], int]:
            midway = Midway()
            task = asyncio.create_task(converse(port, sessions, concurrency, midway))
            await asyncio.wait_for(midway.all_arrived.wait(), START_S)
            victim = children(proc)[0]
            os.kill(victim, signal.SIGKILL)
            while victim in children(proc):  # reaped: its socket has left the port's group
                await asyncio.sleep(0.05)
            midway.go_on.set()
            load, ids = await task
            return load, ids, victim

        load, ids, victim = asyncio.run(run())
    return (load, *lost_and_duplicated(url, ids, load), victim)


def main(argv: Sequence[str] | None = None) -> int:
    from tests.pg import running_cluster

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sessions", type=int, default=96)
    p.add_argument("--concurrency", type=int, default=24)
    p.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--tiny", action="store_true", help="a few conversations: does the bench still run?")
    args = p.parse_args(argv)
    if args.tiny:
        args.sessions, args.concurrency, args.processes = 4, 2, [1]
    with running_cluster() as cluster, tempfile.TemporaryDirectory() as tmp:
        sqlite, lost, dup = measure(f"sqlite:///{tmp}/scale.db", 1, args.sessions, args.concurrency)
        print(
            f"1 SQLite process: {sqlite.turns} turns in {sqlite.seconds:.2f} s"
            f" = {sqlite.per_second:.1f} turns/s; lost {lost}, duplicated {dup}"
        )
        base: float | None = None
        for n in args.processes:
            load, lost, dup = measure(cluster.fresh_url(), n, args.sessions, args.concurrency)
            base = base or load.per_second
            print(
                f"{n} process(es): {load.turns} turns in {load.seconds:.2f} s"
                f" = {load.per_second:.1f} turns/s, ×{load.per_second / base:.2f} of one process,"
                f" ×{load.per_second / sqlite.per_second:.2f} of one SQLite process;"
                f" lost {lost}, duplicated {dup}"
            )
        if args.tiny:
            return 0
        load, lost, dup, victim = kill_one_midway(cluster.fresh_url(), args.sessions, args.concurrency)
        print(
            f"2 processes, pid {victim} killed -9 halfway: {load.turns} turns; lost {lost}, duplicated {dup}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
