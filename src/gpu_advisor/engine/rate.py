"""A price per second, minute or hour run for the hours said, against a month's budget if one is given.

"¥0.08/分钟，跑 5 小时多少钱" is 5 h × 60 min × ¥0.08 = ¥24; "I have ¥3,000 a month, a card
is ¥4/hour, can I run it 24/7?" is 720 h × ¥4 = ¥2,880, within ¥3,000 with ¥120 left. The
rate keeps the unit it was said in (a per-minute price is never a month's budget); the
hours are a job's total or a month of a schedule (``engine.billing.schedule_hours``).
Amounts stay in the currency the user wrote; a budget in another currency is not compared.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.billing import Period
from gpu_advisor.engine.results import Money

RateUnit = Literal["second", "minute", "hour"]
SECONDS_IN: dict[RateUnit, int] = {"second": 1, "minute": 60, "hour": 3600}


class RateCost(BaseModel):
    """``hours`` of use at ``rate`` per ``unit``: the hourly price, the total and the budget's verdict."""

    model_config = ConfigDict(frozen=True)

    rate: Money
    unit: RateUnit
    units_per_hour: int = Field(description="3600 a second, 60 a minute, 1 an hour")
    hours: float
    period: Period
    per_hour: Money
    total: Money
    budget: Money | None = None
    fits: bool | None = Field(None, description="None without a budget in the rate's currency")
    left: Money | None = Field(None, description="budget minus total when it fits")
    over_by: Money | None = Field(None, description="total minus budget when it does not")
    hours_in_budget: float | None = Field(None, description="hours the budget buys at this rate")


def rate_cost(
    rate: Money, unit: RateUnit, hours: float, period: Period, budget: Money | None = None
) -> RateCost:
    """The cost of ``hours`` at ``rate`` per ``unit``; ``budget`` (same currency) gets a verdict."""
    if rate.amount <= 0 or hours <= 0:
        raise ValueError("a rate and its hours are positive")
    units = 3600 // SECONDS_IN[unit]
    per_hour = Money(amount=rate.amount * units, currency=rate.currency)
    total = Money(amount=per_hour.amount * hours, currency=rate.currency)
    out = RateCost(
        rate=rate, unit=unit, units_per_hour=units, hours=hours, period=period, per_hour=per_hour, total=total
    )
    if budget is None or budget.currency != rate.currency or budget.amount <= 0:
        return out
    gap = budget.amount - total.amount
    return out.model_copy(
        update={
            "budget": budget,
            "fits": gap >= 0,
            "left": Money(amount=gap, currency=rate.currency) if gap >= 0 else None,
            "over_by": Money(amount=-gap, currency=rate.currency) if gap < 0 else None,
            "hours_in_budget": budget.amount / per_hour.amount,
        }
    )
