"""Pick catalog offers for a job that is sized by throughput and memory, and price them.

Every non-LLM family asks the catalog the same question: which machine runs this job, how
many of it meet the peak rate, and what does one unit of work cost? A family answers the
part only it knows — for an offer and its card, does the job fit and how many units an
hour does one machine do (:class:`Fit`) — and :func:`rank` does the rest with the same
billing rules as the LLM path (``engine.cost``):

- machines for a rate:   ceil(per_hour / fit.units_per_hour);
- a job of ``units``:    hours = units / (units_per_hour × machines), billed by
  ``cost.job`` (a monthly-only offer bills whole months);
- cost per unit:         the machine's hourly price / its units an hour, at full use
  (a monthly price is spread over 720 hours, ``cost.HOURS_PER_MONTH``).

Offers rank on one scale in CNY (``cost.in_cny`` with the catalog's rates): by the job's
cost when the request has an end, else by what the machines for the peak cost a month,
else (no volume stated) by the cost of one unit. :func:`option` turns a ranked offer into
the :class:`~gpu_advisor.engine.jobs.plan.JobOption` every surface renders.

Usage (a family module)::

    def fit(offer: Offer, gpu: GpuSpec, memory_gib: float) -> Fit | None:
        need = pipeline_gib(...)
        if need > memory_gib:
            return None
        return Fit(units_per_hour=3600 / seconds(gpu) * offer.count, memory_gib=need, cards=offer.count)

    ranked = offers.rank(kb, fit, per_hour=peak)
    per_1000 = offers.unit_cost(ranked[0], 1000, "per_1000_images")
    pick = offers.option(ranked[0], metrics=[...], unit_costs=[per_1000])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpu_advisor.engine import cost
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.jobs.plan import JobMetric, JobOption
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Offer


@dataclass(frozen=True, slots=True)
class Fit:
    """What one machine of an offer achieves: units an hour, memory each card needs, cards used."""

    units_per_hour: float
    memory_gib: float
    cards: int = 1


Rate = Callable[[Offer, GpuSpec, float], Fit | None]
"""A family's sizing: (offer, its card, GiB one card holds) → a Fit, or None where it does not run."""


@dataclass(frozen=True, slots=True)
class Priced:
    """A ranked offer: ``machines`` of it, what they do and what they cost."""

    offer: Offer
    gpu: GpuSpec
    fit: Fit
    machines: int
    month: cost.Quote
    job: cost.Quote | None
    job_hours: float | None
    rank_cny: float

    @property
    def units_per_hour(self) -> float:
        """Units an hour all the machines do together."""
        return self.fit.units_per_hour * self.machines


def card_memory_gib(kb: Knowledge, offer: Offer) -> float:
    """Memory one card of the offer holds as CUDA reports it (a MIG slice: the slice's)."""
    if offer.slice_memory_gib is not None:
        return offer.slice_memory_gib
    return kb.gpus[offer.gpu].usable_gib


MAX_MACHINES = 100_000  # past this a demand is not a rental: the offer is left out, not priced
MIG_COMPUTE_SLICES = 7  # A100/H100/H200 split their SMs into seven compute slices (NVIDIA MIG user guide)


def compute_share(offer: Offer) -> float:
    """The share of its card's compute an offer rents: a MIG slice ``Ng.<mem>gb`` holds N of the
    seven compute slices, a whole card all of them. A family scales its per-card rate by it."""
    if offer.mig_profile is None:
        return 1.0
    head = offer.mig_profile.split("g", 1)[0]
    return min(1.0, int(head) / MIG_COMPUTE_SLICES) if head.isdigit() else 1.0 / MIG_COMPUTE_SLICES


def hourly(offer: Offer) -> float:
    """One machine's price an hour in the offer's currency; a monthly price spread over 720 hours."""
    if offer.owned:
        return 0.0
    if offer.price_hour is not None:
        return offer.price_hour
    return cost.monthly(offer) / cost.HOURS_PER_MONTH


def unit_cost(p: Priced, per: float, id_: str) -> JobMetric:
    """What ``per`` units cost on the offer at full use (``per_1000_images``: per = 1000)."""
    value = hourly(p.offer) / p.fit.units_per_hour * per
    return JobMetric(id=id_, value=round(value, 4), unit=p.offer.currency)


def rank(
    kb: Knowledge,
    rate: Rate,
    *,
    per_hour: float | None = None,
    units: float | None = None,
    gpu: str | None = None,
) -> list[Priced]:
    """Every offer the job runs on, cheapest first (see the module docstring for the scale).

    ``per_hour`` is the peak rate the service must meet; ``units`` a job with an end (a
    backlog, a training run); ``gpu`` keeps only that card's offers.
    """
    out: list[Priced] = []
    for offer in kb.catalog.offers:
        if gpu is not None and offer.gpu != gpu:
            continue
        card = kb.gpus[offer.gpu]
        fit = rate(offer, card, card_memory_gib(kb, offer))
        if fit is None or fit.units_per_hour <= 0:
            continue
        if (priced := _priced(kb, offer, card, fit, per_hour, units)) is not None:
            out.append(priced)
    return sorted(out, key=lambda p: (p.rank_cny, p.job_hours or 0.0, p.machines, p.offer.id))


def rank_for(
    kb: Knowledge,
    rate: Rate,
    *,
    gpu: str | None = None,
    per_hour: float | None = None,
    units: float | None = None,
) -> tuple[list[Priced], list[Finding]]:
    """:func:`rank` for a request that may name its card, and what to say about the name.

    A card the catalog rents is ranked alone, as :func:`rank` does ("SDXL on an L4" prices
    L4 offers, or none when the job does not fit there). A card the knowledge base knows but
    the catalog does not rent ("SDXL on a 4090" where no 4090 is for sale) is not a dead end:
    every offer that does the job is ranked and the offers of the card nearest the named one
    (:func:`nearest`) go first, with ``job_card_not_rented`` naming both cards. The family
    keeps the named card's own figures in its reasoning, so the user sees what they asked
    about and what they can order.
    """
    rented = gpu is None or gpu not in kb.gpus or any(o.gpu == gpu for o in kb.catalog.offers)
    if rented:
        return rank(kb, rate, per_hour=per_hour, units=units, gpu=gpu), []
    assert gpu is not None
    ranked = rank(kb, rate, per_hour=per_hour, units=units)
    if not ranked:
        return [], [finding("job_card_not_rented", "warn", gpu=kb.gpus[gpu].name, nearest=None)]
    near = nearest(kb.gpus[gpu], [p.gpu for p in ranked])
    first = [p for p in ranked if p.gpu.id == near.id]
    rest = [p for p in ranked if p.gpu.id != near.id]
    said = finding("job_card_not_rented", "warn", gpu=kb.gpus[gpu].name, nearest=near.name)
    return [*first, *rest], [said]


def nearest(named: GpuSpec, cards: Sequence[GpuSpec]) -> GpuSpec:
    """The card most like ``named``: the smallest sum of |log ratio| of FP16 tensor TFLOPS,
    memory and memory bandwidth, the three figures every family's speed and fit rest on.
    Ties go to the first of ``cards`` (the cheaper, in rank order)."""

    def distance(card: GpuSpec) -> float:
        pairs = (
            (card.dense_tflops.get("fp16", 0.0), named.dense_tflops.get("fp16", 0.0)),
            (card.usable_gib, named.usable_gib),
            (card.bandwidth_gbs, named.bandwidth_gbs),
        )
        return sum(abs(math.log(a / b)) if a > 0 and b > 0 else 10.0 for a, b in pairs)

    return min(cards, key=distance)


def _priced(
    kb: Knowledge, offer: Offer, card: GpuSpec, fit: Fit, per_hour: float | None, units: float | None
) -> Priced | None:
    """The offer priced for the demand; None where the demand needs more machines than any
    operator rents (``MAX_MACHINES``) or the job would never end."""
    needed = per_hour / fit.units_per_hour if per_hour else 1.0
    if not math.isfinite(needed) or needed > MAX_MACHINES:
        return None
    if units is not None and not math.isfinite(units / fit.units_per_hour):
        return None
    machines = max(1, math.ceil(needed - 1e-9))
    month = cost.always_on(offer, machines)
    fx = kb.catalog.fx_to_cny
    if units is not None:
        hours = units / (fit.units_per_hour * machines)
        job = cost.job(offer, hours, machines)
        return Priced(offer, card, fit, machines, month, job, hours, cost.in_cny(job, fx))
    if per_hour:
        return Priced(offer, card, fit, machines, month, None, None, cost.in_cny(month, fx))
    per_unit = cost.Quote(hourly(offer) / fit.units_per_hour, offer.currency, "unit", 1, "unit")
    return Priced(offer, card, fit, machines, month, None, None, cost.in_cny(per_unit, fx))


def option(p: Priced, metrics: Sequence[JobMetric] = (), unit_costs: Sequence[JobMetric] = ()) -> JobOption:
    """The ranked offer as the plan shape every surface renders."""
    return JobOption(
        offer_id=p.offer.id,
        gpu=p.offer.gpu,
        gpus=p.fit.cards,
        machines=p.machines,
        price_month=round(p.month.amount, 2),
        price_hour=round(hourly(p.offer) * p.machines, 4),
        currency=p.offer.currency,
        job_cost=round(p.job.amount, 2) if p.job else None,
        job_hours=round(p.job_hours, 3) if p.job_hours is not None else None,
        metrics=list(metrics),
        unit_costs=list(unit_costs),
        memory_gib=round(p.fit.memory_gib, 2),
        memory_limit_gib=round(p.offer.slice_memory_gib or p.gpu.usable_gib, 2),
    )
