"""A broadcast "something changed" for the fakes' waiters (asyncio.Condition without the lock dance)."""

from __future__ import annotations

import asyncio
import contextlib


class Signal:
    """Wakes every waiter on a change; firing is synchronous so the sync injectors can fire it."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._event.wait(), timeout)
