"""One conversation turn, the same on every surface: one rule, wherever it runs.

A turn is: load the state → take the client's language for a first message → rate limit
→ drop a redelivered update → run the dialog → save the state → log a plan the turn made.
Every surface (terminal, Telegram, Discord, web, the test surface) calls ``Turn.take``
and only converts its platform's update into a ``Chat`` and text (or a button), and
renders the ``Turned`` it gets back.

The rules, written once:

- **Rate limit** (``limiter``): past it the turn is not run; the reply is "slow down"
  in the conversation's language and ``Turned.refused`` is ``"rate"`` (the web answers 429).
- **One turn at a time per conversation** (a lock per chat and user), though several
  workers answer the turns.
- **Dedupe**: a turn that answers an update id already seen returns ``None``; the id is
  marked in the same transaction that saves the state.
- **Plan log**: a plan is logged when the turn produced it from the user's requirements,
  i.e. the answer changed the conversation; ``/why``, ``/cost`` or a repeated ``/plan``
  re-display it and are not logged again, nor is a turn that saves nothing.
- **Admission** (``admission``, ``bot.admission``): the turn is costed (``too_costly``) and
  then waits its fair turn for a worker, keyed by the client the surface names (the web: the
  client's network; Telegram and Discord: the user). A message too costly to read gets
  "send a shorter one" (``"cost"``), a refusal for overload "busy, try again in N s"
  (``"busy"``, the web answers 503), both in the client's language and without loading the
  conversation. Every surface takes its turns through here, so all are admitted alike.
- **Refusals**: past the executor's deadline the reply is a polite "that took too long"
  (``"deadline"``); a store that cannot be written gets "storage unavailable"
  (``"storage"``). Nothing of a refused turn is saved.
- **Pictures**: ``/plan`` answered on a surface that shows pictures also gets the chart.
- **Operator commands** (``operate``): ``/stats`` reports usage, ``/reload_catalog`` rereads the
  prices (the workers restart to read them too); whoever the surface's settings do not name
  an operator is refused, in their language. Deduped like a turn.

The dialog runs before the write transaction opens, so a slow turn never holds the lock
the others wait for. Where a turn runs is the executor's business (``bot.execution``);
the work itself is a call object (``Text``, ``Press``, ...) run against ``Conversations``.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import AbstractContextManager, asynccontextmanager
from dataclasses import dataclass, replace
from datetime import date
from typing import Any, Literal, TypeVar

from gpu_advisor import knowledge
from gpu_advisor.bot.admission import Admission, Overloaded, too_costly
from gpu_advisor.bot.dialog import ConversationState, Dialog, Reply
from gpu_advisor.bot.execution import Call, CallTimedOut, Executor, InProcess, WorkerPool
from gpu_advisor.bot.ratelimit import ConversationLocks, RateLimiter
from gpu_advisor.bot.store import StorageUnavailable, Store
from gpu_advisor.bot.turn_calls import Chart, Chat, FirstTime, Press, Quota, Say, Stats, Text
from gpu_advisor.bot.workers import Handler
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.text.normalize import client_lang

log = logging.getLogger(__name__)
Refusal = Literal["rate", "deadline", "storage", "busy", "cost"]
OPERATOR_COMMANDS = ("stats", "reload_catalog")
STORAGE_ERRORS: tuple[type[Exception], ...] = (StorageUnavailable, sqlite3.Error)
T = TypeVar("T")

__all__ = ["OPERATOR_COMMANDS", "STORAGE_ERRORS", "Chat", "Conversations", "Turn", "Turned", "executor_for"]


class Conversations:
    """What a turn runs against, in this process and in each worker: the dialog, the store, the platform.

    A turn is one transaction: the update is marked as seen, the state and the plan log are
    written, all or nothing.
    """

    def __init__(self, dialog: Dialog, store: Store, platform: str) -> None:
        self.dialog = dialog
        self.store = store
        self.platform = platform

    def load(self, chat: Chat) -> ConversationState:
        """The stored state; a first conversation speaks the client's language until told otherwise."""
        return self.greet(chat, self.store.load(self.platform, chat.chat_id, chat.user_id))

    @staticmethod
    def greet(chat: Chat, state: ConversationState) -> ConversationState:
        """A first conversation speaks the client's language until told otherwise."""
        if state.turns == 0 and not state.lang_locked and chat.language_code:
            state = state.model_copy(update={"lang": client_lang(chat.language_code)})
        return state

    def hold(self, chat: Chat) -> AbstractContextManager[None]:
        """This conversation's turns one at a time across processes sharing the database."""
        return self.store.hold(self.platform, chat.chat_id, chat.user_id)

    def fresh(self, chat: Chat) -> bool:
        """Not a redelivered update (marks it seen; call inside the turn's transaction)."""
        return chat.update_id is None or self.store.first_time(self.platform, chat.update_id)

    def step(
        self,
        chat: Chat,
        act: Callable[[ConversationState], tuple[Reply, ConversationState]],
        save: bool,
        quota: Quota | None = None,
    ) -> Reply | None:
        """One turn of this conversation: load its state, ``act`` on it, finish; None if redelivered.

        ``quota`` is charged when nothing of the conversation is stored (a new one): past it
        ``QuotaExceeded`` is raised before the dialog runs, and nothing is saved.
        """
        with self.hold(chat):
            stored = self.store.load(self.platform, chat.chat_id, chat.user_id)
            if quota is not None and stored == ConversationState():
                quota.charge(self)
            before = self.greet(chat, stored)
            reply, state = act(before)
            return reply if self.finish(chat, before, state, reply, save) else None

    def finish(
        self, chat: Chat, before: ConversationState, state: ConversationState, reply: Reply, save: bool
    ) -> bool:
        """One transaction: mark the update seen, save the state, log a plan the turn made.

        False for a redelivered update (nothing written).
        """
        with self.store.transaction():
            if not self.fresh(chat):
                return False
            if save:
                self.store.save(self.platform, chat.chat_id, chat.user_id, state)
                if reply.kind == "answer" and reply.plan is not None and state != before:
                    self.store.log_plan(self.platform, reply.plan)
        return True


def worker_host(
    catalog: str | None,
    db_url: str,
    platform: str,
    log_text: bool,
    dialog: str = "gpu_advisor.bot.dialog:Dialog",
) -> Handler:
    """Runs in a fresh worker process: its own dialog from the catalog, its own store connection
    (to the parent's database: ``db_url`` is its path or URL).

    ``dialog`` names the class (``module:name``) that the parent's dialog is, so a test's
    instrumented dialog runs in the workers too.
    """
    module, _, name = dialog.partition(":")
    dialog_class: type[Dialog] = getattr(importlib.import_module(module), name)
    host = Conversations(dialog_class(knowledge.load(catalog)), Store(db_url, log_text=log_text), platform)

    def handle(method: str, args: tuple[Any, ...]) -> Any:
        call: Call[Any] = args[0]
        return call.run(host)

    return handle


def executor_for(
    conversations: Conversations, workers: int, catalog: str | None = None, deadline_s: float | None = None
) -> Executor:
    """In this process with ``workers=0``; else a pool whose workers build a host like this one."""
    if workers <= 0:
        return InProcess(conversations)
    store, dialog = conversations.store, type(conversations.dialog)
    args = {
        "catalog": catalog,
        "db_url": store.url,
        "platform": conversations.platform,
        "log_text": store.log_text,
        "dialog": f"{dialog.__module__}:{dialog.__qualname__}",
    }
    if deadline_s is None:
        return WorkerPool(conversations, workers, "gpu_advisor.bot.turn:worker_host", args)
    return WorkerPool(conversations, workers, "gpu_advisor.bot.turn:worker_host", args, deadline_s)


@dataclass(frozen=True)
class Turned:
    """What a turn gave back: the reply, why it was refused (if it was), a chart to show."""

    reply: Reply
    refused: Refusal | None = None
    chart: bytes | None = None
    retry_after: int = 0  # "busy": the seconds to wait before sending again


class Turn:
    """The one entry point for a conversation turn; ``executor`` decides where it runs."""

    def __init__(
        self,
        conversations: Conversations,
        executor: Executor | None = None,
        limiter: RateLimiter | None = None,
        today: Callable[[], date] = date.today,
        admission: Admission | None = None,
    ) -> None:
        """``today`` dates each message, so "by Friday" / "周五前" reads as a deadline (tests fix it).
        ``admission``: the fair queue for the workers; None admits every turn at once (the terminal)."""
        self.today = today
        self.local = conversations
        self.executor = executor or InProcess(conversations)
        self.limiter = limiter
        self.locks = ConversationLocks()
        self.admission = admission

    def client(self, chat: Chat) -> Hashable:
        """Whose fair share a chat's turns use when the surface names nobody: its user."""
        return (self.local.platform, chat.user_id)

    @asynccontextmanager
    async def admitted(self, client: Hashable, arrived: float | None = None) -> AsyncIterator[None]:
        """Hold a worker slot for ``client`` for the block (``Overloaded`` if refused): a call that
        is not a turn (a chart, an inline card) but takes a worker's time is admitted like one."""
        if self.admission is None:
            yield
            return
        async with self.admission.admit(client, arrived):
            yield

    async def take(
        self,
        chat: Chat,
        text: str | None = None,
        button: str | None = None,
        *,
        save: bool = True,
        keep_plan: bool = False,
        pictures: bool = False,
        quota: Quota | None = None,
        client: Hashable | None = None,
        arrived: float | None = None,
    ) -> Turned | None:
        """One turn for ``text`` (or a pressed ``button``); ``None`` for a redelivered update.

        ``quota``: charged if the conversation is new (``Conversations.step``); past it the call
        raises ``QuotaExceeded``. ``client``: whose fair share of the workers the turn uses (by
        default the user on this platform); ``arrived``: when the message came in."""
        if self.admission is not None and (price := too_costly(text)) is not None:
            cost, allowed = price
            return Turned(self._refusal(chat, "hardening.too_costly", cost=cost, allowed=allowed), "cost")
        client = self.client(chat) if client is None else client
        try:
            async with self.admitted(client, arrived):
                return await self._take(chat, text, button, save, keep_plan, pictures, quota)
        except Overloaded as exc:
            busy = self._refusal(chat, "hardening.overloaded", seconds=exc.retry_after)
            return Turned(busy, "busy", retry_after=exc.retry_after)

    async def _take(
        self,
        chat: Chat,
        text: str | None,
        button: str | None,
        save: bool,
        keep_plan: bool,
        pictures: bool,
        quota: Quota | None,
    ) -> Turned | None:
        key = (chat.chat_id, chat.user_id)
        async with self.locks.hold(key):
            if self.limiter is not None and not self.limiter.allow(key):
                said = await self._guarded(chat, Say(chat, "dialog.slow_down"))
                return None if said is None else Turned(said.reply, "rate")
            call: Call[Reply | None] = (
                Press(chat, button, keep_plan, quota)
                if button is not None
                else Text(chat, text or "", save, keep_plan, self.today(), quota)
            )
            turned = await self._guarded(chat, call)
        if turned is None or turned.refused or not pictures or not _wants_chart(text, button, turned.reply):
            return turned
        return Turned(turned.reply, chart=await self.ask(Chart(chat)))

    async def say(self, chat: Chat, key: str, **values: Any) -> Reply | None:
        """A fixed message in the conversation's language (deduped, the state untouched)."""
        said = await self._guarded(chat, Say(chat, key, tuple(values.items())))
        return None if said is None else said.reply

    async def operate(
        self, chat: Chat, command: str, allowed: bool, read_knowledge: Callable[[], Knowledge]
    ) -> Reply | None:
        """An operator command (``OPERATOR_COMMANDS``); ``None`` for a redelivered update.

        ``allowed``: the surface's settings name this user an operator. ``read_knowledge``
        reads the catalog again for ``/reload_catalog``.
        """
        if chat.update_id is not None and not await self.ask(FirstTime(chat.update_id)):
            return None
        chat = replace(chat, update_id=None)  # marked seen above
        if not allowed:
            return await self.say(chat, "admin.refused")
        if command_of(command) == "/stats":
            said = await self._guarded(chat, Stats(chat))
            return None if said is None else said.reply
        self.local.dialog.reload(read_knowledge())
        await self.executor.restart()  # fresh workers read the catalog again
        return await self.say(chat, "admin.reloaded", offers=len(self.local.dialog.kb.catalog.offers))

    async def ask(self, call: Call[T]) -> T:
        """Any other call where the turns run (a dedupe check, an inline card, an engine request)."""
        return await self.executor.run(call)

    async def _guarded(self, chat: Chat, call: Call[Reply | None]) -> Turned | None:
        try:
            reply = await self.executor.run(call)
        except CallTimedOut:
            log.warning(
                "a %s turn of %s ran past its deadline; answered politely", type(call).__name__, chat.chat_id
            )
            return Turned(self._refusal(chat, "dialog.too_slow", look=True), "deadline")
        except STORAGE_ERRORS as exc:
            # An outage is said once, with a count, where the store runs (bot.storage.outage)
            level = logging.DEBUG if isinstance(exc, StorageUnavailable) else logging.ERROR
            kind = type(call).__name__
            log.log(level, "a %s turn of %s could not use the store: %s", kind, chat.chat_id, exc)
            return Turned(self._refusal(chat, "dialog.storage_unavailable"), "storage")
        return None if reply is None else Turned(reply)

    def _refusal(self, chat: Chat, key: str, look: bool = False, **values: Any) -> Reply:
        """In the conversation's language when the store can say it (``look``), else the client's."""
        state = ConversationState(lang=client_lang(chat.language_code or "zh"))
        if look:
            with contextlib.suppress(*STORAGE_ERRORS):  # else the client's language will do
                state = self.local.load(chat)
        return self.local.dialog.say(state, "error", key, **values)


def _wants_chart(text: str | None, button: str | None, reply: Reply) -> bool:
    """``/plan`` (typed or pressed) that produced an answer: the picture goes with it."""
    said = button if button is not None else (text or "")
    return reply.kind == "answer" and command_of(said) == "/plan"


def command_of(text: str) -> str:
    """ "/plan@GpuAdvisorBot extra" → "/plan"; "" for plain text."""
    word = text.split(maxsplit=1)[0] if text.strip() else ""
    return word.split("@", maxsplit=1)[0] if word.startswith("/") else ""
