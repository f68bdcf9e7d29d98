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
from gpu_advisor.reading.money_words import asks_what_it_rents, one_machine_asked

_JOB_SLOTS = ("model", "params_b", "hf_config", "task")


def afford_answerer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The answerer: a month's budget asked about before any job or plan; None otherwise."""
    budget = _month_budget(msg.slots.get("budget"))
    if budget is None or state.answered or not asks_what_it_rents(msg.low):
        return None
    new = remember(state, msg)
    if any(k in new.slots for k in _JOB_SLOTS) or msg.job != "none":
        return None  # a job is known: the plan keeps to the budget
    if any(p.amount != budget.amount for p in msg.money(flow.kb).prices):
        return None  # "每月预算 2000，3090 每小时 2.5，每天开 10 小时够吗": a rate against it (money_rate)
    gpus = msg.ext.gpus
    count = msg.slots.get("gpu_count")
    asked = (
        (gpus[0], int(count) if isinstance(count, int) else 1, one_machine_asked(msg.low))
        if len(gpus) == 1
        else None
    )
    content = afford_money(flow.kb, budget, new.lang, asked)
    if content is None:
        return None
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return flow.reply(new, "answer", content, [button]), new


def afford_money(
    kb: Knowledge, budget: Money, lang: str, asked: tuple[str, int, bool] | None = None
) -> Content | None:
    """What ``budget`` a month rents, the cards asked about (card, count, as one machine)
    against it first ("is an 8x A100 node within it": a100-40g-8x ¥24,510 against ¥20,000)."""
    try:
        c = afford(budget, kb)
    except ValueError:
        return None
    lines = within_lines(lang, c, kb)
    if asked is not None and (card := _card_line(kb, budget, asked, lang)) is not None:
        lines.insert(0, card)
    title = locales.t(lang, "money.afford.title", budget=budget.amount, currency=budget.currency)
    return Content(title=title, summary=lines)


def _card_line(kb: Knowledge, budget: Money, asked: tuple[str, int, bool], lang: str) -> str | None:
    gpu, count, whole = asked
    a = lookup(kb, gpu, count, HOURS_PER_MONTH, one_machine=whole)
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
