"""Per-conversation fairness: a sliding-window rate limit and a lock per conversation.

Updates are handled concurrently (one slow send must not hold up everyone), so two
messages from the same user could otherwise race on that user's stored state; the
lock keeps each conversation's turns in order while different users proceed in
parallel.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager

WINDOW_S = 60.0
PRUNE_AT = 10_000


class RateLimiter:
    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._seen: dict[Hashable, deque[float]] = {}

    def allow(self, key: Hashable) -> bool:
        now = self.clock()
        if len(self._seen) > PRUNE_AT:
            self._prune(now)
        q = self._seen.setdefault(key, deque())
        while q and now - q[0] > WINDOW_S:
            q.popleft()
        if len(q) >= self.per_minute:
            return False
        q.append(now)
        return True

    def _prune(self, now: float) -> None:
        """Forget keys idle for a whole window, so keys from the internet cannot grow memory forever."""
        idle = [k for k, q in self._seen.items() if not q or now - q[-1] > WINDOW_S]
        for k in idle:
            del self._seen[k]


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
