"""Several server processes over one PostgreSQL database (``gpu-advisor web --processes 2``).

The CI-sized version of ``bench/scale_bench.py``: conversations spread over two processes
by the kernel (SO_REUSEPORT), one process killed with -9 when every conversation is halfway,
and the rest of every conversation answered by the other — each turn stored exactly once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time

import pytest

from bench.scale_bench import Load, Midway, children, converse, lost_and_duplicated, servers
from tests.pg import Cluster

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT and /proc")
SESSIONS = 8


def test_a_process_killed_midway_leaves_its_conversations_to_the_other(pg_cluster: Cluster) -> None:
    url = pg_cluster.fresh_url()
    with servers(url, 2) as (proc, port):
        first = children(proc)

        async def run() -> tuple[Load, list[str]]:
            midway = Midway()
            task = asyncio.create_task(converse(port, SESSIONS, 4, midway))
            await asyncio.wait_for(midway.all_arrived.wait(), 60)
            os.kill(first[0], signal.SIGKILL)
            deadline = time.monotonic() + 10
            while first[0] in children(proc) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            midway.go_on.set()
            return await task

        load, ids = asyncio.run(run())
        assert load.failed == 0 and len(ids) == SESSIONS
        assert lost_and_duplicated(url, ids, load) == (0, 0)
        deadline = time.monotonic() + 30
        while len(children(proc)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        now = children(proc)
        assert len(now) == 2 and first[0] not in now  # the supervisor started another
