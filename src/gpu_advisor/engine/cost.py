"""What renting an offer costs for a job or for a service that never stops.

Operators bill in units: a monthly-only offer charges a full month for a three-day
job, so a one-off job on it costs ceil(hours / 720) months (a year is twelve). Hourly offers bill
max(hours, minimum rental). A service that runs 24×7 costs the monthly price, or the
yearly price (monthly × (1 − discount)) when committed for a year. Where an operator
prints a range ("¥80k–120k a month"), the low end is quoted and the high end kept.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from gpu_advisor.engine.specs import Offer

HOURS_PER_MONTH = 720.0
HOURS_PER_YEAR = 8760.0


@dataclass(frozen=True, slots=True)
class Quote:
    amount: float
    currency: str
    per: str
    billed_units: float
    unit: str
    yearly_monthly: float | None = None
    amount_max: float | None = None


def monthly(offer: Offer) -> float:
    """Monthly price; hardware the user already owns costs nothing to rent."""
    if offer.owned:
        return 0.0
    if offer.price_month is not None:
        return offer.price_month
    assert offer.price_hour is not None
    return offer.price_hour * HOURS_PER_MONTH


def always_on(offer: Offer, machines: int = 1) -> Quote:
    base = monthly(offer) * machines
    yearly = base * (1 - offer.yearly_discount) if offer.yearly_discount else None
    high = offer.price_month_max * machines if offer.price_month_max else None
    return Quote(base, offer.currency, "month", 1, "month", yearly, high)


def job(offer: Offer, hours: float, machines: int = 1) -> Quote:
    """Cost of holding ``machines`` of ``offer`` for ``hours``, at the offer's billing granularity."""
    if offer.owned:
        return Quote(0.0, offer.currency, "total", hours, "hour")
    if offer.price_hour is not None:
        billed = max(hours, offer.min_rental_hours if offer.price_month is None else 0.0)
        by_hour = billed * offer.price_hour * machines
        if offer.price_month is None:
            return Quote(by_hour, offer.currency, "total", billed, "hour")
        months = billed_months(hours)
        by_month = months * offer.price_month * machines
        if by_hour <= by_month:
            return Quote(by_hour, offer.currency, "total", billed, "hour")
        return Quote(by_month, offer.currency, "total", months, "month")
    months = max(1, billed_months(hours))
    high = offer.price_month_max * months * machines if offer.price_month_max else None
    assert offer.price_month is not None
    return Quote(offer.price_month * months * machines, offer.currency, "total", months, "month", None, high)


def billed_months(hours: float) -> int:
    """Months an operator bills for ``hours``: 30-day months, but a year is twelve of them.

    8,760 hours is 12.2 months of 720 hours; nobody renting "for a year" expects a
    thirteenth month on the bill, so whole years count twelve months each and only the
    rest is rounded up in 720-hour months.
    """
    years = math.floor(hours / HOURS_PER_YEAR + 1e-9)
    rest = max(0.0, hours - years * HOURS_PER_YEAR)
    return 12 * years + math.ceil(rest / HOURS_PER_MONTH - 1e-9)


def in_cny(q: Quote, fx_to_cny: Mapping[str, float]) -> float:
    """The quote's amount in CNY, so offers priced in different currencies rank on one scale.

    A currency without a rate (``Catalog`` refuses such catalogs) ranks last.
    """
    rate = fx_to_cny.get(q.currency)
    if rate is None:
        return math.inf if q.amount else 0.0
    return q.amount * rate


def to_currency(amount: float, src: str, dst: str, fx_to_cny: Mapping[str, float]) -> float | None:
    """Convert through CNY with the catalog's rates; None when a rate is unknown."""
    if src == dst:
        return amount
    if src not in fx_to_cny or dst not in fx_to_cny:
        return None
    return amount * fx_to_cny[src] / fx_to_cny[dst]
