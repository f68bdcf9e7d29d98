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
busy SQLite connection sleeps a millisecond or more before it retries). The dialog runs
before the write transaction opens, so a slow turn never holds the lock others wait for.

A turn in a worker has a deadline (``DEADLINE_S``): one that runs past it (a pathological
input) is answered with a polite "that took too long" and its worker is killed and
replaced; nothing of that turn was written, so the conversation is as it was. Once the
workers are up, turns never run on the event loop again: while a killed worker is
replaced they wait for one. A store that cannot be written (disk full, read-only, I/O
error) gets a polite "storage unavailable" instead of a traceback.

Replies come back without their plan (the worker has already logged it), so only
text and buttons cross the process boundary; the web asks for the plan (``converse``).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import sqlite3
from dataclasses import dataclass
from typing import Any, Literal

import knowledge
from bot.dialog import ConversationState, Dialog, Reply
from bot.store import StorageUnavailable, Store
from bot.workers import CallTimedOut, Handler, WorkerDied, Workers
from engine.specs import Catalog

log = logging.getLogger(__name__)
MAX_WORKERS = 4
DEADLINE_S = 10.0  # a turn takes milliseconds; ten seconds means the input sent the parser astray
TRIES = 2  # a turn whose worker died under it (queued behind a killed one) is sent once more
Refusal = Literal["deadline", "storage"]


class StorageFault(RuntimeError):
    """The store could not be used (full, read-only, I/O error, locked past the busy timeout).

    What a worker raises in place of ``StorageUnavailable`` or ``sqlite3.Error``: it crosses
    the process boundary intact (one message argument), so the parent knows what happened.
    """


STORAGE_ERRORS: tuple[type[Exception], ...] = (StorageUnavailable, sqlite3.Error, StorageFault)


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

    def text(self, chat: Chat, text: str, save: bool = True, keep_plan: bool = False) -> Reply | None:
        before = self.load(chat)
        reply, state = self.dialog.handle(before, text)
        return self._finish(chat, before, state, reply, save, keep_plan)

    def press(self, chat: Chat, payload: str, keep_plan: bool = False) -> Reply | None:
        before = self.load(chat)
        reply, state = self.dialog.press(before, payload)
        return self._finish(chat, before, state, reply, True, keep_plan)

    def known(self, chat: Chat) -> bool:
        """Something of the conversation is stored (the web's cap on new sessions counts the others)."""
        return self.store.load(self.platform, chat.chat_id, chat.user_id) != ConversationState()

    def use_catalog(self, catalog: Catalog) -> None:
        """An operator's uploaded price list replaces the prices; GPUs and models stay."""
        self.dialog.reload(self.dialog.kb.model_copy(update={"catalog": catalog}))

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

    def _finish(
        self,
        chat: Chat,
        before: ConversationState,
        state: ConversationState,
        reply: Reply,
        save: bool,
        keep_plan: bool,
    ) -> Reply | None:
        """One transaction: mark the update seen, save the state, log a plan the turn made.

        /why and /cost show the plan again without changing the conversation: not logged twice.
        """
        with self.store.transaction():
            if not self._fresh(chat):
                return None
            if save:
                self.store.save(self.platform, chat.chat_id, chat.user_id, state)
                if reply.kind == "answer" and reply.plan is not None and state != before:
                    self.store.log_plan(self.platform, reply.plan)
        return reply if keep_plan else _without_plan(reply)


def _without_plan(reply: Reply) -> Reply:
    return reply.model_copy(update={"plan": None}) if reply.plan is not None else reply


# --- worker processes ---------------------------------------------------------------
def worker_handler(
    catalog: str | None, db_path: str, platform: str, log_text: bool, dialog: str = "bot.dialog:Dialog"
) -> Handler:
    """Runs in a fresh worker process: its own dialog from the catalog, its own store connection.

    ``dialog`` names the class (``module:name``) that the parent's dialog is, so a test's
    instrumented dialog runs in the workers too.
    """
    module, _, name = dialog.partition(":")
    dialog_class: type[Dialog] = getattr(importlib.import_module(module), name)
    conversations = Conversations(
        dialog_class(knowledge.load(catalog)), Store(db_path, log_text=log_text), platform
    )

    def handle(method: str, args: tuple[Any, ...]) -> Any:
        try:
            return getattr(conversations, method)(*args)
        except STORAGE_ERRORS as exc:
            raise StorageFault(str(exc)) from None

    return handle


class TurnRefused(Exception):
    """A turn that did not run: past its deadline, or the store could not be written.

    ``reply`` says so politely in the conversation's language; nothing of the turn was saved.
    """

    def __init__(self, reason: Refusal, reply: Reply) -> None:
        super().__init__(reason)
        self.reason = reason
        self.reply = reply


class Turns:
    """Runs ``Conversations`` methods in worker processes when they are up, else on the loop.

    Turns run here while the workers first start (so the first reply does not wait for
    them) and always with ``workers=0``; the deadline holds only in the workers. The workers
    build their dialog (of the local dialog's class) from ``catalog``; a dialog handed to
    this process (tests) serves only the turns that run here.
    """

    def __init__(
        self,
        conversations: Conversations,
        workers: int = 0,
        catalog: str | None = None,
        deadline_s: float | None = DEADLINE_S,
    ) -> None:
        self.local = conversations
        self.workers = workers if workers > 0 and os.name == "posix" else 0
        self.catalog = catalog
        self.deadline_s = deadline_s
        self._pool: Workers | None = None
        self._starting: asyncio.Task[None] | None = None
        self._uploaded: Catalog | None = None

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

    async def use_catalog(self, catalog: Catalog) -> None:
        """An uploaded price list for every worker, now and after a restart; this process's
        dialog is the caller's to reload."""
        self._uploaded = catalog
        if self._pool is not None:
            await self._pool.broadcast("use_catalog", catalog)

    async def converse(self, chat: Chat, text: str | None = None, button: str | None = None) -> Reply:
        """One web turn: the reply keeps its plan. Raises ``TurnRefused`` (the caller picks the status)."""
        if button is not None:
            reply: Reply | None = await self._turn("press", chat, button, True)
        else:
            reply = await self._turn("text", chat, text or "", True, True)
        assert reply is not None  # no update id, so never a redelivery
        return reply

    async def text(self, chat: Chat, text: str, save: bool = True) -> Reply | None:
        return await self._polite("text", chat, text, save)

    async def press(self, chat: Chat, payload: str) -> Reply | None:
        return await self._polite("press", chat, payload)

    async def say(self, chat: Chat, key: str) -> Reply | None:
        return await self._polite("say", chat, key)

    async def known(self, chat: Chat) -> bool:
        known: bool = await self._run("known", chat)
        return known

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

    # --- refusals -----------------------------------------------------------------------
    async def _polite(self, method: str, chat: Chat, *args: Any) -> Reply | None:
        try:
            return await self._turn(method, chat, *args)
        except TurnRefused as exc:
            return exc.reply

    async def _turn(self, method: str, chat: Chat, *args: Any) -> Reply | None:
        try:
            reply: Reply | None = await self._run(method, chat, *args)
        except CallTimedOut:
            log.warning(
                "a %s turn of %s ran past %s s; answered politely", method, chat.chat_id, self.deadline_s
            )
            raise TurnRefused("deadline", self._refusal(chat, "dialog.too_slow", look=True)) from None
        except STORAGE_ERRORS as exc:
            log.error("a %s turn of %s could not use the store: %s", method, chat.chat_id, exc)
            raise TurnRefused("storage", self._refusal(chat, "dialog.storage_unavailable")) from None
        return reply

    def _refusal(self, chat: Chat, key: str, look: bool = False) -> Reply:
        """In the conversation's language when the store can say it (``look``), else the client's."""
        state = ConversationState(lang="zh" if (chat.language_code or "zh").startswith("zh") else "en")
        if look:
            with contextlib.suppress(*STORAGE_ERRORS):  # else the client's language will do
                state = self.local.load(chat)
        return self.local.dialog.say(state, "error", key)

    # --- where a turn runs ----------------------------------------------------------------
    async def _run(self, method: str, *args: Any) -> Any:
        pool = self._pool
        if pool is None:
            return await self._run_here(method, args)
        for _ in range(TRIES):
            if not pool.full:
                self._replace_dead(pool)
            if not pool.pids and not await self._worker_up(pool):
                log.error("no turn worker came back; %s runs in this process", method)
                return await self._run_here(method, args)
            try:
                return await pool.call(method, *args)
            except WorkerDied:
                # Killed (queued behind a turn past its deadline, or out of memory). What it
                # saved stays saved; the turn goes to another worker.
                log.error("a turn worker died during %s; sending it to another", method)
        raise CallTimedOut(f"{method}: its worker died {TRIES} times")

    async def _worker_up(self, pool: Workers) -> bool:
        """Wait for a replacement worker (a turn must not run on the loop): False if none comes."""
        starting = self._starting
        if starting is not None:
            try:
                await asyncio.wait_for(asyncio.shield(starting), self.deadline_s or DEADLINE_S)
            except TimeoutError:
                return False
        return bool(pool.pids)

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
        except Exception:  # the next turn tries again
            log.exception("could not replace a turn worker")

    async def _start_pool(self) -> None:
        store, dialog = self.local.store, type(self.local.dialog)
        pool = Workers(
            self.workers,
            "bot.turns:worker_handler",
            {
                "catalog": self.catalog,
                "db_path": store.path,
                "platform": self.local.platform,
                "log_text": store.log_text,
                "dialog": f"{dialog.__module__}:{dialog.__qualname__}",
            },
            self.deadline_s,
        )
        if self._uploaded is not None:
            await pool.broadcast("use_catalog", self._uploaded)  # sent to each worker as it starts
        try:
            await pool.start()
        except Exception:
            log.exception("turn workers did not start; every turn runs in this process")
            await pool.stop()
            return
        self._pool = pool
        log.info("turns run in %d worker process(es): %s", self.workers, pool.pids)
