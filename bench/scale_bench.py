"""Several server processes over one PostgreSQL database: throughput as a ratio to one process.

Starts a throw-away PostgreSQL cluster (``tests/pg.py``) and, side by side, one SQLite server
process and 1, 2 and 4 PostgreSQL server processes (``gpu-advisor web --processes N --workers 1``,
one turn worker each). It then drives the same load at each in turn, ``--rounds`` times over
(interleaved, so a busy moment on a shared machine hits every setup alike) —
``SESSIONS`` web conversations of the same script, ``CONCURRENCY`` at a time, each from its
own client address (``X-Forwarded-For`` from the ``--trusted-proxy`` 127.0.0.1, so the per-address
limits do not throttle a benchmark) — and prints, as medians over the rounds, turns per second
and the CPU every server process, turn worker and database process spent per turn (from
/proc), with their ratios to one SQLite process and to one PostgreSQL process. It then counts
what the database holds: every conversation must have exactly as many turns as were sent
(0 lost, 0 duplicated). Last, with 2 processes, it kills one with ``-9`` halfway through every
conversation and checks that they all finish on the other.

    python -m bench.scale_bench [--sessions 96] [--concurrency 24] [--processes 1 2 4] [--rounds 5]

Turns per second are bounded by the machine's cores: each process needs about two (server and
turn worker) and the database and this load generator share them too, so a 2-core machine
shows little gain past one process in wall time. Turns per CPU-second are what N processes
on N times the cores would each give: "scaling ×k of N per CPU-second" is how much of the
ideal N× that is left once the processes contend for one database.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

SCRIPT = ("部署 13B 模型", "并发 8", "7×24", "/why", "/cost")
START_S = 120.0
WARM_SESSIONS = 8  # run first and not counted: each backend is measured warm
STDERR = None if os.environ.get("SCALE_BENCH_LOG") else subprocess.DEVNULL
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Load:
    """What one run sent and got back."""

    turns: int
    seconds: float
    failed: int

    @property
    def per_second(self) -> float:
        return self.turns / self.seconds


@contextmanager
def servers(url: str, processes: int, workers: int = 1) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``gpu-advisor web --processes N`` over ``url`` on a port the kernel picks (``--port 0``),
    ready once it answers: the supervisor and that port. Stopped after.

    The port is read back from the running servers (``ready``), never picked here and bound
    later: a port found free and closed can be taken by anyone before the server binds it."""
    argv = ["--database-url", url, "web", "--port", "0", "--processes", str(processes)]
    argv += ["--workers", str(workers), "--trusted-proxy", "127.0.0.1"]
    proc = subprocess.Popen([sys.executable, "-m", "gpu_advisor.bot.cli", *argv], stderr=STDERR)
    try:
        yield proc, asyncio.run(ready(processes, proc, workers))
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


async def ready(processes: int, proc: subprocess.Popen[bytes], workers: int = 1) -> int:
    """The port, once every process listens on it with its turn workers (grandchildren) started,
    if it has any, and it answers. A process with its worker but no socket yet would leave the others alone
    to take its share: a test that then kills one of them finds nobody listening."""
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the servers exited ({proc.returncode})")
        pids = children(proc) if processes > 1 else [proc.pid]  # one process serves without a supervisor
        started = [pid for pid in pids if _has_children(pid) or not workers]
        ports = set.intersection(*(listening_ports(pid) for pid in started)) if started else set()
        if len(pids) == processes and len(started) == processes and len(ports) == 1:
            port = ports.pop()
            if await _answers(port):
                return port
        await asyncio.sleep(0.3)
    raise TimeoutError(f"{processes} server process(es) did not come up in {START_S:g} s")


def listening_ports(pid: int) -> set[int]:
    """The TCP ports process ``pid`` holds a listening socket on (Linux: /proc)."""
    return set(_local_ports(pid, "0A"))


def connections(pid: int, port: int) -> int:
    """How many established TCP connections process ``pid`` holds on its local ``port``."""
    return _local_ports(pid, "01").count(port)


def _local_ports(pid: int, state: str) -> list[int]:
    """The local port of each TCP socket of process ``pid`` in ``state`` (hex, as /proc writes it)."""
    by_inode: dict[str, int] = {}
    for table in ("tcp", "tcp6"):
        try:
            with open(f"/proc/{pid}/net/{table}") as f:
                rows = [line.split() for line in f.readlines()[1:]]
        except OSError:
            continue
        by_inode |= {r[9]: int(r[1].rsplit(":", 1)[1], 16) for r in rows if r[3] == state}
    ports: list[int] = []
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return ports
    for fd in fds:
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:[") and link[8:-1] in by_inode:
                ports.append(by_inode[link[8:-1]])
    return ports


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
    port: int, sessions: int, concurrency: int, midway: Midway | None = None, first: int = 0
) -> tuple[Load, list[str]]:
    """``sessions`` conversations of ``SCRIPT`` from client addresses ``first``, ``first + 1``, …;
    with ``midway``, all of them pause halfway for it."""
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
        await asyncio.gather(*(one(first + c) for c in range(sessions)))
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


def tree_cpu(roots: Sequence[int]) -> float:
    """CPU seconds (user + system) the processes ``roots`` and all their descendants have used (/proc)."""
    total, todo, seen = 0.0, list(roots), set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(stat[11]) + int(stat[12])) / TICKS
            todo += [
                int(c)
                for t in Path(f"/proc/{pid}/task").iterdir()
                for c in (t / "children").read_text().split()
            ]
        except (OSError, IndexError, ValueError):  # it exited meanwhile
            continue
    return total


@dataclass
class Setup:
    """One server setup under test, and what its rounds measured."""

    name: str
    url: str
    processes: int
    port: int = 0
    loads: list[Load] = field(default_factory=list)
    cpu_per_turn: list[float] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return statistics.median(load.per_second for load in self.loads)

    @property
    def cpu_ms(self) -> float:
        return 1000 * statistics.median(self.cpu_per_turn)

    def merged(self) -> Load:
        return Load(
            sum(x.turns for x in self.loads),
            sum(x.seconds for x in self.loads),
            sum(x.failed for x in self.loads),
        )


def run_rounds(setups: list[Setup], roots: list[int], rounds: int, sessions: int, concurrency: int) -> None:
    """Every setup ``rounds`` times, interleaved; the CPU of ``roots`` (all servers and the database)
    during a setup's round is that setup's (the others are idle meanwhile)."""
    for setup in setups:  # warm: plan caches, connections, prepared statements
        asyncio.run(converse(setup.port, min(WARM_SESSIONS, sessions), concurrency))
    for _ in range(rounds):
        for setup in setups:
            before = tree_cpu(roots)
            load, ids = asyncio.run(converse(setup.port, sessions, concurrency))
            setup.cpu_per_turn.append((tree_cpu(roots) - before) / load.turns)
            setup.loads.append(load)
            setup.ids += ids


def postmaster(cluster: object) -> int:
    """The cluster's server process (``postmaster.pid``'s first line)."""
    return int(Path(f"{cluster.socket_dir}/data/postmaster.pid").read_text().split()[0])  # type: ignore[attr-defined]


def kill_one_midway(url: str, sessions: int, concurrency: int) -> tuple[Load, int, int, int]:
    """Two processes; one killed with -9 when every conversation is halfway. The victim's pid too."""
    with servers(url, 2) as (proc, port):

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


def report(setups: list[Setup]) -> None:
    """One line a setup: medians over its rounds, ratios to one SQLite and to one PostgreSQL process."""
    sqlite, one = setups[0], setups[1] if len(setups) > 1 else None
    for setup in setups:
        lost, dup = lost_and_duplicated(setup.url, setup.ids, setup.merged())
        line = (
            f"{setup.name}: {setup.per_second:.1f} turns/s, {setup.cpu_ms:.2f} ms CPU/turn"
            f" (servers, workers, database; median of {len(setup.loads)} rounds"
            f" of {setup.loads[0].turns} turns)"
        )
        if setup is not sqlite:
            line += (
                f"; ×{setup.per_second / sqlite.per_second:.2f} of one SQLite process's turns/s,"
                f" ×{sqlite.cpu_ms / setup.cpu_ms:.2f} of its turns per CPU-second"
            )
        if one is not None and setup is not one and setup is not sqlite:
            n = setup.processes / one.processes
            line += (
                f"; ×{setup.per_second / one.per_second:.2f} of one PostgreSQL process's turns/s,"
                f" scaling ×{one.cpu_ms / setup.cpu_ms:.2f} of {n:g} per CPU-second"
            )
        print(f"{line}; lost {lost}, duplicated {dup}")


RSS_AT = (1_000, 5_000, 10_000)  # conversations after which the server's memory is read
TINY_RSS_AT = (10, 20, 40)
RSS_LEVEL = 0.05  # the last half of the conversations may add at most this share
RSS_CONCURRENCY = 4  # within what one process admits (its queue), so no conversation is turned away


def rss_mib(pid: int) -> float:
    """Resident set of process ``pid`` in MiB (/proc); 0.0 once it has exited."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (its turn workers), from /proc."""
    out, todo = [], [pid]
    while todo:
        with contextlib.suppress(OSError, ValueError):
            found = [
                int(c)
                for t in Path(f"/proc/{todo.pop()}/task").iterdir()
                for c in (t / "children").read_text().split()
            ]
            out += found
            todo += found
    return out


@dataclass(frozen=True, slots=True)
class Held:
    """The server's memory after ``conversations`` conversations."""

    conversations: int
    server_mib: float  # the process that takes the requests and keeps the sessions
    workers_mib: float  # its turn workers together
    failed: int


def server_memory(url: str, at: Sequence[int], concurrency: int) -> list[Held]:
    """One SQLite server process (one turn worker): ``SCRIPT`` conversations, each from its own
    client address, and the server's resident set before any and after each of ``at``."""
    with servers(url, 1) as (proc, port):

        def held(done: int, failed: int) -> Held:
            return Held(done, rss_mib(proc.pid), sum(rss_mib(p) for p in descendants(proc.pid)), failed)

        rows, done, failed = [held(0, 0)], 0, 0
        for stop in at:
            failed += asyncio.run(patient_conversations(port, stop - done, concurrency, first=done))
            done = stop
            rows.append(held(done, failed))
    return rows


PATIENCE = 30  # tries of one turn turned away (503), a second apart, before it counts as failed


async def patient_conversations(port: int, sessions: int, concurrency: int, first: int) -> int:
    """``sessions`` conversations of ``SCRIPT`` whose clients wait and retry a turn the server
    turns away (503, as its Retry-After asks): every turn is served, so each conversation
    leaves what a whole one does. Returns the conversations that still failed."""
    gate = asyncio.Semaphore(concurrency)
    failed = 0

    async def one(client: int) -> None:
        nonlocal failed
        session: str | None = None
        for text in SCRIPT:
            for attempt in range(PATIENCE):
                try:
                    async with gate:
                        session = await say(http, port, client, session, text)
                    break
                except RuntimeError as exc:
                    if not str(exc).startswith("HTTP 503") or attempt == PATIENCE - 1:
                        failed += 1
                        return
                await asyncio.sleep(1.0)

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:
        await asyncio.gather(*(one(first + c) for c in range(sessions)))
    return failed


def memory_report(rows: list[Held]) -> bool:
    """The server's memory side by side with its ratios; True when it levels off."""
    print(f"server memory over conversations (one SQLite process, one turn worker; {len(SCRIPT)} turns each)")
    print(
        f"{'conversations':>13}  {'server MiB':>10}  {'workers MiB':>11}  {'server MiB per 1k':>17}  failed"
    )
    for before, row in itertools.pairwise(rows):
        per_k = (row.server_mib - before.server_mib) / (row.conversations - before.conversations) * 1000
        print(
            f"{row.conversations:>13,}  {row.server_mib:>10.1f}  {row.workers_mib:>11.1f}  {per_k:>+17.2f}"
            f"  {row.failed}"
        )
    first, mid, last = rows[1], rows[-2], rows[-1]
    total = [r.server_mib + r.workers_mib for r in (first, mid, last)]
    n = [f"{r.conversations:,}" for r in (first, mid, last)]
    print(
        f"server RSS {n[2]} / {n[0]}: {last.server_mib / first.server_mib:.3f}x,"
        f" {n[2]} / {n[1]}: {last.server_mib / mid.server_mib:.3f}x;"
        f" server + workers: {total[2] / total[0]:.3f}x, {total[2] / total[1]:.3f}x"
    )
    level = total[2] <= total[1] * (1 + RSS_LEVEL)
    said = "levels off: PASS" if level else "still growing: FAIL"
    print(
        f"the last {last.conversations - mid.conversations:,} conversations added"
        f" {total[2] - total[1]:+.1f} MiB to server + workers (bound {RSS_LEVEL:.0%}): {said}"
    )
    return level and last.failed == 0


def main(argv: Sequence[str] | None = None) -> int:
    from tests.pg import running_cluster

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sessions", type=int, default=96)
    p.add_argument("--concurrency", type=int, default=24)
    p.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--tiny", action="store_true", help="a few conversations: does the bench still run?")
    p.add_argument("--rss", action="store_true", help="one server's memory over 10,000 conversations, only")
    args = p.parse_args(argv)
    if args.rss:
        with tempfile.TemporaryDirectory() as tmp:
            at = TINY_RSS_AT if args.tiny else RSS_AT
            level = memory_report(server_memory(f"sqlite:///{tmp}/rss.db", at, RSS_CONCURRENCY))
        return 0 if level or args.tiny else 1
    if args.tiny:
        args.sessions, args.concurrency, args.processes, args.rounds = 4, 2, [1], 1
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} before the run")
    with running_cluster() as cluster, tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        setups = [Setup("1 SQLite process", f"sqlite:///{tmp}/scale.db", 1)]
        for n in args.processes:
            setups.append(Setup(f"{n} PostgreSQL process{'es' if n > 1 else ''}", cluster.fresh_url(), n))
        roots = [postmaster(cluster)]
        for setup in setups:
            proc, setup.port = stack.enter_context(servers(setup.url, setup.processes))
            roots.append(proc.pid)
        run_rounds(setups, roots, args.rounds, args.sessions, args.concurrency)
        stack.close()
        report(setups)
        if args.tiny:
            return 0
        load, lost, dup, victim = kill_one_midway(cluster.fresh_url(), args.sessions, args.concurrency)
        print(
            f"2 processes, pid {victim} killed -9 halfway: {load.turns} turns; lost {lost}, duplicated {dup}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
