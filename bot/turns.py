"""Conversation turns, run where they cannot stall the chat transport.

A turn is load state → dialog → save state → log the plan. It is pure-Python CPU work:
about half a millisecond with a cached plan, several milliseconds for a new plan, far
more for a chart. On the event loop that time is taken from every other chat's sends
and polls, and a thread would not give it back (the GIL). So a transport hands its turns to
``Turns``, which runs them either in this process (``workers=0``: tests, one-CPU
machines) or in worker processes (``bot.workers``). Each worker builds its own dialog
from the catalog and opens its own connection to the shared SQLite store, which WAL
mode makes safe; until the workers are up, turns run here.

Every write to the store happens where the turns run, the dedupe of redelivered updates
included: the event loop then never waits on SQLite's lock while a worker writes (a
busy SQLite connection sleeps a millisecond or more before it retries).

Replies come back without their plan (the worker has already logged it), so only
text and buttons cross the process boundary.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from typing import Any

import knowledge
from bot.dialog import ConversationState, Dialog, Reply
from bot.store import Store
from bot.workers import Handler, WorkerDied, Workers

log = logging.getLogger(__name__)
MAX_WORKERS = 4


def auto_workers() -> int:
    """One CPU for the transport, the rest (up to four) for turns; none on a one-CPU machine."""
    return max(0, min(MAX_WORKERS, (os.cpu_count() or 1) - 1))


@dataclass(frozen=True)
class Chat:
    """Who a turn is for (the conversation key, the client's language for a first message)
    and, when it answers a Telegram update, which one: a redelivered update gets no answer."""

    chat_id: int | str
    user_id: int | str
    language_code: str | None = None
    update_id: int | None = None


class Conversations:
    """The turn itself, the same in this process and in a worker: load, run the dialog, save, log.

    A turn is one transaction: the update is marked as seen, the state and the plan log are
    written, all or nothing. A redelivered update returns ``None``.
    """

    def __init__(self, dialog: Dialog, store: Store, platform: str) -> None:
        self.dialog = dialog
        self.store = store
        self.platform = platform

    def load(self, chat: Chat) -> ConversationState:
        """The stored state; a first conversation speaks the client's language until told otherwise."""
        state = self.store.load(self.platform, chat.chat_id, chat.user_id)
        if state.turns == 0 and not state.lang_locked and chat.language_code:
            lang = "zh" if chat.language_code.lower().startswith("zh") else "en"
            state = state.model_copy(update={"lang": lang})
        return state

    def text(self, chat: Chat, text: str, save: bool = True) -> Reply | None:
        with self.store.transaction():
            if not self._fresh(chat):
                return None
            reply, state = self.dialog.handle(self.load(chat), text)
            return self._finish(chat, state, reply, save)

    def press(self, chat: Chat, payload: str) -> Reply | None:
        with self.store.transaction():
            if not self._fresh(chat):
                return None
            reply, state = self.dialog.press(self.load(chat), payload)
            return self._finish(chat, state, reply, save=True)

    def say(self, chat: Chat, key: str) -> Reply | None:
        """A fixed message in the conversation's language; the state is not touched."""
        with self.store.transaction():
            return self.dialog.say(self.load(chat), "info", key) if self._fresh(chat) else None

    def lang(self, chat: Chat) -> str | None:
        with self.store.transaction():
            return self.load(chat).lang if self._fresh(chat) else None

    def first_time(self, update_id: int) -> bool:
        """See ``Store.first_time``; here so that all of a bot's writes come from one place."""
        return self.store.first_time(self.platform, update_id)

    def move_chat(self, old_chat: int | str, new_chat: int | str) -> None:
        self.store.move_chat(self.platform, old_chat, new_chat)

    def quick(self, text: str, lang: str | None) -> Reply:
        return _without_plan(self.dialog.quick(text, lang, lock=False))

    def chart(self, chat: Chat) -> bytes | None:
        return self.dialog.chart_png(self.load(chat))

    def _fresh(self, chat: Chat) -> bool:
        return chat.update_id is None or self.store.first_time(self.platform, chat.update_id)

    def _finish(self, chat: Chat, state: ConversationState, reply: Reply, save: bool) -> Reply:
        if save:
            self.store.save(self.platform, chat.chat_id, chat.user_id, state)
            if reply.kind == "answer" and reply.plan is not None:
                self.store.log_plan(self.platform, reply.plan)
        return _without_plan(reply)


def _without_plan(reply: Reply) -> Reply:
    return reply.model_copy(update={"plan": None}) if reply.plan is not None else reply


# --- worker processes ---------------------------------------------------------------
def worker_handler(catalog: str | None, db_path: str, platform: str, log_text: bool) -> Handler:
    """Runs in a fresh worker process: its own dialog from the catalog, its own store connection."""
    conversations = Conversations(
        Dialog(knowledge.load(catalog)), Store(db_path, log_text=log_text), platform
    )
    return lambda method, args: getattr(conversations, method)(*args)


class Turns:
    """Runs ``Conversations`` methods in worker processes when they are up, else on the loop.

    Turns run here while the workers start (so the first reply does not wait for them),
    while a dead worker is replaced, and always with ``workers=0``. The workers build
    their dialog from ``catalog``; a dialog handed to this process (tests) serves only
    the turns that run here.
    """

    def __init__(self, conversations: Conversations, workers: int = 0, catalog: str | None = None) -> None:
        self.local = conversations
        self.workers = workers if workers > 0 and os.name == "posix" else 0
        self.catalog = catalog
        self._pool: Workers | None = None
        self._starting: asyncio.Task[None] | None = None

    @property
    def pooled(self) -> bool:
        """Turns are going to the worker processes now."""
        return self._pool is not None and self._pool.full

    @property
    def pids(self) -> list[int]:
        """The live worker processes (none while turns run here), for monitoring and benchmarks."""
        return self._pool.pids if self._pool is not None else []

    async def start(self, wait: bool = True) -> None:
        """Start the workers; with ``wait=False`` turns run here until they are ready."""
        if self.workers and self._pool is None and self._starting is None:
            self._starting = asyncio.create_task(self._start_pool(), name="turn-workers")
        if wait and self._starting is not None:
            await asyncio.shield(self._starting)

    async def stop(self) -> None:
        """Let the workers go once they have answered what they were asked."""
        starting, self._starting = self._starting, None
        if starting is not None:
            await starting
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.stop()

    async def restart(self) -> None:
        """Fresh workers that read the catalog again (after a reload); turns run here meanwhile."""
        await self.stop()
        await self.start(wait=False)

    async def text(self, chat: Chat, text: str, save: bool = True) -> Reply | None:
        reply: Reply | None = await self._run("text", chat, text, save)
        return reply

    async def press(self, chat: Chat, payload: str) -> Reply | None:
        reply: Reply | None = await self._run("press", chat, payload)
        return reply

    async def say(self, chat: Chat, key: str) -> Reply | None:
        reply: Reply | None = await self._run("say", chat, key)
        return reply

    async def first_time(self, update_id: int) -> bool:
        first: bool = await self._run("first_time", update_id)
        return first

    async def move_chat(self, old_chat: int | str, new_chat: int | str) -> None:
        await self._run("move_chat", old_chat, new_chat)

    async def lang(self, chat: Chat) -> str | None:
        lang: str | None = await self._run("lang", chat)
        return lang

    async def quick(self, text: str, lang: str | None) -> Reply:
        reply: Reply = await self._run("quick", text, lang)
        return reply

    async def chart(self, chat: Chat) -> bytes | None:
        png: bytes | None = await self._run("chart", chat)
        return png

    async def _run(self, method: str, *args: Any) -> Any:
        pool = self._pool
        if pool is not None and not pool.full:
            self._replace_dead(pool)
        elif pool is not None:
            try:
                return await pool.call(method, *args)
            except WorkerDied:
                # Killed or out of memory. What it saved stays saved; this turn runs here,
                # and a replacement starts in the background.
                log.error("a turn worker died during %s; answering here, starting another", method)
                self._replace_dead(pool)
        return await self._run_here(method, args)

    async def _run_here(self, method: str, args: tuple[Any, ...]) -> Any:
        if method == "chart":  # matplotlib takes a while; a thread at least keeps sends flowing
            state = self.local.load(*args)  # the store's connection belongs to this thread
            return await asyncio.to_thread(self.local.dialog.chart_png, state)
        return getattr(self.local, method)(*args)

    def _replace_dead(self, pool: Workers) -> None:
        if self._starting is None or self._starting.done():
            self._starting = asyncio.create_task(self._refill(pool), name="turn-workers")

    @staticmethod
    async def _refill(pool: Workers) -> None:
        try:
            await pool.start()
        except Exception:  # the next turn tries again; until then turns run here
            log.exception("could not replace a turn worker")

    async def _start_pool(self) -> None:
        store = self.local.store
        pool = Workers(
            self.workers,
            "bot.turns:worker_handler",
            {
                "catalog": self.catalog,
                "db_path": store.path,
                "platform": self.local.platform,
                "log_text": store.log_text,
            },
        )
        try:
            await pool.start()
        except Exception:
            log.exception("turn workers did not start; every turn runs in this process")
            await pool.stop()
            return
        self._pool = pool
        log.info("turns run in %d worker process(es): %s", self.workers, pool.pids)
