"""Buy or rent, from what the user said: a purchase price, power, electricity, a period of use.

"买一台 8 卡 4090 要 20 万，电费 0.6 一度，用两年，和租比哪个划算" needs no model. On one
month (``engine.cost.HOURS_PER_MONTH``, 720 h) in the user's currency:

    power_kw        = stated watts / 1000, else (count × card TDP + host watts) / 1000
    electricity     = power_kw × hours a month × PUE × price per kWh
    rent            = the stated monthly rent, or hourly × hours, or the catalog's price
                      for count × card for those hours (``engine.price_lookup``)
    payback months  = purchase price / (rent − electricity)        (never, when rent ≤ power)
    over N months   : buy = price + N × electricity,  rent = N × rent

TDP is the card's rated board power (``knowledge/gpus.yaml``), so the power bill is the one
at full load; the host's draw is ``PriceReference.host_w``; PUE, the default electricity
price and their sources are ``PriceReference.defaults``. Resale value, hosting and repairs
are not counted unless stated (``hosting_per_month``), and the answer says so
(``hosting_counted``). Pure: numbers in, numbers out.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt

from gpu_advisor.engine import price_lookup
from gpu_advisor.engine.cost import HOURS_PER_MONTH, to_currency
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.reference import PriceReference
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.validate import find_gpu

RentSource = Literal["stated_month", "stated_hour", "catalog"]


class BuyRentAsk(BaseModel):
    """What the user said; everything but the card and the purchase price is optional."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gpu: str
    count: PositiveInt = Field(1, le=64)
    purchase_price: Money = Field(description="the whole purchase: every card and the host")
    rent_monthly: Money | None = Field(None, description="renting the same cards, a month")
    rent_hourly: Money | None = Field(None, description="renting the same cards, an hour")
    power_w: PositiveFloat | None = Field(None, le=100_000, description="the machine's draw")
    electricity_per_kwh: Money | None = None
    hosting_per_month: Money | None = None
    hours_per_month: PositiveFloat = Field(HOURS_PER_MONTH, le=HOURS_PER_MONTH)
    months: PositiveInt | None = Field(None, le=120, description="how long it will be used")
    pue: float | None = Field(None, ge=1.0, le=3.0)
    currency: str | None = Field(None, pattern=r"^[A-Z]{3}$", description="answer in this currency")


class BuyVsRent(BaseModel):
    """Every figure of the comparison, in ``currency``, a month unless named otherwise."""

    model_config = ConfigDict(frozen=True)

    currency: str
    gpu: str
    count: int
    hours_per_month: float
    purchase_price: float
    power_kw: float
    power_stated: bool
    card_tdp_w: float
    host_w: float
    pue: float
    electricity_per_kwh: float
    electricity_assumed: bool
    electricity_monthly: float
    hosting_monthly: float
    hosting_counted: bool
    rent_monthly: float
    rent_source: RentSource
    rent_offer: str | None = None
    running_monthly: float = Field(description="electricity + hosting")
    saving_monthly: float = Field(description="rent − running: what owning saves each month")
    payback_months: float | None = Field(None, description="None: owning never pays back")
    months: int | None = None
    buy_total: float | None = None
    rent_total: float | None = None
    cheaper: Literal["buy", "rent"] | None = Field(None, description="over ``months`` when given")


def buy_vs_rent(ask: BuyRentAsk, kb: Knowledge, ref: PriceReference) -> BuyVsRent:
    """Buying ``ask``'s machine against renting the same cards, from what was said."""
    gpu = find_gpu(ask.gpu, kb.gpus)
    if gpu is None:
        raise EngineError("unknown_gpu", "gpu", name=ask.gpu)
    cur = ask.currency or ask.purchase_price.currency
    conv = Converter(kb, cur)
    d = ref.defaults
    host = ref.host_w(ask.count)
    power_kw = (ask.power_w or ask.count * gpu.tdp_w + host) / 1000
    pue = ask.pue or d.pue
    default_kwh = Money(amount=d.electricity_per_kwh, currency=d.electricity_currency)
    per_kwh = conv(ask.electricity_per_kwh or default_kwh)
    power = power_kw * ask.hours_per_month * pue * per_kwh
    hosting = conv(ask.hosting_per_month) if ask.hosting_per_month else 0.0
    rent, source, offer = _rent(ask, gpu.id, kb, conv)
    price = conv(ask.purchase_price)
    saving = rent - power - hosting
    buy_total = price + (power + hosting) * ask.months if ask.months else None
    rent_total = rent * ask.months if ask.months else None
    return BuyVsRent(
        currency=cur,
        gpu=gpu.id,
        count=ask.count,
        hours_per_month=ask.hours_per_month,
        purchase_price=round(price, 2),
        power_kw=round(power_kw, 3),
        power_stated=ask.power_w is not None,
        card_tdp_w=gpu.tdp_w,
        host_w=host,
        pue=pue,
        electricity_per_kwh=round(per_kwh, 4),
        electricity_assumed=ask.electricity_per_kwh is None,
        electricity_monthly=round(power, 2),
        hosting_monthly=round(hosting, 2),
        hosting_counted=ask.hosting_per_month is not None,
        rent_monthly=round(rent, 2),
        rent_source=source,
        rent_offer=offer,
        running_monthly=round(power + hosting, 2),
        saving_monthly=round(saving, 2),
        payback_months=round(price / saving, 1) if saving > 0 else None,
        months=ask.months,
        buy_total=round(buy_total, 2) if buy_total is not None else None,
        rent_total=round(rent_total, 2) if rent_total is not None else None,
        cheaper=_cheaper(buy_total, rent_total),
    )


class Converter:
    """Money into one currency through the catalog's dated ``fx_to_cny``; an unknown currency is refused."""

    def __init__(self, kb: Knowledge, currency: str) -> None:
        self.rates, self.currency = kb.catalog.fx_to_cny, currency

    def __call__(self, m: Money) -> float:
        out = to_currency(m.amount, m.currency, self.currency, self.rates)
        if out is None:
            known = ", ".join(sorted(self.rates))
            raise EngineError("unknown_currency", "currency", name=m.currency, known=known)
        return out


def _rent(ask: BuyRentAsk, gpu: str, kb: Knowledge, conv: Converter) -> tuple[float, RentSource, str | None]:
    """The stated rent (a month, or an hour × the hours), else the catalog's for the same cards."""
    if ask.rent_monthly is not None:
        return conv(ask.rent_monthly), "stated_month", None
    if ask.rent_hourly is not None:
        return conv(ask.rent_hourly) * ask.hours_per_month, "stated_hour", None
    answer = price_lookup.lookup(kb, gpu, ask.count, ask.hours_per_month)
    if not answer.in_catalog or answer.total is None or answer.currency is None:
        raise EngineError("no_rent_price", "rent_monthly", gpu=gpu, count=ask.count)
    return conv(Money(amount=answer.total, currency=answer.currency)), "catalog", answer.lines[0].offer


def _cheaper(buy: float | None, rent: float | None) -> Literal["buy", "rent"] | None:
    if buy is None or rent is None:
        return None
    return "buy" if buy < rent else "rent"
