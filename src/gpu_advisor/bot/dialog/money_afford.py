"""A month's budget with no job yet: what it rents, and whether a named card fits (issue 44).

"预算每月 3000 能租什么卡", "my budget is $300 a month, what GPU can I rent?", "預算每月一萬台幣",
"预算 5000 一个月，A100 够吗" were asked "train or serve?" though the catalog alone answers:
the biggest machine of each card within the money (``engine.budget.afford``), converted at
the catalog's dated rates when the budget is in US$ or NT$ ($300 × 7.1884 = ¥2,156.52 rents
a T4 at ¥900 and a 3090 at ¥1,750, not an A100 at ¥2,800), and for a card named, its month
against the budget. Which of them carries the job needs the model: asked after the money.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.money_cut import within_lines
from gpu_advisor.bot.dialog.money_lines import gpu_name
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button, Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.engine.budget import afford
from gpu_advisor.engine.cost import HOURS_PER_MONTH, to_currency
from gpu_advisor.engine.price_lookup import lookup
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.money_words import asks_what_it_rents

_JOB_SLOTS = ("model", "params_b", "hf_config", "task")


def afford_answerer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The answerer: a month's budget asked about before any job or plan; None otherwise."""
    budget = _month_budget(msg.slots.get("budget"))
    if budget is None or state.answered or not asks_what_it_rents(msg.low):
        return None
    new = remember(state, msg)
    if any(k in new.slots for k in _JOB_SLOTS) or msg.job != "none":
        return None  # a job is known: the plan keeps to the budget
    gpus = msg.ext.gpus
    content = afford_money(flow.kb, budget, new.lang, gpus[0] if len(gpus) == 1 else None)
    if content is None:
        return None
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return flow.reply(new, "answer", content, [button]), new


def afford_money(kb: Knowledge, budget: Money, lang: str, gpu: str | None = None) -> Content | None:
    """What ``budget`` a month rents, the named ``gpu``'s month against it first."""
    try:
        c = afford(budget, kb)
    except ValueError:
        return None
    lines = within_lines(lang, c, kb)
    if gpu is not None and (card := _card_line(kb, budget, gpu, lang)) is not None:
        lines.insert(0, card)
    title = locales.t(lang, "money.afford.title", budget=budget.amount, currency=budget.currency)
    return Content(title=title, summary=lines)


def _card_line(kb: Knowledge, budget: Money, gpu: str, lang: str) -> str | None:
    a = lookup(kb, gpu, 1, HOURS_PER_MONTH)
    if not a.in_catalog or not a.lines:
        return locales.t(lang, "money.afford.not_listed", gpu=gpu_name(lang, kb, gpu))
    line = a.lines[0]
    month = to_currency(line.total, line.currency, budget.currency, kb.catalog.fx_to_cny)
    if month is None:
        return None
    values = {
        "count": line.count * line.machines,
        "gpu": gpu_name(lang, kb, gpu),
        "month": month,
        "budget": budget.amount,
        "gap": abs(budget.amount - month),
        "currency": budget.currency,
    }
    key = "money.afford.card_fits" if month <= budget.amount * 1.000001 else "money.afford.card_over"
    return locales.t(lang, key, **values)


def _month_budget(slot: object) -> Money | None:
    """The budget slot when it is a month's money ({'amount', 'currency', 'per': 'month'})."""
    if not isinstance(slot, dict) or slot.get("per", "month") != "month":
        return None
    amount, currency = slot.get("amount"), slot.get("currency", "CNY")
    if not isinstance(amount, int | float) or amount <= 0 or not isinstance(currency, str):
        return None
    return Money(amount=float(amount), currency=currency)
