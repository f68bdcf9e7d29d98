"""Per-conversation fairness: a sliding-window rate limit and a lock per conversation.

Updates are handled concurrently (one slow send must not hold up everyone), so two
messages from the same user could otherwise race on that user's stored state; the
lock keeps each conversation's turns in order while different users proceed in
parallel.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager

WINDOW_S = 60.0


class RateLimiter:
    """At most ``limit`` events per key in any sliding ``window_s`` seconds.

    Keys are kept in the order of their last allowed event (an ``OrderedDict``, a key moved
    to the end when it acts), so forgetting the idle ones looks only at the oldest: each
    check costs the same with ten keys or a million, and keys from the internet cannot grow
    memory forever.
    """

    def __init__(
        self, limit: int, clock: Callable[[], float] = time.monotonic, window_s: float = WINDOW_S
    ) -> None:
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._seen: OrderedDict[Hashable, deque[float]] = OrderedDict()

    def allow(self, key: Hashable) -> bool:
        now = self.clock()
        self._forget_idle(now)
        q = self._seen.setdefault(key, deque())
        while q and now - q[0] > self.window_s:
            q.popleft()
        if len(q) >= self.limit:
            return False
        q.append(now)
        self._seen.move_to_end(key)
        return True

    def retry_after(self, key: Hashable) -> float:
        """Seconds until ``key`` may act again (0 when it may now)."""
        q = self._seen.get(key)
        if not q or len(q) < self.limit:
            return 0.0
        return max(0.0, q[0] + self.window_s - self.clock())

    def __len__(self) -> int:
        """How many keys are remembered."""
        return len(self._seen)

    def _forget_idle(self, now: float) -> None:
        """Drop keys whose last event left the window; the first key still in it ends the walk."""
        while self._seen:
            key, q = next(iter(self._seen.items()))
            if q and now - q[-1] <= self.window_s:
                return
            del self._seen[key]


class ConversationLocks:
    """One asyncio.Lock per conversation key, dropped again once nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)
