"""After ``kill -9`` of one of two server processes, load reaches its replacement (issue 41).

``SO_REUSEPORT`` hands each *new* connection to one of the processes listening at that
moment. A client that keeps its connections alive (a proxy's upstream pool, the benches'
clients) reconnects all of them to the survivor when the other dies, and before this fix
never opened another: the replacement, up 0.7 s later, got no load. Now a process closes a
connection after ``KEEPALIVE_REQUESTS`` responses, the client reconnects, and the kernel
spreads the new connections over both. Everything runs for real: the CLI's supervisor, its
children, a keep-alive aiohttp client; who holds which connection is read from /proc.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest

from bench.scale_bench import children, connections, listening_ports, servers

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT and /proc")
POOL = 8
WITHIN_S = 60.0  # a cold start of a server process on a loaded 2-core machine
SPREAD_WITHIN_S = 20.0  # the window: load had not moved within 20 s


async def _until(condition: Callable[[], bool], within_s: float) -> bool:
    """Whether ``condition`` came true within ``within_s`` (polled, never asserted at an instant)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.1)
    return False


class KeepAliveLoad:
    """``POOL`` clients asking ``/healthz`` over one kept-alive connection pool, until stopped."""

    def __init__(self, http: aiohttp.ClientSession, port: int) -> None:
        self.http, self.port = http, port
        self.tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self.stopping = False
        self.tasks = [asyncio.create_task(self._ask()) for _ in range(POOL)]

    async def stop(self) -> None:
        self.stopping = True
        await asyncio.gather(*self.tasks)

    async def _ask(self) -> None:
        while not self.stopping:
            try:
                async with self.http.get(f"http://127.0.0.1:{self.port}/healthz") as response:
                    await response.read()
            except aiohttp.ClientError:  # the killed process's connections: reconnect
                await asyncio.sleep(0.01)


def test_kept_alive_connections_move_onto_the_replacement_of_a_killed_process(tmp_path: Path) -> None:
    with servers(f"sqlite:///{tmp_path / 'w.db'}", 2, workers=0) as (proc, port):
        victim, survivor = children(proc)

        def replacement() -> list[int]:
            return [pid for pid in children(proc) if pid != survivor and port in listening_ports(pid)]

        async def run() -> bool:
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=POOL)) as http:
                load = KeepAliveLoad(http, port)
                load.start()
                os.kill(victim, signal.SIGKILL)
                on_survivor = await _until(lambda: connections(survivor, port) == POOL, WITHIN_S)
                await load.stop()  # idle, kept alive, all on the survivor: the state
                assert on_survivor and await _until(lambda: bool(replacement()), WITHIN_S)
                load.start()
                spread = await _until(lambda: connections(replacement()[0], port) > 0, SPREAD_WITHIN_S)
                await load.stop()
                return spread

        spread = asyncio.run(run())
    assert spread, f"after {SPREAD_WITHIN_S:g} s every kept-alive connection was still on the survivor"
