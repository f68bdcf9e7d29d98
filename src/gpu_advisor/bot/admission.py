"""Admission control in front of the turn workers: a bounded, fair queue, one per process.

Why: the workers run turns one at a time each, and before this the calls waiting for them
queued without bound, first come first served, their deadline starting only when a worker
took them. One client with sixteen connections sending slow-but-valid messages kept every
worker busy and pushed everybody else's ordinary chat from tens of milliseconds to tens of
seconds. The rules, the way a service that shares a scarce resource applies them:

- **Slots**: at most ``slots`` requests (one per turn worker) run at once; the rest wait.
- **A share per client**: one client key (a web client address, a Telegram chat, a Discord
  user) holds at most ``per_client`` slots (half of them, at least one), so another
  client always finds a worker when there are two or more.
- **Round robin**: a freed slot goes to the next *client* in turn, not to the next request,
  so a client with sixteen requests waiting is served as often as one with one.
- **Bounded**: at most ``queue_limit`` requests wait, and at most ``per_client_queue`` of
  one client; past either the request is refused at once (``Overloaded``).
- **Deadline from arrival**: a request that has waited ``wait_s`` since it *arrived* is
  refused rather than answered late (the web answers 503 with ``Retry-After``).

What a request costs is measured before it queues (``cost_of``): a message is read after
Unicode compatibility normalisation, which turns one character into up to eighteen (U+FDFA),
and the parser's time grows with the normalised length. A surface refuses a message
whose normalised form is more than ``COST_FACTOR`` times the characters the dialog keeps.
"""

from __future__ import annotations

import asyncio
import math
import time
import unicodedata
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager
from typing import Literal

from gpu_advisor.bot import metrics
from gpu_advisor.bot.dialog.limits import limit_of

Reason = Literal["queue_full", "client_queue_full", "waited_too_long"]
# The parser spends about 10 µs per normalised character (measured on a 2-core CI machine:
# 4,000 ordinary characters 47 ms, U+FDFA × 666 = 11,988 normalised characters 114 ms), so
# 1.5 × the 4,000 characters a chat keeps bounds a turn near 60 ms.
COST_FACTOR = 1.5
# One client may keep its share of the workers busy DUTY of the time, after a burst of BURST_S
# worker-seconds: a person's turns (milliseconds, seconds apart) never meet the limit; a flood of
# slow ones runs at half speed, leaving CPU for everybody else.
DUTY = 0.5
BURST_S = 0.5
RETRY_AFTER_S = 2


class Overloaded(Exception):
    """Refused by admission control; ``retry_after`` is the seconds to wait before trying again."""

    def __init__(self, reason: Reason, retry_after: int = RETRY_AFTER_S) -> None:
        super().__init__(reason)
        self.reason, self.retry_after = reason, retry_after


def cost_of(text: str, limit: int | None = None) -> tuple[int, int]:
    """(normalised characters of what is read, the most allowed): a message's price.

    ``limit``: the characters the reader keeps; by default what the dialog keeps of a chat message.
    """
    limit = limit_of(text) if limit is None else limit
    return len(unicodedata.normalize("NFKC", text[:limit])), math.floor(limit * COST_FACTOR)


class Admission:
    """``admit(key)`` holds one of ``slots`` for the block, fairly across keys (module docstring)."""

    def __init__(
        self,
        slots: int,
        queue_limit: int = 32,
        per_client_queue: int = 4,
        wait_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.slots = max(1, slots)
        self.per_client = max(1, self.slots // 2)
        self.queue_limit, self.per_client_queue, self.wait_s = queue_limit, per_client_queue, wait_s
        self.clock = clock
        self._running: Counter[Hashable] = Counter()
        self._waiting: dict[Hashable, deque[asyncio.Future[None]]] = {}
        self._served: dict[Hashable, int] = {}  # when each running or waiting key was last given a slot
        self._grants = 0
        # Worker time: each client earns DUTY × per_client slot-seconds a second, up to BURST_S,
        # and spends what its requests hold; one in debt waits until it has earned it back.
        self._credit: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()  # (seconds, as of)
        self._timer: asyncio.TimerHandle | None = None
        self.rejected: Counter[Reason] = Counter()

    @property
    def depth(self) -> int:
        """Requests waiting for a slot now."""
        return sum(len(q) for q in self._waiting.values())

    @property
    def running(self) -> int:
        return sum(self._running.values())

    @asynccontextmanager
    async def admit(self, key: Hashable, arrived: float | None = None) -> AsyncIterator[None]:
        """Wait for a slot (``Overloaded`` if refused); ``arrived`` is when the request came in."""
        await self._enter(key, self.clock() if arrived is None else arrived)
        started = self.clock()
        try:
            yield
        finally:
            self._spend(key, self.clock() - started)
            self._leave(key)

    async def _enter(self, key: Hashable, arrived: float) -> None:
        left = arrived + self.wait_s - self.clock()
        if left <= 0:
            raise self._refuse("waited_too_long")
        if self.running < self.slots and self._eligible(key):
            self._grant(key)  # a free slot means nobody eligible waits (``_dispatch``)
            return
        if self.depth >= self.queue_limit:
            raise self._refuse("queue_full")
        if len(self._waiting.get(key, ())) >= self.per_client_queue:
            raise self._refuse("client_queue_full")
        await self._wait(key, left)

    async def _wait(self, key: Hashable, left: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, deque()).append(future)
        self._show()
        try:
            async with asyncio.timeout(left):
                await future
        except BaseException as exc:
            if future.done() and not future.cancelled():
                self._leave(key)  # granted just as the wait ended: give the slot on
            else:
                future.cancel()
                self._drop(key, future)
            if isinstance(exc, TimeoutError):
                raise self._refuse("waited_too_long") from None
            raise

    def _grant(self, key: Hashable) -> None:
        self._running[key] += 1
        self._grants += 1
        self._served[key] = self._grants

    def _leave(self, key: Hashable) -> None:
        self._running[key] -= 1
        if self._running[key] <= 0:
            del self._running[key]
            if key not in self._waiting:
                self._served.pop(key, None)
        self._dispatch()

    def _next(self) -> Hashable | None:
        """The waiting client holding the fewest slots, the one served longest ago first; None if
        every waiting client holds its share."""
        eligible = [k for k in self._waiting if self._eligible(k)]
        return min(eligible, key=lambda k: (self._running[k], self._served.get(k, 0)), default=None)

    def _eligible(self, key: Hashable) -> bool:
        """Under its share of the slots and not in debt for worker time."""
        if self._running[key] >= self.per_client:
            return False
        debt = -self._balance(key)
        if debt > 0:
            self._wake_in(debt / (DUTY * self.per_client))
        return debt <= 0

    def _balance(self, key: Hashable) -> float:
        seconds, since = self._credit.get(key, (BURST_S, 0.0))
        return min(BURST_S, seconds + (self.clock() - since) * DUTY * self.per_client)

    def _spend(self, key: Hashable, held: float) -> None:
        # The debt is capped: one turn that ran to its deadline costs its client a second's wait.
        self._credit[key] = (max(-BURST_S, self._balance(key) - held), self.clock())
        self._credit.move_to_end(key)
        while self._credit:  # forget the clients whose credit is full again, oldest first
            oldest = next(iter(self._credit))
            if self._balance(oldest) < BURST_S:
                break
            del self._credit[oldest]

    def _wake_in(self, delay: float) -> None:
        """Dispatch again when a client in debt may run (one timer, the earliest)."""
        loop = asyncio.get_running_loop()
        when = loop.time() + delay
        if self._timer is None or self._timer.when() > when or self._timer.cancelled():
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_at(when, self._ring)

    def _ring(self) -> None:
        self._timer = None
        self._dispatch()

    def _dispatch(self) -> None:
        """Give free slots to waiting clients in turn (``_next``)."""
        while self.running < self.slots and (key := self._next()) is not None:
            queue = self._waiting[key]
            future = queue.popleft()
            if not queue:
                del self._waiting[key]
            self._grant(key)
            future.set_result(None)
        self._show()

    def _drop(self, key: Hashable, future: asyncio.Future[None]) -> None:
        queue = self._waiting.get(key)
        if queue is not None and future in queue:
            queue.remove(future)
            if not queue:
                del self._waiting[key]
                if key not in self._running:
                    self._served.pop(key, None)
        self._show()

    def _refuse(self, reason: Reason) -> Overloaded:
        self.rejected[reason] += 1
        metrics.ADMISSION_REJECTED.labels(reason).inc()
        return Overloaded(reason, max(1, math.ceil(min(self.wait_s, RETRY_AFTER_S))))

    def _show(self) -> None:
        metrics.ADMISSION_WAITING.set(self.depth)
