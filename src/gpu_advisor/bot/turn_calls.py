"""The calls a turn is made of: typed, picklable objects that cross the process boundary.

Each is a frozen dataclass whose ``run(host)`` does its work against a
``bot.turn.Conversations`` (the dialog and a store connection) where the executor runs
it: in this process or in a worker. Replies come back without their plan unless asked
(``keep_plan``): the worker has already logged it, so only text and buttons travel.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from gpu_advisor.bot.dialog import ConversationState, Reply
from gpu_advisor.engine.results import Cost
from gpu_advisor.engine.specs import Catalog
from gpu_advisor.engine.workload import Budget
from gpu_advisor.text.normalize import client_lang

if TYPE_CHECKING:
    from gpu_advisor.bot.turn import Conversations


@dataclass(frozen=True)
class Chat:
    """Who a turn is for (the conversation key, the client's language for a first message)
    and, when it answers a redeliverable update, which one: a redelivered update gets no answer."""

    chat_id: int | str
    user_id: int | str
    language_code: str | None = None
    update_id: int | None = None


@dataclass(frozen=True)
class Text:
    """A message: the dialog reads it; ``save=False`` answers without remembering (a replay).

    ``today`` is the date where the turn was taken, so "by Friday" / "周五前" can become a
    deadline in hours; the dialog and the reader have no clock of their own. ``quota`` is
    charged when nothing of the conversation is stored yet (the web's new sessions per
    address), read with the state the turn loads: no store call of its own.
    """

    chat: Chat
    text: str
    save: bool = True
    keep_plan: bool = False
    today: date | None = None
    quota: Quota | None = None

    def run(self, host: Conversations) -> Reply | None:
        reply = host.step(
            self.chat,
            lambda state: host.dialog.handle(state, self.text, today=self.today),
            self.save,
            self.quota,
        )
        return reply if reply is None or self.keep_plan else without_plan(reply)


@dataclass(frozen=True)
class Press:
    """A quick-reply button's payload."""

    chat: Chat
    payload: str
    keep_plan: bool = False
    quota: Quota | None = None

    def run(self, host: Conversations) -> Reply | None:
        reply = host.step(self.chat, lambda state: host.dialog.press(state, self.payload), True, self.quota)
        return reply if reply is None or self.keep_plan else without_plan(reply)


@dataclass(frozen=True)
class Say:
    """A fixed message in the conversation's language (``values`` fill it in); the state is not touched."""

    chat: Chat
    key: str
    values: tuple[tuple[str, Any], ...] = ()

    def run(self, host: Conversations) -> Reply | None:
        with host.store.transaction():
            if not host.fresh(self.chat):
                return None
            return host.dialog.say(host.load(self.chat), "info", self.key, **dict(self.values))


@dataclass(frozen=True)
class Stats:
    """The operator's usage report (``Store.stats``: conversations, plans, most recommended
    offers), in the conversation's language; ``None`` for a redelivered update."""

    chat: Chat

    def run(self, host: Conversations) -> Reply | None:
        with host.store.transaction():
            if not host.fresh(self.chat):
                return None
            state = host.load(self.chat)
        usage = host.store.stats()
        top = [f"{o['offer']} ×{o['count']}" for o in usage["top_offers"]]
        return host.dialog.say(
            state, "info", "admin.stats", conversations=usage["conversations"], plans=usage["plans"], top=top
        )


@dataclass(frozen=True)
class Lang:
    """The conversation's language, or ``None`` for a redelivered update."""

    chat: Chat

    def run(self, host: Conversations) -> str | None:
        with host.store.transaction():
            return host.load(self.chat).lang if host.fresh(self.chat) else None


@dataclass(frozen=True)
class Known:
    """Something of the conversation is stored (the web counts new sessions by it)."""

    chat: Chat

    def run(self, host: Conversations) -> bool:
        stored = host.store.load(host.platform, self.chat.chat_id, self.chat.user_id)
        return stored != ConversationState()


@dataclass(frozen=True)
class Quota:
    """One use of a per-client quota counted in the shared database (``Storage.hit``): 0 when
    allowed, else the seconds to wait. Every server process sees the same count."""

    key: str
    limit: int
    window_s: float

    def run(self, host: Conversations) -> float:
        return host.store.hit(self.key, self.limit, self.window_s)

    def charge(self, host: Conversations) -> None:
        """Count one use, or raise ``QuotaExceeded`` (the turn is then not run)."""
        wait = self.run(host)
        if wait > 0:
            raise QuotaExceeded(self.key, wait)


class QuotaExceeded(Exception):
    """A turn's new-conversation quota (``Text.quota``) is used up: ``wait_s`` until a use is free.

    Raised in the worker that ran the turn and rebuilt in the caller (``__reduce__``)."""

    def __init__(self, key: str, wait_s: float) -> None:
        super().__init__(f"quota {key} used up for {wait_s:.0f} s")
        self.key, self.wait_s = key, wait_s

    def __reduce__(self) -> tuple[type[QuotaExceeded], tuple[str, float]]:
        return (QuotaExceeded, (self.key, self.wait_s))


@dataclass(frozen=True)
class FirstTime:
    """An update that runs no turn (an inline query) is deduped on its own."""

    update_id: int

    def run(self, host: Conversations) -> bool:
        return host.store.first_time(host.platform, self.update_id)


@dataclass(frozen=True)
class MoveChat:
    """A Telegram group became a supergroup: everyone's conversation follows its new id."""

    old_chat: int | str
    new_chat: int | str

    def run(self, host: Conversations) -> None:
        host.store.move_chat(host.platform, self.old_chat, self.new_chat)


@dataclass(frozen=True)
class Quick:
    """One message, one answer, nothing stored (an inline query's card), in the client's language."""

    text: str
    lang: str | None

    @classmethod
    def for_client(cls, text: str, language_code: str | None) -> Quick:
        return cls(text, client_lang(language_code))

    def run(self, host: Conversations) -> Reply:
        return without_plan(host.dialog.quick(self.text, self.lang, lock=False))


@dataclass(frozen=True)
class Chart:
    """The conversation's current plan as a PNG (``bot.charts``), or ``None`` without one."""

    chat: Chat

    def run(self, host: Conversations) -> bytes | None:
        from gpu_advisor.bot.charts import plan_chart

        state = host.load(self.chat)
        plan, _ = host.dialog.plan_for(state)
        return plan_chart(
            plan, state.lang, host.dialog.kb.catalog.fx_to_cny, budget_of(state), traditional=state.hant
        )


def budget_of(state: ConversationState) -> Cost | None:
    """The conversation's budget as the cost panel draws it: amount, currency and period.

    The panel converts it itself, with the same catalog rates as the bars (an hourly
    budget counts 730 hours a month; a total budget goes on the per-job chart), so the
    line and the bars are always in one currency and period.
    """
    slot = state.slots.get("budget")
    if slot is None:
        return None
    try:
        budget = Budget.model_validate(slot)
    except ValidationError:
        return None  # the dialog reports a budget it cannot use; the chart just draws no line
    return Cost(amount=budget.amount, currency=budget.currency, per=budget.per)


@dataclass(frozen=True)
class UseCatalog:
    """An operator's uploaded price list replaces the prices; GPUs and models stay."""

    catalog: Catalog

    def run(self, host: Conversations) -> None:
        host.dialog.reload(host.dialog.kb.model_copy(update={"catalog": self.catalog}))


def without_plan(reply: Reply) -> Reply:
    return reply.model_copy(update={"plan": None}) if reply.plan is not None else reply
