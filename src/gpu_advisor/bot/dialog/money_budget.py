"""A cut of the money asked of a plan already given: "预算再压一压", "便宜点", "再砍 20%",
"cut the budget by a third" (issue 44).

The cut is relative, never an amount of its own ("再压一压" is not a budget of ¥1, "再砍 20%"
is not fewer users): a share cuts the stated month's budget (else the pick's month), and a
cut with no amount asks for the next cheaper thing. ``engine.budget.cut_plan`` says what
meets the new budget — the pick still, the plan's next cheaper option with what it gives
up (cards, memory, speed, time), the same pick paid a year ahead, or nothing — and the new
budget is kept in the conversation, so the plans that follow are sized within it.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.reply import Button, Content
from gpu_advisor.bot.dialog.slots import loose
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.stated_lines import tradeoff_line
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.engine.budget import PlanCut, cut_plan
from gpu_advisor.engine.results import Money, Option
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.locales.names import card_name
from gpu_advisor.reading.budget_cut import kept_share, vague_cut
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.rate_words import month_budget


def budget_cut_answerer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """After a plan, a cut of its money: the new budget kept, and what meets it.

    None when no plan was given, the message states its own month's money (``money_cut``
    answers that), names another number to cut ("并发砍 20%"), or describes a new requirement."""
    if not state.answered or state.job is not None:
        return None
    kept = kept_share(msg.low)
    if kept is None and not vague_cut(msg.low):
        return None
    if month_budget(msg.low) is not None or any(e.slot not in (None, "budget") for e in msg.ext.edits):
        return None
    if any(k != "budget" for k in msg.ext.slots):
        return None
    held = _stored(state)
    if isinstance(held, bool):  # a budget per hour or for the whole job: the ordinary edit scales it
        return None
    plan, _ = flow.plan_for(state)
    pick = plan.recommendation if plan is not None else None
    if plan is None or pick is None:
        return None
    options = [o for o in plan.alternatives if o.priced]
    c = cut_plan(pick, options, flow.kb.catalog, held, kept)
    new = state.model_copy(deep=True)
    if not new.lang_locked:
        new.lang = msg.lang
    new.turns += 1
    if c.budget is not None:
        loose(new.slots)["budget"] = {
            "amount": c.budget.amount,
            "currency": c.budget.currency,
            "per": "month",
        }
    content = cut_content(new.lang, c, pick, plan.task, flow.kb)
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return flow.reply(new, "answer", content, [button]), new


def _stored(state: ConversationState) -> Money | bool | None:
    """The conversation's month budget; None when there is none; False for a budget of another period."""
    held = state.slots.get("budget")
    if not isinstance(held, dict):
        return None
    if held.get("per", "month") != "month":
        return False
    return Money(amount=float(held["amount"]), currency=str(held.get("currency", "CNY")))


def cut_content(lang: str, c: PlanCut, pick: Option, task: str, kb: Knowledge) -> Content:
    """The cut said: the new budget and its arithmetic, what meets it, what that gives up."""
    name = _name(lang, pick)
    if c.way == "none" and c.budget is None:
        title = locales.t(
            lang, "money.budget_cut.cheapest", pick=name, price=c.pick.amount, currency=c.pick.currency
        )
    else:
        title = _budget_title(lang, c)
    lines = _answer(lang, c, pick, name, task, kb)
    if c.fx_date is not None:
        lines.append(locales.t(lang, "money.budget_cut.fx", date=c.fx_date.isoformat()))
    if c.budget is not None:
        lines.append(
            locales.t(lang, "money.budget_cut.kept", budget=c.budget.amount, currency=c.budget.currency)
        )
    return Content(title=title, summary=lines)


def _budget_title(lang: str, c: PlanCut) -> str:
    assert c.budget is not None
    if c.kept is not None and c.base is not None:
        return locales.t(
            lang,
            "money.budget_cut.title_share",
            budget=c.budget.amount,
            base=c.base.amount,
            kept=c.kept,
            currency=c.budget.currency,
        )
    return locales.t(lang, "money.budget_cut.title", budget=c.budget.amount, currency=c.budget.currency)


def _answer(lang: str, c: PlanCut, pick: Option, name: str, task: str, kb: Knowledge) -> list[str]:
    price = {"price": c.pick.amount, "currency": c.pick.currency}
    if c.way == "fits":
        line = locales.t(lang, "money.budget_cut.fits", pick=name, **price)
        if c.budget_in_pick is not None and c.budget is not None and c.budget.currency != c.pick.currency:
            converted = {"amount": c.budget_in_pick.amount, "budget": c.budget.amount}
            return [
                locales.t(
                    lang,
                    "money.budget_cut.converted",
                    budget_currency=c.budget.currency,
                    currency=c.pick.currency,
                    **converted,
                ),
                line,
            ]
        return [line]
    if c.way == "cheaper" and c.tradeoff is not None:
        o = c.tradeoff.cheaper
        line = locales.t(
            lang,
            "money.budget_cut.cheaper",
            option=_name(lang, o),
            price=o.monthly_cost.amount,
            currency=o.monthly_cost.currency,
        )
        slower = pick.meets_latency and not o.meets_latency
        late = [locales.t(lang, "money.budget_cut.latency")] if slower else []
        return [line, tradeoff_line(lang, c.tradeoff, kb), *late]
    if c.way == "yearly" and c.yearly is not None:
        return [
            locales.t(lang, "money.budget_cut.yearly", pick=name, yearly=c.yearly.amount, **price),
            locales.t(
                lang, "money.budget_cut.yearly_cost", year=c.yearly.amount * 12, currency=c.pick.currency
            ),
        ]
    relax = locales.t(lang, f"money.budget_cut.relax_{'infer' if task == 'infer' else 'train'}")
    if c.budget is None:
        return [relax]
    return [locales.t(lang, "money.budget_cut.none", pick=name, **price), relax]


def _name(lang: str, o: Option) -> str:
    return locales.t(lang, "followup.gpus", count=o.count * o.machines, gpu=card_name(lang, o.gpu_name))
