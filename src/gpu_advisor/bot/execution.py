"""Where a turn runs: in this process, or in worker processes with a deadline.

Shaped like python-telegram-bot's ``BaseUpdateProcessor``: ``Executor.run(call)`` is the
one entry point, ``do_run`` is what a strategy implements, ``initialize``/``shutdown``
(or ``async with``) bracket its life. ``InProcess`` runs the call at once, on the caller's
loop: the terminal and tests. ``WorkerPool`` runs it in worker processes (``bot.workers``):
the servers, where a turn (pure-Python CPU work, milliseconds; far more for a chart or a
pathological sheet) must not take its time from every other chat's sends and polls.

What crosses the process boundary is one typed call object (``Call``): a frozen dataclass
whose ``run(host)`` does the work against the worker's ``Host`` (its dialog and its own
store connection) and returns a picklable answer. A worker pool has a deadline per call
(``DEADLINE_S``): one that runs past it raises ``CallTimedOut`` and its worker is killed
and replaced. Until the workers first come up (``start(wait=False)``) calls run here, so a
bot answers at once; once they are up, calls never run on the loop again: while a killed
worker is replaced they wait for one.
"""

from __future__ import annotations

import asyncio
import logging
import os
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar

from gpu_advisor.bot.workers import CallTimedOut, WorkerDied, Workers

log = logging.getLogger(__name__)
MAX_WORKERS = 4
DEADLINE_S = 10.0  # a turn takes milliseconds; ten seconds means the input sent the parser astray
TRIES = 2  # a call whose worker died under it (queued behind a killed one) is sent once more
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

__all__ = ["DEADLINE_S", "Call", "CallTimedOut", "Executor", "InProcess", "WorkerPool", "auto_workers"]


class Call(Protocol[T_co]):
    """One unit of work, the same object here and in a worker: picklable, answered by ``run``."""

    def run(self, host: Any) -> T_co: ...


def auto_workers() -> int:
    """One CPU for the transport, the rest (one to four) for turns: a server always has a deadline."""
    return max(1, min(MAX_WORKERS, (os.cpu_count() or 1) - 1))


class Executor(ABC):
    """How calls run. ``host`` is this process's own host, used for calls that run here."""

    def __init__(self, host: Any) -> None:
        self.host = host

    async def __aenter__(self) -> Self:
        await self.initialize()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.shutdown()

    async def initialize(self, wait: bool = True) -> None:  # noqa: B027 (a hook; InProcess needs nothing)
        """Get ready to run calls; with ``wait=False`` calls may run here until then."""

    async def shutdown(self) -> None:  # noqa: B027 (a hook; InProcess holds nothing)
        """Let go of what ``initialize`` took, once the calls under way are answered."""

    async def restart(self) -> None:
        """Start afresh (a catalog reload: workers read it again)."""
        await self.shutdown()
        await self.initialize(wait=False)

    async def broadcast(self, call: Call[None]) -> None:
        """Run ``call`` on every host, now and after a restart (an uploaded catalog)."""
        call.run(self.host)

    async def run(self, call: Call[T]) -> T:
        """Run one call; raises what the call raised, or ``CallTimedOut`` past the deadline."""
        return await self.do_run(call)

    @abstractmethod
    async def do_run(self, call: Call[T]) -> T:
        """The strategy: where and how ``call.run`` is invoked."""

    @property
    def pooled(self) -> bool:
        """Calls are going to worker processes now."""
        return False

    @property
    def pids(self) -> list[int]:
        """The live worker processes, for monitoring and benchmarks."""
        return []

    @property
    def capable(self) -> bool:
        """Every place a call may run is up (readiness: a process without its workers is not ready)."""
        return True

    def heal(self) -> bool:
        """Start again what has died (the watchdog); True if something was started."""
        return False


class InProcess(Executor):
    """Every call at once, on the caller's loop: no deadline, nothing to start."""

    async def do_run(self, call: Call[T]) -> T:
        return call.run(self.host)


class WorkerPool(Executor):
    """``count`` worker processes, each building its host with ``setup(**setup_args)``."""

    def __init__(
        self,
        host: Any,
        count: int,
        setup: str,
        setup_args: dict[str, Any],
        deadline_s: float | None = DEADLINE_S,
    ) -> None:
        super().__init__(host)
        self.count = count if count > 0 and os.name == "posix" else 0
        self.setup, self.setup_args, self.deadline_s = setup, setup_args, deadline_s
        self._pool: Workers | None = None
        self._starting: asyncio.Task[None] | None = None
        self._broadcast: Call[None] | None = None

    @property
    def pooled(self) -> bool:
        return self._pool is not None and self._pool.full

    @property
    def pids(self) -> list[int]:
        return self._pool.pids if self._pool is not None else []

    @property
    def capable(self) -> bool:
        return self.count == 0 or self.pooled

    def heal(self) -> bool:
        """A dead worker is replaced now, not on the next call: the watchdog calls this, so a
        process with no traffic (taken out by its balancer as not ready) comes back by itself."""
        pool = self._pool
        if pool is None or pool.full or (self._starting is not None and not self._starting.done()):
            return False
        self._replace_dead(pool)
        return True

    async def initialize(self, wait: bool = True) -> None:
        if self.count and self._pool is None and self._starting is None:
            self._starting = asyncio.create_task(self._start_pool(), name="turn-workers")
        if wait and self._starting is not None:
            await asyncio.shield(self._starting)

    async def shutdown(self) -> None:
        starting, self._starting = self._starting, None
        if starting is not None:
            await starting
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.stop()

    async def broadcast(self, call: Call[None]) -> None:
        """Every worker runs it now and as it starts; this process's host is the caller's to update."""
        self._broadcast = call
        if self._pool is not None:
            await self._pool.broadcast("run", call)

    async def do_run(self, call: Call[T]) -> T:
        pool = self._pool
        if pool is None:
            return call.run(self.host)
        for _ in range(TRIES):
            if not pool.full:
                self._replace_dead(pool)
            if not pool.pids and not await self._worker_up(pool):
                log.error("no worker came back; %s runs in this process", type(call).__name__)
                return call.run(self.host)
            try:
                answer: T = await pool.call("run", call)
                return answer
            except WorkerDied:
                # Killed (queued behind a call past its deadline, or out of memory). What it
                # saved stays saved; the call goes to another worker.
                log.error("a worker died during %s; sending it to another", type(call).__name__)
        raise CallTimedOut(f"{type(call).__name__}: its worker died {TRIES} times")

    async def _worker_up(self, pool: Workers) -> bool:
        """Wait for a replacement worker (a call must not run on the loop): False if none comes."""
        starting = self._starting
        if starting is not None:
            try:
                await asyncio.wait_for(asyncio.shield(starting), self.deadline_s or DEADLINE_S)
            except TimeoutError:
                return False
        return bool(pool.pids)

    def _replace_dead(self, pool: Workers) -> None:
        if self._starting is None or self._starting.done():
            self._starting = asyncio.create_task(_refill(pool), name="turn-workers")

    async def _start_pool(self) -> None:
        pool = Workers(self.count, self.setup, self.setup_args, self.deadline_s)
        if self._broadcast is not None:
            await pool.broadcast("run", self._broadcast)  # sent to each worker as it starts
        try:
            await pool.start()
        except Exception:
            log.exception("workers did not start; every call runs in this process")
            await pool.stop()
            return
        self._pool = pool
        log.info("calls run in %d worker process(es): %s", self.count, pool.pids)


async def _refill(pool: Workers) -> None:
    try:
        await pool.start()
    except Exception:  # the next call tries again
        log.exception("could not replace a worker")
