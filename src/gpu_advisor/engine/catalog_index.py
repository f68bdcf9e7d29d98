"""An operator's offers pruned of dominated ones and grouped by the machine they rent.

A rental site lists the same few dozen machines from many vendors: ten thousand
offers may hold thirty configurations. Two facts make big catalogs cheap to search:

1. **Dominance.** An offer is never worth recommending when another offer rents the
   same machine (same GPU, count, interconnect, slice, network, CPU, RAM, NVMe, in the
   same currency, billed the same way) for no more on every billing unit: monthly
   price, top of the printed range, hourly price, effective yearly rate
   (monthly × (1 − discount)) and minimum rental. Such an offer is dropped when the
   better one also comes first in the catalog (so ties resolve as an unpruned search
   would: the stable sort keeps catalog order) or is strictly cheaper on every price it
   is ranked by (month and hour), so it always ranks first. Offers in different
   currencies are never compared: exchange rates change, prices as written do not.
   The relation is a strict partial order, so every dropped offer has a kept one that
   beats it, and sorting by (prices, catalog position) puts that one first.
2. **Sharing.** Memory fit, speed and scaling depend on the machine, not the price,
   so a search evaluates one representative offer per ``engine_key`` and re-prices the
   result for its siblings (``candidates.repriced``).
3. **Never cheaper.** ``candidates.fan_out`` leaves out a re-priced candidate when an
   earlier one of the same machine and layout, in the same currency, costs no more by the
   month and for the job. Every quote (``engine.cost``) is non-decreasing in the month
   price, the hour price and the minimum rental, and scales with the machine count, so
   an offer that an earlier one of the same ``engine_key``, currency, ownership and billing
   shape matches or undercuts on all three is left out for every layout and duration.
   ``searched`` drops those offers once per catalog, so each search walks only the
   offers that could show (10,000 generated offers: 372 after pruning, fewer searched),
   and its result is the one the full list would give.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

EngineKey = tuple[str, int, str, str | None, float | None, float | None]
_NONE = math.inf


class Priced(Protocol):
    """What the index reads of an offer (``engine.specs.Offer``): its machine and its prices.

    Named by shape, not by class, so the index stands below the knowledge models: every
    ``Catalog`` builds its index, and the index never imports the module that defines them.
    """

    @property
    def gpu(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def interconnect(self) -> str: ...
    @property
    def mig_profile(self) -> str | None: ...
    @property
    def slice_memory_gib(self) -> float | None: ...
    @property
    def network_gbps(self) -> float | None: ...
    @property
    def price_month(self) -> float | None: ...
    @property
    def price_month_max(self) -> float | None: ...
    @property
    def price_hour(self) -> float | None: ...
    @property
    def currency(self) -> str: ...
    @property
    def yearly_discount(self) -> float: ...
    @property
    def min_rental_hours(self) -> float: ...
    @property
    def cpu_cores(self) -> int | None: ...
    @property
    def ram_gb(self) -> int | None: ...
    @property
    def nvme_tb(self) -> float | None: ...
    @property
    def owned(self) -> bool: ...


Offer = TypeVar("Offer", bound=Priced)  # the catalog's own offer class, kept through the index


def engine_key(o: Priced) -> EngineKey:
    """Everything a search reads from an offer besides its prices."""
    return (o.gpu, o.count, o.interconnect, o.mig_profile, o.slice_memory_gib, o.network_gbps)


def _machine_key(o: Priced) -> tuple[object, ...]:
    """Offers comparable for dominance: same machine, currency, ownership and billing shape."""
    shape = (o.price_month is None, o.price_hour is None, o.price_month_max is None)
    return (*engine_key(o), o.cpu_cores, o.ram_gb, o.nvme_tb, o.owned, o.currency, shape)


def _units(o: Priced) -> tuple[float, float, float, float, float]:
    """Prices compared for dominance, smaller is better; absent units are equal by shape."""
    month = o.price_month if o.price_month is not None else (o.price_hour or 0.0) * 720.0
    return (
        o.price_month if o.price_month is not None else _NONE,
        o.price_hour if o.price_hour is not None else _NONE,
        o.price_month_max if o.price_month_max is not None else _NONE,
        month * (1.0 - o.yearly_discount),
        o.min_rental_hours,
    )


def _beats(a: tuple[int, Priced], b: tuple[int, Priced]) -> bool:
    """``a`` is no dearer than ``b`` on any unit and would rank before it in every search."""
    ua, ub = _units(a[1]), _units(b[1])
    if any(x > y for x, y in zip(ua, ub, strict=True)):
        return False
    if a[0] < b[0]:
        return True
    ranked_by = [(x, y) for x, y in zip(ua[:2], ub[:2], strict=True) if y != _NONE]
    return bool(ranked_by) and all(x < y for x, y in ranked_by)


def _front(group: list[tuple[int, Offer]]) -> list[tuple[int, Offer]]:
    """The offers of one comparable group that nothing beats."""
    kept: list[tuple[int, Offer]] = []
    for item in sorted(group, key=lambda p: (*_units(p[1]), p[0])):
        if not any(_beats(k, item) for k in kept):
            kept.append(item)
    return kept


def _quote_units(o: Priced) -> tuple[float, float, float]:
    """What every quote of ``o`` is non-decreasing in (an absent price is equal by shape)."""
    return (o.price_month or 0.0, o.price_hour or 0.0, o.min_rental_hours)


def never_cheaper_dropped(offers: list[Offer]) -> list[Offer]:
    """``offers`` without those an earlier offer of the same machine, currency, ownership and
    billing shape matches or undercuts on month, hour and minimum rental (point 3 above)."""
    fronts: dict[tuple[object, ...], list[tuple[float, float, float]]] = {}
    kept: list[Offer] = []
    for o in offers:
        shape = (o.price_month is None, o.price_hour is None)
        front = fronts.setdefault((*engine_key(o), o.currency, o.owned, shape), [])
        units = _quote_units(o)
        if any(all(a <= b for a, b in zip(earlier, units, strict=True)) for earlier in front):
            continue
        front.append(units)
        kept.append(o)
    return kept


def prune(offers: list[Offer]) -> list[Offer]:
    """``offers`` without the dominated ones, in catalog order."""
    groups: dict[tuple[object, ...], list[tuple[int, Offer]]] = {}
    for i, o in enumerate(offers):
        groups.setdefault(_machine_key(o), []).append((i, o))
    kept = sorted(p for g in groups.values() for p in _front(g))
    return [o for _, o in kept]


@dataclass(frozen=True, slots=True)
class CatalogIndex(Generic[Offer]):
    """The pruned offers, their groups by machine and by (GPU, count), built once per catalog."""

    offers: list[Offer]
    shown: list[Offer] | None = None  # what a search can show (point 3); None: every offer
    by_engine_key: dict[EngineKey, list[Offer]] = field(default_factory=dict)
    by_gpu_count: dict[tuple[str, int], list[Offer]] = field(default_factory=dict)

    @property
    def searched(self) -> list[Offer]:
        """The offers a search walks, in catalog order (``offers`` when none were dropped)."""
        return self.offers if self.shown is None else self.shown

    @classmethod
    def build(cls, offers: list[Offer]) -> CatalogIndex[Offer]:
        kept = prune(offers)
        index = cls(kept, never_cheaper_dropped(kept))
        for o in kept:
            index.by_engine_key.setdefault(engine_key(o), []).append(o)
            index.by_gpu_count.setdefault((o.gpu, o.count), []).append(o)
        return index
