"""Is this vendor quote a good price for my workload? ("8×A800 80G ¥58,000/月 年付85折 划算吗")

A quote is judged the way a plan is made, on the quote as a one-offer catalog:

1. **Fit** — ``engine.verdict`` on exactly the quoted cards (per training method, or per
   serving format).
2. **What it does** — ``engine.recommend`` over the quote alone sizes the workload on it:
   tokens/s and ¥ per million output tokens at the planned and at full load (serving),
   the job's hours, days and cost (training); how many such machines the load needs.
3. **How to pay** — ``engine.billing`` prices the user's hours (24×7 for serving, the
   job's hours for training, or what the user says) hourly, monthly and yearly, with the
   break-even hours.
4. **Against the catalog** — the catalog's offer of the same cards (``Plan.requested``),
   the cheapest catalog option meeting the same targets (``Plan.recommendation``), and
   the quote's price per card-month against the catalog's range for that card, all
   converted through the operator's dated ``fx_to_cny`` (a USD quote stays in USD; the
   comparison figures carry their own currency).

Steps 3 and 4 need no model: ``money_only`` answers "每小时 ¥180，包月 ¥9万，训练 300 小时，
哪种划算" from the quote and the hours alone (300 × ¥180 = ¥54,000 < ¥90,000), so the
money comes first and the fit check follows when a model is named.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.billing import Billing, Period, VendorQuote, billing
from gpu_advisor.engine.cost import HOURS_PER_MONTH, to_currency
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.price_lookup import lookup
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Money, Option, Plan
from gpu_advisor.engine.specs import Catalog, Knowledge
from gpu_advisor.engine.validate import canonical, find_gpu
from gpu_advisor.engine.verdict import HardwareVerdict, verdict
from gpu_advisor.engine.workload import Workload

# Ten billion in any currency per hour, day, month or year is no rental price; below it every
# product judge forms (x 64 cards x 87,600 hours) stays far inside a float.
MAX_PRICE = 1e10

SameCardMissing = Literal["not_in_catalog", "no_catalog_machine"]
"""Why a quote has no catalog figure for its own card (``QuoteVerdict.catalog_same_card_missing``)."""

PricePosition = Literal[
    "above_catalog_range", "within_catalog_range", "below_catalog_range", "no_catalog_offer"
]


class QuoteVerdict(BaseModel):
    """The answer to a quote; every amount carries its currency (public JSON: add fields, never rename)."""

    model_config = ConfigDict(frozen=True)

    quote: VendorQuote
    gpu: str
    fits: bool
    verdict: HardwareVerdict
    status: str = Field(
        description="the plan's status on the quote: ok, no_fit, over_budget, latency_not_met"
    )
    option: Option | None = Field(None, description="the workload sized on the quote (machines, speed, cost)")
    billing: Billing
    training_days: float | None = None
    per_card_month: Money
    catalog_per_card_month_min: Money | None = None
    catalog_per_card_month_max: Money | None = None
    price_position: PricePosition
    above_catalog_by: float | None = Field(None, description="fraction above the catalog's top for this card")
    catalog_same_card: Option | None = Field(
        None,
        description="the workload on the catalog's offer of the quoted card; null when the catalog has none",
    )
    catalog_same_card_missing: SameCardMissing | None = Field(
        None,
        description="why catalog_same_card is null: not_in_catalog (the catalog rents no such card, so "
        "there is no price to set beside the quote, never a zero one) or no_catalog_machine (it rents the "
        "card, but no machine of the quoted size carries the workload)",
    )
    catalog_cheapest: Option | None = None
    cheapest_in_answer_currency: Money | None = Field(
        None, description="the cheapest billing for the user's hours, in the currency the user asked in"
    )
    findings: list[Finding] = Field(default_factory=list)


class QuoteMoney(BaseModel):
    """A quote's money without a workload: how to pay for the hours said, and the catalog's range."""

    model_config = ConfigDict(frozen=True)

    quote: VendorQuote
    gpu: str | None = Field(None, description="the card's knowledge id; None when the card is unknown")
    billing: Billing
    per_card_month: Money
    catalog_per_card_month_min: Money | None = None
    catalog_per_card_month_max: Money | None = None
    price_position: PricePosition
    above_catalog_by: float | None = None
    cheapest_in_answer_currency: Money | None = None


def money_only(
    q: VendorQuote, kb: Knowledge, hours: float, period: Period, answer_currency: str | None = None
) -> QuoteMoney:
    """``q`` priced for ``hours`` (a month's use, or a job's total) with no model named."""
    _check(q, answer_currency, kb)
    gpu = find_gpu(q.gpu, kb.gpus)
    if gpu is not None:
        q = q.model_copy(update={"gpu": gpu.id})
    bill = billing(q, hours, period)
    low, high = _catalog_range(gpu.id, kb) if gpu is not None else (None, None)
    mine = q.per_card_month()
    position, above = _position(mine, q.currency, low, high, kb)
    return QuoteMoney(
        quote=q,
        gpu=gpu.id if gpu is not None else None,
        billing=bill,
        per_card_month=Money(amount=round(mine, 2), currency=q.currency),
        catalog_per_card_month_min=_money(low, kb),
        catalog_per_card_month_max=_money(high, kb),
        price_position=position,
        above_catalog_by=above,
        cheapest_in_answer_currency=_in_answer(bill, answer_currency, kb),
    )


def judge(
    q: VendorQuote,
    w: Workload,
    kb: Knowledge,
    hours: float | None = None,
    answer_currency: str | None = None,
    schedule: bool = False,
) -> QuoteVerdict:
    """``q`` judged for ``w``; ``hours`` a month of use (or the job's total for training) if the user said.

    ``schedule``: the hours are a daily schedule over the month (``billing.schedule_hours``), priced
    as a month of use even for training, never as a job of that many hours.
    """
    _check(q, answer_currency, kb)
    gpu = find_gpu(q.gpu, kb.gpus)
    if gpu is None:
        raise EngineError("unknown_gpu", "gpu", name=q.gpu)
    q = q.model_copy(update={"gpu": gpu.id})
    w = canonical(w, kb)
    on_cards = w.model_copy(update={"gpu": gpu.id, "gpu_count": q.count, "gpus": None, "gpu_owned": None})
    hv = verdict(on_cards, kb)
    free = w.model_copy(update={"gpu": None, "gpu_count": None, "gpu_owned": None})
    plan = recommend(free, _alone(q, kb))
    option = plan.recommendation
    use_hours, period = _hours(w, option, hours)
    if schedule and hours:
        use_hours, period = min(hours, HOURS_PER_MONTH), "month"
    bill = billing(q, use_hours, period)
    low, high = _catalog_range(gpu.id, kb)
    mine = q.per_card_month()
    position, above = _position(mine, q.currency, low, high, kb)
    same, missing = _same_card(on_cards, kb)
    return QuoteVerdict(
        quote=q,
        gpu=gpu.id,
        fits=any(r.fits for r in hv.rows),
        verdict=hv,
        status=plan.status,
        option=option,
        billing=bill,
        training_days=round(option.training_hours / 24, 2) if option and option.training_hours else None,
        per_card_month=Money(amount=round(mine, 2), currency=q.currency),
        catalog_per_card_month_min=_money(low, kb),
        catalog_per_card_month_max=_money(high, kb),
        price_position=position,
        above_catalog_by=above,
        catalog_same_card=same,
        catalog_same_card_missing=missing,
        catalog_cheapest=recommend(free, kb).recommendation,
        cheapest_in_answer_currency=_in_answer(bill, answer_currency, kb),
        findings=_findings(q, plan, position, above),
    )


def _same_card(on_cards: Workload, kb: Knowledge) -> tuple[Option | None, SameCardMissing | None]:
    """The workload on the catalog's own offer of the quoted card, or why there is none.

    A card the catalog does not rent (A800) is still sized, but unpriced: its Option carries
    ¥0 a month and ¥0 per million tokens, which a JSON reader would take for a free card.
    It is left out (null) with the reason, never shown as a zero figure.
    """
    same = recommend(on_cards, kb).requested
    if same is not None and same.priced:
        return same, None
    rented = any(o.gpu == on_cards.gpu and o.mig_profile is None for o in kb.catalog.offers)
    return None, "no_catalog_machine" if same is None and rented else "not_in_catalog"


def _check(q: VendorQuote, answer_currency: str | None, kb: Knowledge) -> None:
    """Refuse, naming the field, what no arithmetic here can price: an amount that is not a
    finite positive number below ``MAX_PRICE``, or a currency the catalog has no rate for
    (the comparison with the catalog converts through ``fx_to_cny``)."""
    for i, p in enumerate(q.prices):
        if not 0 < p.amount <= MAX_PRICE:  # also false for NaN and infinity
            raise EngineError("price_out_of_range", f"quote.prices.{i}.amount", maximum=MAX_PRICE)
    rates = kb.catalog.fx_to_cny
    for field, currency in (("quote.prices.0.currency", q.currency), ("currency", answer_currency)):
        if currency is not None and currency not in rates:
            raise EngineError("unknown_currency", field, name=currency, known=", ".join(sorted(rates)))


def _alone(q: VendorQuote, kb: Knowledge) -> Knowledge:
    """The knowledge with the quote as the only offer (the catalog's rates kept)."""
    offer = q.offer(kb.gpus[q.gpu])
    base = kb.catalog
    catalog = Catalog(
        operator="vendor quote",
        currency=q.currency,
        offers=[offer],
        fx_to_cny=base.fx_to_cny,
        fx_date=base.fx_date,
        fx_source=base.fx_source,
    )
    return kb.model_copy(update={"catalog": catalog})


def _hours(w: Workload, option: Option | None, hours: float | None) -> tuple[float, Period]:
    """The hours to price: the user's; else a job's own hours (training, or serving for a stated time);
    else 24×7 (720 a month)."""
    if w.task != "infer" and not w.always_on:
        job = hours or w.duration_hours or (option.training_hours if option else None)
        if job:
            return float(job), "job"
    if w.task == "infer" and w.duration_hours and not w.always_on:  # serving a three-day event
        return float(hours or w.duration_hours), "job"
    return float(min(hours or HOURS_PER_MONTH, HOURS_PER_MONTH)), "month"


def _catalog_range(gpu: str, kb: Knowledge) -> tuple[float | None, float | None]:
    """The catalog's cheapest and dearest price per card-month for ``gpu``, in CNY (whole cards only)."""
    rates = kb.catalog.fx_to_cny
    per_card: list[float] = []
    for o in kb.catalog.offers:
        if o.gpu != gpu or o.is_slice or o.owned:
            continue
        low = o.price_month if o.price_month is not None else (o.price_hour or 0.0) * HOURS_PER_MONTH
        for amount in (low, o.price_month_max or low):
            cny = to_currency(amount / o.count, o.currency, "CNY", rates)
            if cny is not None:
                per_card.append(cny)
    return (min(per_card), max(per_card)) if per_card else (None, None)


def _position(
    mine: float, currency: str, low: float | None, high: float | None, kb: Knowledge
) -> tuple[PricePosition, float | None]:
    cny = to_currency(mine, currency, "CNY", kb.catalog.fx_to_cny)
    if cny is None or low is None or high is None:
        return "no_catalog_offer", None
    if cny > high * 1.005:  # half a percent of rounding is not "dearer"
        return "above_catalog_range", round(cny / high - 1, 3)
    return ("below_catalog_range" if cny < low * 0.995 else "within_catalog_range"), None


def _money(cny: float | None, kb: Knowledge) -> Money | None:
    """A CNY amount in the catalog's own currency."""
    if cny is None:
        return None
    amount = to_currency(cny, "CNY", kb.catalog.currency, kb.catalog.fx_to_cny)
    return Money(amount=round(amount if amount is not None else cny, 2), currency=kb.catalog.currency)


def _in_answer(bill: Billing, currency: str | None, kb: Knowledge) -> Money | None:
    """The cheapest billing said back in the user's currency (None when it is the quote's own)."""
    best = next((o for o in bill.options if o.billing == bill.cheapest), None)
    if best is None or currency is None or currency == best.currency:
        return None
    amount = to_currency(best.amount, best.currency, currency, kb.catalog.fx_to_cny)
    return None if amount is None else Money(amount=round(amount, 2), currency=currency)


def _findings(q: VendorQuote, plan: Plan, position: PricePosition, above: float | None) -> list[Finding]:
    out: list[Finding] = []
    if position == "above_catalog_range" and above is not None:
        out.append(finding("quote_above_catalog_range", "warning", above=above, gpu=q.gpu))
    option = plan.recommendation
    if option is not None and option.machines > 1:
        out.append(finding("quote_needs_machines", "warning", machines=option.machines))
    if plan.status == "no_fit":
        out.append(finding("quote_does_not_fit", "warning", gpu=q.gpu, count=q.count))
    return out


class CatalogBeside(BaseModel):
    """A quote's cheapest bill for the hours said beside the catalog's same cards for the same hours.

    ``catalog`` is in the quote's currency, converted from ``catalog_own`` at the catalog's
    rates of ``fx_date`` (None when no conversion was needed); ``ratio`` is quoted ÷ catalog."""

    model_config = ConfigDict(frozen=True)

    quoted: Money
    quoted_hours: float
    catalog: Money
    catalog_own: Money
    ratio: float
    unit: str = Field(description="how the catalog bills these hours: hour or month")
    billed_units: float
    share_of: int | None = Field(
        None, description="cards in the catalog machine shared pro rata, when bigger"
    )
    fx_date: dt.date | None = None


def beside_catalog(m: QuoteMoney, kb: Knowledge) -> CatalogBeside | None:
    """The catalog's price of the quote's cards for the quote's hours, or None when the catalog
    rents no such machine, the quote bills nothing for them, or its currency has no rate."""
    if m.gpu is None or not m.billing.options:
        return None
    found = lookup(kb, m.gpu, m.quote.count, m.billing.hours)
    if not found.in_catalog or found.total is None or found.currency is None or not found.lines:
        return None
    line = found.lines[0]
    # only a bigger machine rents these cards: the quote's cards' share of it
    share = m.quote.count / (line.count * line.machines) if line.bigger else 1.0
    own = Money(amount=round(found.total * share, 2), currency=found.currency)
    converted = to_currency(own.amount, own.currency, m.quote.currency, kb.catalog.fx_to_cny)
    if converted is None or converted <= 0:
        return None
    quoted = min(o.amount for o in m.billing.options)
    return CatalogBeside(
        quoted=Money(amount=quoted, currency=m.quote.currency),
        quoted_hours=m.billing.hours,
        catalog=Money(amount=round(converted, 2), currency=m.quote.currency),
        catalog_own=own,
        ratio=quoted / converted,
        unit=line.unit,
        billed_units=line.billed_units,
        share_of=line.count if line.bigger else None,
        fx_date=kb.catalog.fx_date if own.currency != m.quote.currency else None,
    )
