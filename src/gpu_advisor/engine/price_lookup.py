"""What a card × count × period costs in the operator's catalog, with the arithmetic.

A rental desk answers "4 卡 A100 一周多少钱" from its price list in one line: which offer,
how many of it, the billing unit (a monthly-only offer bills a whole month for a week,
``engine.cost.job``), the yearly discount when the user pays by the year, and the total.
Where the catalog has no offer for the card, the answer says so and names the nearest
offers: the cheapest machines whose card holds at least as much memory.

Combining offers: ``count`` cards are ``count / n`` machines of an ``n``-card offer when
that divides; the cheapest such combination wins. Where nothing divides, the smallest
machine with more cards is quoted and flagged ``bigger``. Pure: ids and numbers only.

A year is twelve months at the yearly rate: 12 × monthly × (1 − the offer's yearly
discount) (``month_and_year`` gives both, "包月和包年各多少"). The catalog's CPU and memory
upgrades (``Catalog.addons``, priced per machine a month) are added per machine on request
(``with_addons``); two lookups ("训练一张、推理一张，两台每月一共多少") sum with ``total_of``.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from gpu_advisor.engine import cost
from gpu_advisor.engine.specs import Knowledge, Offer

NEAREST = 2


class PriceLine(BaseModel):
    """One priced rental: ``machines`` × ``offer`` (``count`` cards each) for ``hours``."""

    offer: str
    gpu: str
    count: int
    machines: int
    hours: float
    yearly: bool
    unit_price: float  # per machine, per billing unit (month or hour), after any yearly discount
    unit: str  # "month" | "hour"
    billed_units: float
    discount: float  # the yearly discount applied (0 when none)
    total: float
    monthly: float  # what the same machines cost a month, list price
    currency: str
    bigger: bool = False  # no exact count: the smallest bigger machine is quoted
    slice_memory_gib: float | None = None
    mig_profile: str | None = None


class PriceAnswer(BaseModel):
    """A price lookup's answer: the lines, their sum, or the nearest offers when none match."""

    gpu: str | None
    count: int
    hours: float
    yearly: bool
    lines: list[PriceLine]
    in_catalog: bool
    total: float | None = None
    currency: str | None = None
    yearly_discount: float = 0.0  # the offer's discount for paying by the year
    yearly_saving_month: float | None = None  # list monthly − yearly monthly, when a discount exists


def lookup(
    kb: Knowledge, gpu: str | None, count: int, hours: float, yearly: bool = False, one_machine: bool = False
) -> PriceAnswer:
    """The price of ``count`` × ``gpu`` for ``hours``; ``gpu=None`` asks for the cheapest slice.

    ``one_machine``: the cards were asked as one machine ("一台 8 卡", "an 8x node"), so a
    machine of exactly that many is priced when the catalog has one, even where smaller
    machines together cost less (they are not one node: no NVLink between them); with no
    count said (``count`` 1) and no one-card machine, the smallest machine of that card."""
    offers = _slices(kb) if gpu is None else [o for o in kb.catalog.offers if o.gpu == gpu and not o.is_slice]
    if one_machine and count == 1 and offers and all(o.count > 1 for o in offers):
        # "what does an H100 node cost per year": a machine with no card count said is the
        # catalog's own machine of that card (h100-sxm-8x), not one card on a bigger machine
        count = min(o.count for o in offers)
    whole = [o for o in offers if o.count == count] if one_machine else []
    lines = _best(whole or offers, count, hours, yearly)
    if lines is None:
        nearest = _nearest(kb, gpu, count, hours, yearly)
        return PriceAnswer(gpu=gpu, count=count, hours=hours, yearly=yearly, lines=nearest, in_catalog=False)
    discount = _offer(kb, lines.offer).yearly_discount
    saving = lines.monthly * discount if discount else None
    return PriceAnswer(
        gpu=gpu,
        count=count,
        hours=hours,
        yearly=yearly,
        lines=[lines],
        in_catalog=True,
        total=lines.total,
        currency=lines.currency,
        yearly_discount=discount,
        yearly_saving_month=saving,
    )


def total_of(answers: list[PriceAnswer]) -> tuple[float, str] | None:
    """The sum of several priced lines ("训练两张 A100 + 推理一张 3090"), when all share a currency."""
    priced = [a for a in answers if a.total is not None and a.currency is not None]
    if len(priced) != len(answers) or len({a.currency for a in priced}) != 1:
        return None
    return sum(a.total or 0.0 for a in priced), str(priced[0].currency)


def month_and_year(kb: Knowledge, gpu: str | None, count: int) -> tuple[PriceAnswer, PriceAnswer]:
    """A month at list price and a year at the yearly rate (12 × month × (1 − discount))."""
    return lookup(kb, gpu, count, cost.HOURS_PER_MONTH), lookup(
        kb, gpu, count, cost.HOURS_PER_YEAR, yearly=True
    )


class AddonLine(BaseModel):
    """One upgrade on every machine of a line: ``price_month`` each, ``machines`` of them."""

    addon: str
    price_month: float
    machines: int
    total: float
    currency: str


class WithAddons(BaseModel):
    """A machine's monthly price with the upgrades asked for, in the machine's currency."""

    base_monthly: float
    addons: list[AddonLine]
    monthly: float
    currency: str
    unknown: list[str] = Field(default_factory=list, description="add-on ids the catalog does not list")


def with_addons(kb: Knowledge, answer: PriceAnswer, addon_ids: list[str]) -> WithAddons | None:
    """``answer``'s first line a month plus each named add-on per machine (None: nothing priced)."""
    if not answer.lines:
        return None
    line = answer.lines[0]
    listed = {a.id: a for a in kb.catalog.addons}
    lines: list[AddonLine] = []
    for name in addon_ids:
        addon = listed.get(name)
        if addon is None:
            continue
        each = cost.to_currency(addon.price_month, addon.currency, line.currency, kb.catalog.fx_to_cny)
        if each is not None:
            lines.append(
                AddonLine(
                    addon=name,
                    price_month=each,
                    machines=line.machines,
                    total=each * line.machines,
                    currency=line.currency,
                )
            )
    return WithAddons(
        base_monthly=line.monthly,
        addons=lines,
        monthly=line.monthly + sum(a.total for a in lines),
        currency=line.currency,
        unknown=[n for n in addon_ids if n not in listed],
    )


def _offer(kb: Knowledge, offer_id: str) -> Offer:
    return next(o for o in kb.catalog.offers if o.id == offer_id)


def _slices(kb: Knowledge) -> list[Offer]:
    slices = [o for o in kb.catalog.offers if o.is_slice]
    return sorted(slices, key=cost.monthly)[:1]


def _best(offers: list[Offer], count: int, hours: float, yearly: bool) -> PriceLine | None:
    exact = [_line(o, count // o.count, hours, yearly) for o in offers if count % o.count == 0]
    if exact:
        return min(exact, key=lambda line: (line.total, line.machines))
    bigger = sorted((o for o in offers if o.count > count), key=lambda o: (o.count, cost.monthly(o)))
    if bigger:
        return _line(bigger[0], 1, hours, yearly).model_copy(update={"bigger": True})
    return None


def _line(offer: Offer, machines: int, hours: float, yearly: bool) -> PriceLine:
    discount = offer.yearly_discount if yearly else 0.0
    if yearly:
        months = max(1, cost.billed_months(hours))
        unit_price = cost.monthly(offer) * (1 - discount)
        billed, unit, total = float(months), "month", unit_price * months * machines
    else:
        quote = cost.job(offer, hours, machines)
        billed, unit, total = quote.billed_units, quote.unit, quote.amount
        unit_price = total / max(billed, 1e-9) / machines
    return PriceLine(
        offer=offer.id,
        gpu=offer.gpu,
        count=offer.count,
        machines=machines,
        hours=hours,
        yearly=yearly,
        unit_price=unit_price,
        unit=unit,
        billed_units=billed,
        discount=discount,
        total=total,
        monthly=cost.monthly(offer) * machines,
        currency=offer.currency,
        slice_memory_gib=offer.slice_memory_gib,
        mig_profile=offer.mig_profile,
    )


def _nearest(kb: Knowledge, gpu: str | None, count: int, hours: float, yearly: bool) -> list[PriceLine]:
    """The cheapest whole-card machines whose card holds at least the asked card's memory."""
    need = kb.gpus[gpu].memory_gb if gpu in kb.gpus else 0.0
    by_card: dict[str, PriceLine] = {}
    for offer in kb.catalog.offers:
        if offer.is_slice or offer.gpu == gpu or kb.gpus[offer.gpu].memory_gb < need:
            continue
        line = _best([offer], count, hours, yearly)
        if line is not None and (offer.gpu not in by_card or line.total < by_card[offer.gpu].total):
            by_card[offer.gpu] = line
    return sorted(by_card.values(), key=lambda line: line.total)[:NEAREST]


def yearly_discounts(kb: Knowledge) -> list[PriceLine]:
    """Every whole-card offer with a yearly discount, priced a month at the yearly rate."""
    offers = [o for o in kb.catalog.offers if o.yearly_discount and not o.is_slice]
    return [_line(o, 1, cost.HOURS_PER_MONTH, True) for o in sorted(offers, key=cost.monthly)]
