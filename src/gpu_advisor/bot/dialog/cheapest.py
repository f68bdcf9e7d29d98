"""'What's the cheapest thing you rent?': the catalog's cheapest offers, a month and a day.

Asked before any plan and with no card named ("最便宜能租到什么，一个月多少，一天呢",
"whats the cheapest thing you rent? per month and per day"), the answer is the catalog's
cheapest offer of all (a MIG slice where the catalog lists one) and its cheapest whole
card, each with its month and what that month comes to a day. The catalog bills by the
month, so a day is the month ÷ 30 (the engine's month of 720 h) and is said as such, never
offered as a daily price.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button, Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.engine import cost
from gpu_advisor.engine.specs import Offer
from gpu_advisor.reading.message import Message

_PERIOD_SLOTS = frozenset({"duration_hours", "always_on"})
"""Slots a period word sets ("一个月", "per day"): part of the price question, not a job."""
DAYS_PER_MONTH = cost.HOURS_PER_MONTH / 24
"""The engine's month is 720 h, so its day is a thirtieth of the month."""


def answer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The cheapest offers, or None when the message is no such question (a card or a model is
    named, a plan is already on screen, or nothing asks for the cheapest)."""
    if state.answered or msg.ext.gpus or msg.ext.models or msg.job != "none":
        return None
    if set(msg.ext.slots) - _PERIOD_SLOTS:  # "cheapest way to serve 50 users": a plan to size
        return None
    if "cheapest" not in msg.heard or "slice" in msg.heard:  # heard in ``reading.message``
        return None  # "最便宜的切片多少钱" is the slice's own price lookup
    offers = sorted(flow.kb.catalog.offers, key=cost.monthly)
    cards = [o for o in offers if not o.is_slice]
    if not offers:
        return None
    picks = [offers[0]] + ([cards[0]] if cards and cards[0] is not offers[0] else [])
    new = remember(state, msg)
    lines = [_line(flow, new.lang, offer) for offer in picks]
    lines.append(locales.t(new.lang, "prices.cheapest.billed_monthly"))
    title = locales.t(new.lang, "prices.cheapest.title")
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return flow.reply(
        new, "info", Content(title=title, summary=[*lines, locales.t(new.lang, "prices.offer")]), [button]
    ), new


def _line(flow: Tools, lang: str, offer: Offer) -> str:
    monthly = cost.monthly(offer)
    gpu = flow.gpu_names(offer.gpu, lang)
    if offer.is_slice:
        what = locales.t(
            lang, "prices.slice_of", gpu=gpu, profile=offer.mig_profile, memory=offer.slice_memory_gib
        )
    else:
        what = locales.t(lang, "followup.gpus", count=offer.count, gpu=gpu)
    currency = offer.currency
    return locales.t(
        lang,
        "prices.cheapest.line",
        what=what,
        month=locales.money(lang, monthly, currency),
        day=locales.money(lang, monthly / DAYS_PER_MONTH, currency),
    )
