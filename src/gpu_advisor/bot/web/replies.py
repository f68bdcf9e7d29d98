"""A chat message sent twice is answered once: the widget's idempotency key (issue 47).

The widget keeps every unsent message in localStorage with a key it made for it
(``ChatRequest.message_id``) and sends it again after a page reload, a dropped connection
or a 429/503. The server may have run the first send already (the reload only cut the
response), so a repeat of a key must not run the turn again. Two guards:

- in this process, ``Replies`` remembers the last ``PER_SESSION`` keys of each session
  (``SESSIONS`` sessions, for ``TTL_S``) with their reply: a repeat gets the same reply, byte
  for byte, and a repeat that arrives while the first is still running waits for it. The turn
  runs in its own task, so a client that goes away (the reload) does not cancel a turn that
  the repeat will want the reply of;
- across processes (``--processes``) and restarts, the key becomes the turn's update id
  (``update_key``): the store marks it seen in the turn's own transaction, exactly once, and a
  repeat that reaches a process that never saw its reply is answered 409 ``duplicate`` (the
  message was answered; the reply went to the connection the reload closed).

Only a reply is remembered: a refusal (429, 503, 422) ran no turn, so its repeat runs one.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web

PER_SESSION = 16  # keys remembered per session: a reload resends at most its unsent queue
SESSIONS = 4096  # sessions remembered per process, least recently used first out
TTL_S = 900.0  # a repeat later than this runs again only if the store has forgotten it too


@dataclass
class _Kept:
    task: asyncio.Task[tuple[int, bytes, str]]
    at: float


@dataclass
class Replies:
    """The recent replies of each session by message key (one server process's memory)."""

    clock: Callable[[], float] = time.monotonic
    kept: OrderedDict[str, OrderedDict[str, _Kept]] = field(default_factory=OrderedDict)

    async def once(
        self, session: str, key: str, answer: Callable[[], Awaitable[web.Response]]
    ) -> web.Response:
        """``answer()``'s response, run once per (``session``, ``key``); a repeat gets a copy of it."""
        now = self.clock()
        keys = self.kept.setdefault(session, OrderedDict())
        self.kept.move_to_end(session)
        kept = keys.get(key)
        if kept is None or now - kept.at > TTL_S:
            kept = _Kept(asyncio.ensure_future(_recorded(answer)), now)
            keys[key] = kept
            kept.task.add_done_callback(lambda t: self._forget_failed(session, key, t))
            while len(keys) > PER_SESSION:
                keys.popitem(last=False)
            while len(self.kept) > SESSIONS:
                self.kept.popitem(last=False)
        status, body, content_type = await asyncio.shield(kept.task)
        return web.Response(status=status, body=body, content_type=content_type)

    def _forget_failed(self, session: str, key: str, task: asyncio.Task[tuple[int, bytes, str]]) -> None:
        """A refused or failed turn is not an answer: its repeat runs the turn."""
        if task.cancelled() or task.exception() is not None:
            keys = self.kept.get(session)
            if keys is not None and keys.get(key) is not None and keys[key].task is task:
                del keys[key]


async def _recorded(answer: Callable[[], Awaitable[web.Response]]) -> tuple[int, bytes, str]:
    response = await answer()
    body = response.body if isinstance(response.body, bytes) else (response.text or "").encode()
    return response.status, body, response.content_type


def update_key(session: str, key: str) -> int:
    """The message key as a turn's update id (63 bits of SHA-256 over session and key): the store
    dedupes it like a redelivered Telegram update, in every process that shares the database."""
    digest = hashlib.sha256(f"web\n{session}\n{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


REPLIES = web.AppKey("replies", Replies)
