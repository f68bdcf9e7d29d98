"""Buy, rent or call an API: the monthly cost of each for a 24×7 service or a training schedule.

All three are put on one scale, a month, in the user's currency (through the operator's
dated ``fx_to_cny``):

- **Rent** — the catalog's pick for the workload (``engine.recommend``), its monthly price
  for a service; for a training schedule of ``hours`` a month, the cheaper of the hourly
  price × hours and the monthly price.
- **Buy** — the machines the rental pick uses, priced by the user or from the dated
  reference table (``knowledge/prices.yaml``: a whole server, else cards × count with the
  host unpriced and said so). Straight-line depreciation over ``depreciation_months``,
  plus electricity and hosting:

      power_kw   = machines × (count × card TDP + host watts) / 1000
      energy_kwh = power_kw × hours × PUE
      monthly    = price / depreciation_months + energy_kwh × ¥/kWh + hosting

  TDP is the card's rated board power (datasheets), so this is the bill at full load.
- **Hosted API** (serving only) — a month of the planned traffic, output tokens =
  output tokens/s × 3,600 × 720 and input tokens = output × prompt / answer length,
  at the user's per-token price or the reference table's for the model.

Break-even: buying pays for itself after ``price / (rent − running)`` months, where
running = electricity + hosting; it beats renting by the hour above the utilisation
u = (depreciation + hosting) / (rent per 720 h − electricity at full use). Against the
API, owning and renting cost the same as the API at ``monthly / blended price per token``
tokens a month, a share of what the hardware serves at full load.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt

from gpu_advisor.engine.architecture import resolve
from gpu_advisor.engine.cost import HOURS_PER_MONTH, to_currency
from gpu_advisor.engine.defaults import serve_setup
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.reference import PriceReference
from gpu_advisor.engine.results import Money, Option
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.validate import canonical
from gpu_advisor.engine.workload import Workload

Choice = Literal["rent", "buy", "api"]


@dataclass(frozen=True, slots=True)
class Machines:
    """What would be bought: ``machines`` × ``count`` × ``gpu`` (the rental's, or the card the user named)."""

    gpu: str
    count: int
    machines: int


SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600


class OwnershipAsk(BaseModel):
    """What the user said about buying: every field optional, the reference table fills the rest."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    purchase_price: Money | None = Field(None, description="per machine, as the vendor quoted it")
    electricity_per_kwh: Money | None = None
    pue: float | None = Field(None, ge=1.0, le=3.0)
    hosting_per_month: Money | None = Field(None, description="rack, network and care, per machine")
    depreciation_months: PositiveInt | None = Field(None, le=120)
    hours_per_month: PositiveFloat | None = Field(None, le=HOURS_PER_MONTH)
    api_output_per_million: Money | None = None
    api_input_per_million: Money | None = None
    currency: str | None = Field(None, pattern=r"^[A-Z]{3}$", description="answer in this currency")


class BuyCost(BaseModel):
    model_config = ConfigDict(frozen=True)

    gpu: str
    count: int
    machines: int
    price: float
    price_source: str
    price_date: date | None = None
    depreciation_months: int
    depreciation_monthly: float
    power_kw: float
    pue: float
    energy_kwh_month: float
    electricity_per_kwh: float
    electricity_monthly: float
    hosting_monthly: float
    running_monthly: float
    monthly: float


class ApiCost(BaseModel):
    model_config = ConfigDict(frozen=True)

    output_per_million: float
    input_per_million: float
    source: str
    price_date: date | None = None
    output_tokens_month: float
    input_tokens_month: float
    monthly: float


class CumulativePoint(BaseModel):
    model_config = ConfigDict(frozen=True)

    month: int
    rent: float
    buy: float | None = None
    api: float | None = None


class Ownership(BaseModel):
    """Monthly cost of renting, buying and an API for one workload, in ``currency``."""

    model_config = ConfigDict(frozen=True)

    task: str
    currency: str
    gpu: str
    count: int
    machines: int
    hours_per_month: float
    rental: Option
    rent_monthly: float
    buy: BuyCost | None = None
    api: ApiCost | None = None
    full_load_output_tokens_month: float | None = None
    break_even_months: float | None = Field(
        None, description="months until buying has cost less than renting"
    )
    break_even_utilisation: float | None = Field(None, description="share of hours above which buying wins")
    api_break_even_tokens_month: float | None = Field(None, description="tokens a month where owning = API")
    api_break_even_utilisation: float | None = None
    cheapest: Choice
    series: list[CumulativePoint]
    findings: list[Finding] = Field(default_factory=list)


def ownership(w: Workload, ask: OwnershipAsk, kb: Knowledge, ref: PriceReference) -> Ownership:
    """Rent vs buy vs API for ``w`` (a service runs 24×7; training runs ``ask.hours_per_month``)."""
    w = canonical(w, kb)
    serving = w.task == "infer"
    plan = recommend(w.model_copy(update={"always_on": True}) if serving else w, kb)
    # the named card's own rent when the catalog prices it, else the pick's (an unlisted card has no rent)
    named = plan.requested if plan.requested is not None and plan.requested.priced else None
    rental = named or plan.recommendation
    if rental is None:
        raise EngineError("no_fit", "model", model=w.model or "")
    cur = ask.currency or kb.catalog.currency
    hours = HOURS_PER_MONTH if serving else (ask.hours_per_month or w.duration_hours or HOURS_PER_MONTH)
    hours = min(hours, HOURS_PER_MONTH)
    conv = _Converter(kb, cur)
    rent = _rent(rental, hours, kb, conv)
    notes: list[Finding] = []
    buy = _buy(_to_buy(w, rental), ask, hours, ref, kb, conv, notes)
    api = _api(w, rental, ask, ref, kb, conv, notes) if serving else None
    return _assemble(w.task, cur, rental, hours, rent, buy, api, notes)


def _to_buy(w: Workload, rental: Option) -> Machines:
    """The rental's machines, unless the user named a card the catalog does not rent."""
    if w.gpu is not None and w.gpu != rental.gpu:
        return Machines(w.gpu, w.gpu_count or w.gpus or 1, 1)
    return Machines(rental.gpu, rental.count, rental.machines)


class _Converter:
    def __init__(self, kb: Knowledge, currency: str) -> None:
        self.rates, self.currency = kb.catalog.fx_to_cny, currency

    def __call__(self, amount: float, currency: str) -> float:
        out = to_currency(amount, currency, self.currency, self.rates)
        if out is None:
            raise EngineError("unknown_currency", "currency", currency=currency)
        return out


def _rent(o: Option, hours: float, kb: Knowledge, conv: _Converter) -> float:
    """The rental's month: 24×7 at the monthly price, or the cheaper of hourly × hours and a month."""
    monthly = conv(o.monthly_cost.amount, o.monthly_cost.currency)
    offer = next((x for x in kb.catalog.offers if x.id == o.offer), None)
    if hours < HOURS_PER_MONTH and offer is not None and offer.price_hour is not None:
        hourly = conv(offer.price_hour * hours * o.machines, offer.currency)
        return min(hourly, monthly) if offer.price_month else hourly
    return monthly


def _buy(
    o: Machines,
    ask: OwnershipAsk,
    hours: float,
    ref: PriceReference,
    kb: Knowledge,
    conv: _Converter,
    notes: list[Finding],
) -> BuyCost | None:
    priced = _purchase(o, ask, ref, conv, notes)
    if priced is None:
        notes.append(finding("no_purchase_price", "warning", gpu=o.gpu, count=o.count))
        return None
    price, source, when = priced
    d = ref.defaults
    months = ask.depreciation_months or d.depreciation_months
    pue = ask.pue or d.pue
    tdp = kb.gpus[o.gpu].tdp_w
    power_kw = o.machines * (o.count * tdp + ref.host_w(o.count)) / 1000
    energy = power_kw * hours * pue
    per_kwh = _price_or_default(ask.electricity_per_kwh, d.electricity_per_kwh, d.electricity_currency, conv)
    if ask.electricity_per_kwh is None:
        notes.append(finding("assumed_electricity", per_kwh=per_kwh, currency=conv.currency))
    hosting = (
        conv(ask.hosting_per_month.amount, ask.hosting_per_month.currency) * o.machines
        if ask.hosting_per_month
        else 0.0
    )
    if ask.hosting_per_month is None:
        notes.append(finding("hosting_not_counted"))
    running = energy * per_kwh + hosting
    return BuyCost(
        gpu=o.gpu,
        count=o.count,
        machines=o.machines,
        price=round(price, 2),
        price_source=source,
        price_date=when,
        depreciation_months=months,
        depreciation_monthly=round(price / months, 2),
        power_kw=round(power_kw, 3),
        pue=pue,
        energy_kwh_month=round(energy, 1),
        electricity_per_kwh=round(per_kwh, 4),
        electricity_monthly=round(energy * per_kwh, 2),
        hosting_monthly=round(hosting, 2),
        running_monthly=round(running, 2),
        monthly=round(price / months + running, 2),
    )


def _price_or_default(given: Money | None, default: float, currency: str, conv: _Converter) -> float:
    return conv(given.amount, given.currency) if given else conv(default, currency)


def _purchase(
    o: Machines, ask: OwnershipAsk, ref: PriceReference, conv: _Converter, notes: list[Finding]
) -> tuple[float, str, date | None] | None:
    """The machines' price: the user's, a listed server, or listed cards (host unpriced)."""
    if ask.purchase_price is not None:
        return conv(ask.purchase_price.amount, ask.purchase_price.currency) * o.machines, "user", None
    server = ref.server_price(o.gpu, o.count)
    if server is not None:
        return conv(server.price, server.currency) * o.machines, server.source, server.date
    card = ref.card_price(o.gpu, conv.currency)
    if card is None:
        return None
    notes.append(finding("host_not_priced", cards=o.count * o.machines))
    return conv(card.price, card.currency) * o.count * o.machines, card.source, card.date


def _api(
    w: Workload,
    o: Option,
    ask: OwnershipAsk,
    ref: PriceReference,
    kb: Knowledge,
    conv: _Converter,
    notes: list[Finding],
) -> ApiCost | None:
    """A month of the planned traffic through a hosted API, at the user's price or the table's."""
    out_tokens = (o.output_tokens_per_s or 0.0) * SECONDS_PER_MONTH
    if not out_tokens:
        return None
    arch = resolve(w, kb.models).arch
    s, _ = serve_setup(w, arch)
    in_tokens = out_tokens * s.prompt_tokens / s.output_tokens
    if ask.api_output_per_million is not None:
        out_price = conv(ask.api_output_per_million.amount, ask.api_output_per_million.currency)
        given_in = ask.api_input_per_million
        in_price = conv(given_in.amount, given_in.currency) if given_in else 0.0
        source, when = "user", None
    else:
        row = ref.api_for(arch.id)
        if row is None:
            notes.append(finding("no_api_price", model=arch.name))
            return None
        out_price, in_price = (
            conv(row.output_per_million, row.currency),
            conv(row.input_per_million, row.currency),
        )
        source, when = row.source, row.date
    monthly = (out_tokens * out_price + in_tokens * in_price) / 1e6
    return ApiCost(
        output_per_million=round(out_price, 4),
        input_per_million=round(in_price, 4),
        source=source,
        price_date=when,
        output_tokens_month=round(out_tokens),
        input_tokens_month=round(in_tokens),
        monthly=round(monthly, 2),
    )


def _assemble(
    task: str,
    cur: str,
    o: Option,
    hours: float,
    rent: float,
    buy: BuyCost | None,
    api: ApiCost | None,
    notes: list[Finding],
) -> Ownership:
    full = (o.output_tokens_per_s_full_load or 0.0) * SECONDS_PER_MONTH or None
    costs: dict[Choice, float] = {"rent": rent}
    if buy is not None:
        costs["buy"] = buy.monthly
    if api is not None:
        costs["api"] = api.monthly
    own = min(rent, buy.monthly) if buy else rent
    api_even = _api_break_even(own, api)
    return Ownership(
        task=task,
        currency=cur,
        gpu=o.gpu,
        count=o.count,
        machines=o.machines,
        hours_per_month=hours,
        rental=o,
        rent_monthly=round(rent, 2),
        buy=buy,
        api=api,
        full_load_output_tokens_month=round(full) if full else None,
        break_even_months=_months_to_recover(rent, buy),
        break_even_utilisation=_utilisation(rent, hours, buy),
        api_break_even_tokens_month=api_even,
        api_break_even_utilisation=round(api_even / full, 4) if api_even and full else None,
        cheapest=min(costs, key=lambda k: costs[k]),
        series=series(rent, buy, api, buy.depreciation_months if buy else 36),
        findings=notes,
    )


def _months_to_recover(rent: float, buy: BuyCost | None) -> float | None:
    """Months after which the machines bought have cost less than renting them (None: never)."""
    if buy is None or rent <= buy.running_monthly:
        return None
    return round(buy.price / (rent - buy.running_monthly), 1)


def _utilisation(rent: float, hours: float, buy: BuyCost | None) -> float | None:
    """Share of a month's hours above which buying beats renting at the rental's rate per hour."""
    if buy is None:
        return None
    rent_full = rent * HOURS_PER_MONTH / hours
    power_full = buy.electricity_monthly * HOURS_PER_MONTH / hours
    fixed = buy.depreciation_monthly + buy.hosting_monthly
    if rent_full <= power_full or fixed >= rent_full - power_full:
        return None  # renting is cheaper even at every hour of the month
    return round(fixed / (rent_full - power_full), 4)


def _api_break_even(own_monthly: float, api: ApiCost | None) -> float | None:
    """Tokens a month at which the API's bill equals owning (or renting) the hardware."""
    if api is None or not api.output_tokens_month:
        return None
    per_output_token = api.monthly / api.output_tokens_month  # blended with the input it brings
    return round(own_monthly / per_output_token) if per_output_token else None


def series(rent: float, buy: BuyCost | None, api: ApiCost | None, months: int) -> list[CumulativePoint]:
    """Cumulative cost month by month: buying starts at the purchase price, the rest at zero."""
    horizon = max(12, min(months, 60))
    return [
        CumulativePoint(
            month=m,
            rent=round(rent * m, 2),
            buy=round(buy.price + buy.running_monthly * m, 2) if buy else None,
            api=round(api.monthly * m, 2) if api else None,
        )
        for m in range(horizon + 1)
    ]
