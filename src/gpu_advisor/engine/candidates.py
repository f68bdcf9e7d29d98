"""One evaluated way of running the workload on one catalog offer.

The searches in ``serving_search`` and ``training_search`` produce many of these on
plain floats (the hot path); only the few that reach the plan become pydantic models.
Offers that rent the same machine share one evaluation: ``repriced`` gives a sibling
offer the same candidate at its own prices (``engine.catalog_index``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter

from gpu_advisor.engine import cost
from gpu_advisor.engine.catalog_index import EngineKey, engine_key
from gpu_advisor.engine.cost import Quote
from gpu_advisor.engine.memory import Memory
from gpu_advisor.engine.specs import GpuSpec, Offer


@dataclass(slots=True)
class Candidate:
    task: str
    offer: Offer
    gpu: GpuSpec
    gpus_per_machine: int
    machines: int
    memory: Memory
    capacity_bytes: float
    weight_dtype: str
    monthly: Quote
    job: Quote | None
    runtime: str | None = None
    method: str | None = None
    tensor_parallel: int = 1
    replicas: int = 1
    batch: int = 1
    zero_stage: int | None = None
    gradient_checkpointing: bool | None = None
    decode_tokens_per_s: float | None = None
    aggregate_tokens_per_s: float | None = None
    ttft_ms: float | None = None
    requests_per_s: float | None = None
    bound: str | None = None
    training_hours: float | None = None
    scaling_efficiency: float | None = None
    meets_latency: bool = True
    extras: dict[str, float] = field(default_factory=dict)
    # figures left out of ``extras`` until an option shows them (``settled``): a serving
    # candidate's break-point QPS and latency medians, which only the shown few need
    deferred: Callable[[], dict[str, float]] | None = field(default=None, repr=False, compare=False)

    @property
    def cost(self) -> Quote:
        """The figure the user pays for what they asked: the job if it has an end, else a month."""
        return self.job or self.monthly

    @property
    def total_gpus(self) -> int:
        return self.gpus_per_machine * self.machines

    @property
    def headroom_bytes(self) -> float:
        return self.capacity_bytes - self.memory.total


def settled(c: Candidate) -> Candidate:
    """``c`` with its ``deferred`` figures worked out into ``extras``: what an option shows.

    Ranking, pruning and every check read the fields sizing settled; the break-point
    QPS is searched to its end, and the latency medians worked out, only for the few
    candidates a plan turns into options (``engine.recommend``): the same floats they
    would have been had they been worked out first.
    """
    if c.deferred is None:
        return c
    return replace(c, extras=c.extras | c.deferred(), deferred=None)


def repriced(c: Candidate, offer: Offer, held_hours: float | None) -> Candidate:
    """``c`` on ``offer``, a machine identical to ``c.offer``'s, priced for ``held_hours`` (or 24×7)."""
    return _on(c, offer, *_quotes(offer, c.machines, held_hours))


def _quotes(offer: Offer, machines: int, held_hours: float | None) -> tuple[Quote, Quote | None]:
    monthly = cost.always_on(offer, machines)
    return monthly, cost.job(offer, held_hours, machines) if held_hours else None


_FIELDS = tuple(f.name for f in fields(Candidate))
_ALL = attrgetter(*_FIELDS)
_OFFER, _MONTHLY, _JOB = (_FIELDS.index(name) for name in ("offer", "monthly", "job"))


def _on(c: Candidate, offer: Offer, monthly: Quote, job: Quote | None) -> Candidate:
    """``c`` on ``offer`` at these quotes: ``dataclasses.replace`` by position, ~8x quicker.

    A plan at 10,000 offers re-prices ~1,000 candidates; ``replace`` looks up the fields
    and builds keyword arguments for each, which was a tenth of such a plan's time.
    """
    assert engine_key(offer) == engine_key(c.offer), "repricing needs the same machine"
    values = list(_ALL(c))
    values[_OFFER], values[_MONTHLY], values[_JOB] = offer, monthly, job
    return Candidate(*values)


def fan_out(
    offers: list[Offer],
    evaluate: Callable[[Offer], list[Candidate]],
    held: Callable[[Candidate], float | None],
) -> list[Candidate]:
    """``evaluate`` each distinct machine among ``offers`` once; re-price it for the others.

    A re-priced candidate is left out when an earlier one of the same machine and
    layout, in the same currency, costs no more by the month nor for the job: it ranks
    before it under every rule that picks a candidate (cheapest, within budget, first
    cheaper, lowest monthly), so no plan could show it. The result, in catalog order,
    is otherwise what evaluating every offer would give.
    """
    done: dict[EngineKey, list[Candidate]] = {}
    fronts: dict[tuple[EngineKey, int, str], list[tuple[float, float]]] = {}
    out: list[Candidate] = []
    for offer in offers:
        key = engine_key(offer)
        first = key not in done
        if first:
            done[key] = evaluate(offer)
        priced: dict[tuple[int, float | None], tuple[Quote, Quote | None]] = {}
        for i, c in enumerate(done[key]):
            h = held(c)
            if first:
                monthly, job = c.monthly, c.job
            else:
                monthly, job = priced.get((c.machines, h)) or priced.setdefault(
                    (c.machines, h), _quotes(offer, c.machines, h)
                )
            point = (monthly.amount, job.amount if job else 0.0)
            front = fronts.setdefault((key, i, offer.currency), [])
            if any(m <= point[0] and j <= point[1] for m, j in front):
                continue
            front.append(point)
            out.append(c if first else _on(c, offer, monthly, job))
    return out
