"""A rate per second, minute or hour run for the hours said, with no model needed (issue 44).

"¥0.08/分钟，跑 5 小时多少钱" → 5 h × 60 × ¥0.08 = ¥24; "每月 2000 块，3090 每小时 2.5，每天开
10 小时够吗" → 300 h × ¥2.5 = ¥750, within ¥2,000. The answer is ``engine.rate.rate_cost``
rendered through ``locales/*/money.yaml`` (``money.rate``), or None when the message holds
no such rate, no hours, or (for an hourly price) no month's budget: an hourly quote with a
job's hours is the quote answer's (``money_stated.quote_money``).
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.reply import Content
from gpu_advisor.engine.billing import Period, schedule_hours
from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.rate import RateCost, RateUnit, rate_cost
from gpu_advisor.engine.results import Money
from gpu_advisor.locales.numbers import currency_symbol, number
from gpu_advisor.reading.quote import MoneyReading
from gpu_advisor.reading.rate_words import all_day, hourly_rate, month_budget, short_rate
from gpu_advisor.reading.use_words import Use, mentions_api


def rate_money(low: str, reading: MoneyReading, use: Use, lang: str) -> Content | None:
    """The rate's cost for the hours said, and the budget's verdict when a month's money is given."""
    if mentions_api(low):  # a hosted API's per-minute price is compared with renting, not run alone
        return None
    budget = month_budget(low, vendor=False)
    short = short_rate(low)
    rate: tuple[Money, RateUnit] | None = short
    if rate is None:
        hourly = hourly_rate(low, reading.count)
        rate = (hourly, "hour") if hourly is not None and budget is not None else None
    hours = _hours(low, use)
    if rate is None or hours is None:
        return None
    try:
        cost = rate_cost(rate[0], rate[1], hours[0], hours[1], budget)
    except ValueError:
        return None
    return Content(title=_title(lang, cost), summary=_lines(lang, cost, hours[2]))


def _hours(low: str, use: Use) -> tuple[float, Period, float | None] | None:
    """A month of a daily schedule, a month around the clock, hours a month, or a job's total."""
    if use.hours_per_day is not None and 0 < use.hours_per_day <= 24:
        return schedule_hours(use.hours_per_day), "month", use.hours_per_day
    if all_day(low):
        return HOURS_PER_MONTH, "month", 24.0
    if use.hours_per_month is not None:
        return use.hours_per_month, "month", None
    if use.job_hours is not None:
        return use.job_hours, "job", None
    return None


def _title(lang: str, c: RateCost) -> str:
    if c.fits is None:
        key = "money.rate.title_month" if c.period == "month" else "money.rate.title"
        return locales.t(lang, key, total=c.total.amount, currency=c.total.currency)
    key = "money.rate.title_fits" if c.fits else "money.rate.title_over"
    return locales.t(
        lang,
        key,
        total=c.total.amount,
        budget=c.budget.amount if c.budget else None,
        currency=c.total.currency,
    )


def _lines(lang: str, c: RateCost, per_day: float | None) -> list[str]:
    cur = c.rate.currency
    lines = []
    if c.unit != "hour":
        lines.append(
            locales.t(
                lang,
                f"money.rate.per_hour_{c.unit}",
                rate=_small(lang, c.rate),
                units=c.units_per_hour,
                per_hour=c.per_hour.amount,
                currency=cur,
            )
        )
    if per_day is not None:
        lines.append(locales.t(lang, "money.rate.schedule", per_day=per_day, hours=c.hours))
    lines.append(
        locales.t(
            lang,
            "money.rate.total",
            hours=c.hours,
            per_hour=c.per_hour.amount,
            total=c.total.amount,
            currency=cur,
        )
    )
    if c.budget is not None and c.fits is not None:
        if c.fits and c.left is not None:
            lines.append(
                locales.t(lang, "money.rate.left", budget=c.budget.amount, left=c.left.amount, currency=cur)
            )
        elif c.over_by is not None:
            lines.append(
                locales.t(
                    lang, "money.rate.over", budget=c.budget.amount, over=c.over_by.amount, currency=cur
                )
            )
        if not c.fits and c.hours_in_budget is not None:
            lines.append(
                locales.t(
                    lang,
                    "money.rate.budget_hours",
                    hours=c.hours_in_budget,
                    per_day=c.hours_in_budget / 30,
                    budget=c.budget.amount,
                    currency=cur,
                )
            )
    return lines


def _small(lang: str, m: Money) -> str:
    """A per-second or per-minute price as said (US$0.002), not rounded to cents like ``:money``."""
    return currency_symbol(lang, m.currency) + number(lang, m.amount, "#,##0.######")
