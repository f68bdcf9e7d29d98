"""A per-user sliding-window limit, so one user (or a flooding group) cannot starve the others."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable

WINDOW_S = 60.0


class RateLimiter:
    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._seen: dict[Hashable, deque[float]] = {}

    def allow(self, key: Hashable) -> bool:
        now = self.clock()
        q = self._seen.setdefault(key, deque())
        while q and now - q[0] > WINDOW_S:
            q.popleft()
        if len(q) >= self.per_minute:
            return False
        q.append(now)
        return True
