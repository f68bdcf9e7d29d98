"""A vendor's quote as prices per machine, and which way of paying is cheapest for given hours.

Vendors quote in many units: per machine-hour, per card-hour (卡时), per day, per month,
per year, with a discount for paying a year ahead (年付85折: pay 85 % of the monthly rate
every month, ``yearly_discount`` 0.15). Everything here is restated per machine:

    hourly  = per-hour price, or per-card-hour × cards, or per-day / 24
    monthly = per-month price, or per-card-month × cards, or per-year / 12
    yearly  = monthly × (1 − yearly_discount), per month, committed for 12 months

For ``hours`` a month of use, hourly billing costs hours × hourly; monthly billing costs
one month; a yearly commitment costs the yearly rate. Monthly beats hourly past
``monthly / hourly`` hours a month (the break-even), the yearly rate past
``yearly / hourly``. For a one-off job of ``hours`` in total, monthly billing costs
ceil(hours / 720) months, as ``engine.cost.job`` bills.

A daily schedule ("每天只用 4 小时", "a few hours a day") is use spread over the month,
not a job: ``schedule_hours`` turns it into hours a month (4 h × 30 days = 120 h, the
month being ``engine.cost``'s 720 h, thirty 24-hour days), priced as ``period="month"``.
The answer names the cheapest way of paying, what it saves against the next one
(``saving``), and the break-even hours, so "按时还是包月" is answered with no model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, model_validator

from gpu_advisor.engine.cost import HOURS_PER_MONTH, billed_months
from gpu_advisor.engine.specs import GpuSpec, Interconnect, Offer

PricePer = Literal["hour", "card_hour", "day", "card_day", "month", "card_month", "year", "card_year"]
BillingKind = Literal["hour", "month", "year"]
Period = Literal["month", "job"]
QUOTE_OFFER_ID = "vendor-quote"
DAYS_PER_MONTH = HOURS_PER_MONTH / 24  # thirty 24-hour days: the month every amount is priced on


def schedule_hours(hours_per_day: float, days_per_month: float = DAYS_PER_MONTH) -> float:
    """Hours a month of a daily schedule: 4 h a day is 4 × 30 = 120 h (never past 720).

    A day has 24 hours, so a schedule past that is refused rather than priced.
    """
    if not 0 < hours_per_day <= 24 or not 0 < days_per_month <= DAYS_PER_MONTH:
        raise ValueError("a daily schedule is 0-24 hours on up to 30 days a month")
    return min(hours_per_day * days_per_month, HOURS_PER_MONTH)


class QuotePrice(BaseModel):
    """One price as the vendor printed it: ``¥1.6/卡时`` is amount 1.6, CNY, per card_hour."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    amount: PositiveFloat
    currency: str = Field("CNY", pattern=r"^[A-Z]{3}$")
    per: PricePer


class VendorQuote(BaseModel):
    """A vendor's offer: ``count`` × ``gpu`` per machine, one or more prices, a yearly discount."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gpu: str
    count: PositiveInt = Field(1, le=64)
    prices: list[QuotePrice] = Field(min_length=1, max_length=8)
    yearly_discount: float = Field(0.0, ge=0.0, lt=1.0, description="年付85折 is 0.15")

    @model_validator(mode="after")
    def _one_currency(self) -> VendorQuote:
        if len({p.currency for p in self.prices}) > 1:
            raise ValueError("a quote's prices are in one currency")
        return self

    @property
    def currency(self) -> str:
        return self.prices[0].currency

    def hourly(self) -> float | None:
        """The machine's price per hour, if the vendor bills by the hour (or day)."""
        for p in self.prices:
            cards = self.count if p.per.startswith("card_") else 1
            if p.per.endswith("hour"):
                return p.amount * cards
            if p.per.endswith("day"):
                return p.amount * cards / 24
        return None

    def monthly(self) -> float | None:
        """The machine's price per month, if quoted by the month (or year, as twelfths)."""
        for p in self.prices:
            cards = self.count if p.per.startswith("card_") else 1
            if p.per.endswith("month"):
                return p.amount * cards
        for p in self.prices:
            if p.per.endswith("year"):
                return p.amount * (self.count if p.per.startswith("card_") else 1) / 12
        return None

    def yearly_only(self) -> bool:
        return all(p.per.endswith("year") for p in self.prices)

    def yearly(self) -> float | None:
        """Per month when committed for a year: the yearly price, or monthly × (1 − discount)."""
        month = self.monthly()
        if month is None or not (self.yearly_discount or self.yearly_only()):
            return None
        return month * (1 - self.yearly_discount)

    def per_card_month(self) -> float:
        """What one card costs a month at the quote's cheapest 24×7 rate (hourly × 720 otherwise)."""
        month = self.yearly() or self.monthly()
        if month is None:
            hour = self.hourly()
            assert hour is not None
            month = hour * HOURS_PER_MONTH
        return month / self.count

    def offer(self, gpu: GpuSpec) -> Offer:
        """The quote as a catalog offer, so the engine's searches size a workload on it.

        A yearly-only price becomes its monthly twelfth (already committed, no further discount).
        """
        hour = self.hourly()
        return Offer(
            id=QUOTE_OFFER_ID,
            gpu=gpu.id,
            count=self.count,
            interconnect=_link(gpu, self.count),
            price_hour=hour,
            price_month=self.monthly(),
            currency=self.currency,
            yearly_discount=0.0 if self.yearly_only() else self.yearly_discount,
            min_rental_hours=1.0 if hour is not None else HOURS_PER_MONTH,
            source="the vendor's quote",
        )


def _link(gpu: GpuSpec, count: int) -> Interconnect:
    """A quote rarely says: SXM boards of 8 sit on NVSwitch, smaller SXM sets on NVLink, else PCIe."""
    if count == 1:
        return "none"
    if gpu.form_factor == "sxm":
        return "nvswitch" if count == 8 else "nvlink"
    return "pcie"


class BillingCost(BaseModel):
    """What ``hours`` of use cost under one way of paying, in the quote's currency."""

    model_config = ConfigDict(frozen=True)

    billing: BillingKind
    amount: float
    currency: str
    billed_units: float


class Billing(BaseModel):
    """Every way of paying the quote allows, for ``hours`` a month (or for a ``job`` of ``hours``)."""

    model_config = ConfigDict(frozen=True)

    hours: float
    period: Period
    options: list[BillingCost]
    cheapest: BillingKind | None
    break_even_hours_month: float | None = Field(None, description="hours a month past which monthly wins")
    break_even_hours_year: float | None = Field(None, description="hours a month past which yearly wins")
    runner_up: BillingKind | None = Field(None, description="the next cheapest way of paying")
    saving: float | None = Field(None, description="what the cheapest saves against the runner-up")


def billing(q: VendorQuote, hours: float, period: Period) -> Billing:
    """The cost of ``hours`` under hourly, monthly and yearly billing, and the break-even hours."""
    hour, month, year = q.hourly(), q.monthly(), q.yearly()
    if q.yearly_only():
        month = None  # twelfths of a yearly price are not a monthly plan
    months = max(1, billed_months(hours)) if period == "job" else 1
    priced: list[tuple[BillingKind, float | None, float]] = [
        ("hour", None if hour is None else hour * hours, hours),
        ("month", None if month is None else month * months, months),
        ("year", year if period == "month" else None, 1),
    ]
    options = [
        BillingCost(billing=kind, amount=round(amount, 2), currency=q.currency, billed_units=units)
        for kind, amount, units in priced
        if amount is not None
    ]
    ranked = sorted(options, key=lambda o: o.amount)
    return Billing(
        hours=hours,
        period=period,
        options=options,
        cheapest=ranked[0].billing if ranked else None,
        break_even_hours_month=round(month / hour, 1) if hour and month else None,
        break_even_hours_year=round(year / hour, 1) if hour and year else None,
        runner_up=ranked[1].billing if len(ranked) > 1 else None,
        saving=round(ranked[1].amount - ranked[0].amount, 2) if len(ranked) > 1 else None,
    )


class ScheduleMonth(BaseModel):
    """A daily schedule set against a month's rent (``schedule_against_month``), no quote needed."""

    model_config = ConfigDict(frozen=True)

    hours_per_day: float
    hours_month: float = Field(description="hours_per_day × 30 days")
    monthly: float = Field(description="the month's rent for the machines asked")
    per_used_hour: float = Field(description="monthly ÷ hours_month: what each hour used costs on the month")
    hourly: float | None = Field(
        None, description="the hourly price for the same machines, when one is known"
    )
    hourly_total: float | None = Field(None, description="hours_month × hourly")
    break_even_hours_day: float | None = Field(
        None, description="monthly ÷ hourly ÷ 30: past this many hours a day the month is cheaper"
    )


def schedule_against_month(
    monthly: float, hours_per_day: float, hourly: float | None = None
) -> ScheduleMonth:
    """Hourly or monthly for someone who uses the card ``hours_per_day`` a day.

    "我每天就用 3 小时，A100 按小时还是包月划算": 3 h × 30 d = 90 h; the catalog's ¥2,800 month
    costs ¥2,800 ÷ 90 = ¥31.11 per hour used, so any hourly price below that wins. With an
    hourly price ``hourly`` the schedule is priced (90 × hourly) and the hours a day past
    which the month wins is ``monthly ÷ hourly ÷ 30``.
    """
    if monthly <= 0 or (hourly is not None and hourly <= 0):
        raise ValueError("a month's rent and an hourly price are positive amounts")
    hours = schedule_hours(hours_per_day)
    return ScheduleMonth(
        hours_per_day=hours_per_day,
        hours_month=hours,
        monthly=monthly,
        per_used_hour=monthly / hours,
        hourly=hourly,
        hourly_total=hours * hourly if hourly is not None else None,
        break_even_hours_day=monthly / hourly / DAYS_PER_MONTH if hourly is not None else None,
    )
