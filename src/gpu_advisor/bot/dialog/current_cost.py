"""What the user pays now, held against the plan: "你现在每月 ¥5,600，推荐的方案 ¥1,750，每月省 ¥3,850".

A month's budget said in another currency than the pick's ("$300 a month", "每月 NT$3,000")
is held against it the same way (``budget_fit_line``): the card says whether the pick fits,
at which rate of which date, and by how much it is over.

"现在两张 A100 一个月 5600" is the cost to beat, read by ``reading.requirements.money``
as ``current_cost``. The comparison is made in one currency (the catalog's dated rates,
``engine.cost.to_currency``) and said in the user's.
"""

from __future__ import annotations

from typing import Any

from gpu_advisor import locales
from gpu_advisor.bot.dialog.stated_lines import budget_line
from gpu_advisor.engine.budget import check
from gpu_advisor.engine.cost import to_currency
from gpu_advisor.engine.results import Money, Plan
from gpu_advisor.engine.specs import Knowledge


def current_cost_line(kb: Knowledge, lang: str, slots: dict[str, Any], plan: Plan) -> str | None:
    """The saving (or extra cost) of the plan's pick against what is paid now, or None."""
    now = slots.get("current_cost")
    pick = plan.recommendation
    if not isinstance(now, dict) or pick is None:
        return None
    currency = str(now.get("currency", "CNY"))
    planned = to_currency(
        pick.monthly_cost.amount, pick.monthly_cost.currency, currency, kb.catalog.fx_to_cny
    )
    if planned is None:
        return None
    paid = float(now["amount"])
    values = {
        "now": locales.money(lang, paid, currency),
        "plan": locales.money(lang, planned, currency),
        "delta": locales.money(lang, abs(paid - planned), currency),
    }
    return locales.t(lang, "current_cost.saves" if planned <= paid else "current_cost.dearer", **values)


def budget_fit_line(kb: Knowledge, lang: str, slots: dict[str, Any], plan: Plan) -> str | None:
    """Whether the pick fits a month's budget said in another currency; in the pick's own currency
    only when the month is over it but the yearly month is not ("预算再压一压" to the yearly price);
    else None (the plan's status judges it; an hourly or whole-job budget is not a month)."""
    held = slots.get("budget")
    pick = plan.recommendation
    if not isinstance(held, dict) or pick is None or held.get("per", "month") != "month":
        return None
    budget = Money(amount=float(held["amount"]), currency=str(held.get("currency", "CNY")))
    if budget.amount <= 0:
        return None
    if budget.currency == pick.monthly_cost.currency:  # over by the month, within paid yearly
        yearly = pick.monthly_cost.yearly_monthly
        if yearly is None or not yearly <= budget.amount * 1.000001 < pick.monthly_cost.amount:
            return None
        values = {"yearly": yearly, "budget": budget.amount, "currency": budget.currency}
        return locales.t(lang, "money.budget.yearly_fits", **values)
    month = Money(amount=pick.monthly_cost.amount, currency=pick.monthly_cost.currency)
    return budget_line(lang, check(budget, month, kb.catalog))
