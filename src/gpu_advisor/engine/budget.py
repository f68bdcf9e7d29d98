"""A budget against the pick: an amount in any currency, or a relative cut ("预算再压一压").

An amount said in NT$ or US$ is compared with the pick in the pick's currency through the
catalog's dated ``fx_to_cny`` (``engine.cost.to_currency``): "$300 a month" is ¥2,156.52 at
the catalog's 7.1884, so a ¥900 pick fits and a ¥2,800 one is over by US$89.52 (¥643.48). A currency the
catalog has no rate for is said as such (``fits`` None), never guessed.

A relative cut is not an amount: it asks what the next cheaper option costs and what it
gives up against the pick (``next_cheaper``): fewer or smaller cards, less memory head-room,
fewer tokens a second, a longer job — each as the pick's number and the cheaper one's.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.cost import monthly, to_currency
from gpu_advisor.engine.results import Money, Option
from gpu_advisor.engine.specs import Catalog, Knowledge


class BudgetCheck(BaseModel):
    """``budget`` against ``pick``; amounts converted through the catalog's rates of ``fx_date``."""

    model_config = ConfigDict(frozen=True)

    budget: Money
    pick: Money
    budget_in_pick_currency: Money | None = None
    pick_in_budget_currency: Money | None = None
    fits: bool | None = Field(None, description="None when a currency has no rate in the catalog")
    over_by: Money | None = Field(None, description="in the budget's currency, when over")
    fx_date: dt.date | None = None


def check(budget: Money, pick: Money, catalog: Catalog) -> BudgetCheck:
    """Whether ``pick`` (a month's price) fits ``budget`` (a month's money), in both currencies."""
    rates = catalog.fx_to_cny
    in_pick = to_currency(budget.amount, budget.currency, pick.currency, rates)
    in_budget = to_currency(pick.amount, pick.currency, budget.currency, rates)
    if in_pick is None or in_budget is None:
        return BudgetCheck(budget=budget, pick=pick, fx_date=catalog.fx_date)
    fits = pick.amount <= in_pick * 1.000001  # a rounding cent is not "over"
    return BudgetCheck(
        budget=budget,
        pick=pick,
        budget_in_pick_currency=Money(amount=round(in_pick, 2), currency=pick.currency),
        pick_in_budget_currency=Money(amount=round(in_budget, 2), currency=budget.currency),
        fits=fits,
        over_by=None if fits else Money(amount=round(in_budget - budget.amount, 2), currency=budget.currency),
        fx_date=catalog.fx_date if budget.currency != pick.currency else None,
    )


class Tradeoff(BaseModel):
    """The next cheaper option and what it gives up against the pick (pick's value, cheaper's value)."""

    model_config = ConfigDict(frozen=True)

    cheaper: Option
    saves_monthly: Money
    cards: tuple[int, int]
    capacity_gib: tuple[float, float]
    headroom_gib: tuple[float, float]
    output_tokens_per_s: tuple[float, float] | None = None
    training_hours: tuple[float, float] | None = None


def next_cheaper(pick: Option, options: list[Option], catalog: Catalog) -> Tradeoff | None:
    """The dearest option still cheaper a month than ``pick`` (None: the pick is the cheapest)."""
    rates = catalog.fx_to_cny
    mine = _cny(pick, rates)
    cheaper = [o for o in options if o.offer != pick.offer and _cny(o, rates) < mine * 0.995]
    if not cheaper:
        return None
    best = max(cheaper, key=lambda o: _cny(o, rates))
    saved = to_currency(mine - _cny(best, rates), "CNY", pick.monthly_cost.currency, rates) or 0.0
    return Tradeoff(
        cheaper=best,
        saves_monthly=Money(amount=round(saved, 2), currency=pick.monthly_cost.currency),
        cards=(pick.count * pick.machines, best.count * best.machines),
        capacity_gib=(pick.capacity_gib, best.capacity_gib),
        headroom_gib=(pick.headroom_gib, best.headroom_gib),
        output_tokens_per_s=_pair(pick.output_tokens_per_s, best.output_tokens_per_s),
        training_hours=_pair(pick.training_hours, best.training_hours),
    )


def _cny(o: Option, rates: dict[str, float]) -> float:
    amount = to_currency(o.monthly_cost.amount, o.monthly_cost.currency, "CNY", rates)
    return float("inf") if amount is None else amount


def _pair(a: float | None, b: float | None) -> tuple[float, float] | None:
    return (a, b) if a is not None and b is not None else None


class CatalogMachine(BaseModel):
    """One catalog machine priced in the budget's currency (``month``) and in its own (``own``)."""

    model_config = ConfigDict(frozen=True)

    offer: str
    gpu: str
    count: int
    memory_gib: float
    month: Money
    own: Money


class BudgetCut(BaseModel):
    """A stated month's budget cut by a share: ``base`` × ``kept`` = ``budget``, and the catalog within it.

    ``within`` holds the machines whose month fits the new budget, most GPU memory first
    (the most that money rents when no job is known); prices in other currencies are
    converted at the catalog's ``fx_date``."""

    model_config = ConfigDict(frozen=True)

    base: Money
    kept: float
    budget: Money
    within: list[CatalogMachine]
    fx_date: dt.date | None = None


def cut(base: Money, kept: float, kb: Knowledge, top: int = 3) -> BudgetCut:
    """``base`` cut to ``kept`` of itself (a cut of 25 % keeps 0.75) and the catalog's
    biggest machines within it, one per card."""
    if not 0 < kept < 1 or base.amount <= 0:
        raise ValueError("a cut keeps between 0 and 100 % of a positive budget")
    budget = Money(amount=round(base.amount * kept, 2), currency=base.currency)
    within, fx_date = _within(budget, kb, top)
    return BudgetCut(base=base, kept=kept, budget=budget, within=within, fx_date=fx_date)


def afford(budget: Money, kb: Knowledge, top: int = 3) -> BudgetCut:
    """What a month's ``budget`` rents with no job known ("预算每月 3000 能租什么卡", "my budget
    is $300 a month"): the catalog's biggest machines within it, one per card, as for a cut
    that keeps all of it (``kept`` 1)."""
    if budget.amount <= 0:
        raise ValueError("a budget is a positive amount")
    within, fx_date = _within(budget, kb, top)
    return BudgetCut(base=budget, kept=1.0, budget=budget, within=within, fx_date=fx_date)


def _within(budget: Money, kb: Knowledge, top: int) -> tuple[list[CatalogMachine], dt.date | None]:
    """The catalog's biggest machines whose month fits ``budget``, one per card, and the fx
    date when a price was converted."""
    rates = kb.catalog.fx_to_cny
    fits: list[CatalogMachine] = []
    converted = False
    for offer in kb.catalog.offers:
        if offer.owned or offer.mig_profile or offer.gpu not in kb.gpus:
            continue
        own = monthly(offer)
        month = to_currency(own, offer.currency, budget.currency, rates)
        if month is None or month > budget.amount * 1.000001:
            continue
        converted = converted or offer.currency != budget.currency
        fits.append(
            CatalogMachine(
                offer=offer.id,
                gpu=offer.gpu,
                count=offer.count,
                memory_gib=kb.gpus[offer.gpu].usable_gib * offer.count,
                month=Money(amount=round(month, 2), currency=budget.currency),
                own=Money(amount=own, currency=offer.currency),
            )
        )
    fits.sort(key=lambda m: (-m.memory_gib, m.month.amount))
    best: dict[str, CatalogMachine] = {}
    for m in fits:  # each card's biggest machine within the money, so the list shows a choice
        best.setdefault(m.gpu, m)
    return list(best.values())[:top], kb.catalog.fx_date if converted else None


CutWay = Literal["fits", "cheaper", "yearly", "none"]


class PlanCut(BaseModel):
    """A cut asked of a plan already given ("预算再压一压", "再砍 20%", "cut the budget by a third").

    ``budget`` is the new month's money the conversation keeps (None: a bare "再压一压" with
    nothing cheaper to name, so no amount can be set). ``way`` says what answers it:
    ``fits`` the pick already costs no more; ``cheaper`` the next cheaper option (``tradeoff``:
    what it gives up); ``yearly`` the same pick paid a year ahead (``yearly``, its month);
    ``none`` nothing the plan holds is that cheap (the pick is the cheapest it runs on)."""

    model_config = ConfigDict(frozen=True)

    base: Money | None = Field(None, description="what was cut: the stated budget, else the pick's month")
    kept: float | None = Field(None, description="the share kept; None for a cut with no amount")
    budget: Money | None
    way: CutWay
    pick: Money
    tradeoff: Tradeoff | None = None
    yearly: Money | None = Field(None, description="the pick's month paid yearly, in the pick's currency")
    budget_in_pick: Money | None = Field(None, description="the new budget in the pick's currency")
    fx_date: dt.date | None = None


def cut_plan(
    pick: Option, options: list[Option], catalog: Catalog, budget: Money | None, kept: float | None
) -> PlanCut:
    """The new budget after a cut of ``budget`` (else of the pick's month) to ``kept`` of itself,
    and what meets it; ``kept`` None is a cut with no amount: the next cheaper thing, priced.

    Cheaper means cheaper a month: another option of the plan first (``next_cheaper``), else
    the pick paid yearly (the offer's ``yearly_discount``), else nothing."""
    rates = catalog.fx_to_cny
    month = Money(amount=pick.monthly_cost.amount, currency=pick.monthly_cost.currency)
    yearly = pick.monthly_cost.yearly_monthly
    year = Money(amount=yearly, currency=month.currency) if yearly and yearly < month.amount else None
    if kept is None:
        return _cheaper_step(pick, options, catalog, budget, month, year)
    base = budget or month
    new = Money(amount=round(base.amount * kept, 2), currency=base.currency)
    limit = to_currency(new.amount, new.currency, month.currency, rates)
    fx = catalog.fx_date if new.currency != month.currency else None
    converted = Money(amount=round(limit, 2), currency=month.currency) if limit is not None else None
    common = {
        "base": base,
        "kept": kept,
        "budget": new,
        "pick": month,
        "yearly": year,
        "fx_date": fx,
        "budget_in_pick": converted,
    }
    if limit is None or month.amount <= limit * 1.000001:
        return PlanCut(way="fits", **common)
    within = [o for o in options if _in(o, month.currency, rates) <= limit * 1.000001]
    step = next_cheaper(pick, within, catalog)
    if step is not None:
        return PlanCut(way="cheaper", tradeoff=step, **common)
    if year is not None and year.amount <= limit * 1.000001:
        return PlanCut(way="yearly", **common)
    return PlanCut(way="none", **common)


def _cheaper_step(
    pick: Option,
    options: list[Option],
    catalog: Catalog,
    budget: Money | None,
    month: Money,
    year: Money | None,
) -> PlanCut:
    """A cut with no amount: the next cheaper option's month (or the yearly month) becomes the
    budget. Cheaper is below the pick and below the budget already held, so a second "再压一压"
    goes a step further or says nothing is left, never the same step again."""
    rates = catalog.fx_to_cny
    held = to_currency(budget.amount, budget.currency, month.currency, rates) if budget is not None else None
    limit = min(month.amount, held) if held is not None else month.amount
    below = [o for o in options if _in(o, month.currency, rates) < limit * 0.995]
    step = next_cheaper(pick, below, catalog)
    target = (
        Money(amount=step.cheaper.monthly_cost.amount, currency=step.cheaper.monthly_cost.currency)
        if step is not None
        else year
        if year is not None and year.amount < limit * 0.995
        else None
    )
    if target is None:
        return PlanCut(budget=None, way="none", pick=month, base=budget, yearly=year)
    said = budget.currency if budget is not None else target.currency
    amount = to_currency(target.amount, target.currency, said, rates)
    new = Money(amount=round(amount, 2), currency=said) if amount is not None else target
    return PlanCut(
        base=budget,
        budget=new,
        way="cheaper" if step is not None else "yearly",
        pick=month,
        tradeoff=step,
        yearly=year,
        fx_date=catalog.fx_date if new.currency != target.currency else None,
    )


def _in(o: Option, currency: str, rates: dict[str, float]) -> float:
    amount = to_currency(o.monthly_cost.amount, o.monthly_cost.currency, currency, rates)
    return float("inf") if amount is None else amount
