"""The searches a plan runs over the catalog, each distinct one run once.

A plan searches the pruned catalog (``Catalog.index``) for its pick, again for the
LoRA and QLoRA alternatives and for every what-if. Each search evaluates one offer per
distinct machine and re-prices the result for the others (``candidates.fan_out``);
``Searches`` remembers every search by its inputs, so a what-if that asks what was
already asked (QLoRA when the plan is QLoRA, AWQ when the plan already serves AWQ)
gets the same candidates back instead of a fresh search.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from gpu_advisor.engine import cost, serving_search, training_search
from gpu_advisor.engine.candidates import Candidate, fan_out, repriced
from gpu_advisor.engine.catalog_index import EngineKey, engine_key
from gpu_advisor.engine.defaults import ServeSetup
from gpu_advisor.engine.memory import TrainSetup
from gpu_advisor.engine.specs import GpuSpec, Knowledge, ModelArch, Offer
from gpu_advisor.engine.workload import Workload

DOMESTIC_VENDORS = frozenset({"huawei", "hygon", "cambricon", "moore_threads", "biren", "iluvatar", "metax"})
"""Vendors headquartered in mainland China: what "只用国产卡" (domestic cards only) keeps."""

TrainKey = tuple[TrainSetup, int | None, float | None, float | None, tuple[bool, bool]]


def _machines(offers: list[Offer]) -> list[Offer]:
    """The first offer of each distinct machine, in catalog order."""
    seen: dict[EngineKey, Offer] = {}
    for o in offers:
        seen.setdefault(engine_key(o), o)
    return list(seen.values())


def allowed_gpus(w: Workload, kb: Knowledge) -> frozenset[str] | None:
    """The card ids the user leaves in play, or None when they ruled nothing out.

    "不要 3090" names cards (``exclude_gpus``), "no consumer cards" a market segment
    (``exclude_segments``), "只用英伟达" one vendor (``only_vendor``) and "只用国产卡"
    the Chinese vendors (``domestic_only``). A card the user owns and named is
    evaluated apart (``recommend._requested``) and is never filtered here.
    """
    if not (w.exclude_gpus or w.exclude_segments or w.only_vendor or w.domestic_only):
        return None
    return frozenset(g.id for g in kb.gpus.values() if _kept(g, w))


def _kept(g: GpuSpec, w: Workload) -> bool:
    return not (
        g.id in (w.exclude_gpus or ())
        or g.segment in (w.exclude_segments or ())
        or (w.only_vendor is not None and g.vendor != w.only_vendor)
        or (w.domestic_only and g.vendor not in DOMESTIC_VENDORS)
    )


@dataclass(slots=True)
class Searches:
    """Memoised searches for one plan: one model, one knowledge base, the cards allowed."""

    arch: ModelArch
    kb: Knowledge
    allowed: frozenset[str] | None = None
    _train: dict[TrainKey, list[Candidate]] = field(default_factory=dict)
    _layouts: dict[ServeSetup, list[serving_search.Layout]] = field(default_factory=dict)
    _serve: dict[tuple[ServeSetup, float | None], list[Candidate]] = field(default_factory=dict)
    _by_duration: dict[float | None, list[Offer]] = field(default_factory=dict)
    _sizes: dict[tuple[ServeSetup, ServeSetup, float | None], dict[EngineKey, list[Candidate]]] = field(
        default_factory=dict
    )

    @property
    def offers(self) -> list[Offer]:
        offers = self.kb.catalog.index.searched  # the offers a search can show, in catalog order
        return offers if self.allowed is None else [o for o in offers if o.gpu in self.allowed]

    def train(
        self,
        base: TrainSetup,
        requested: int | None,
        tokens: float | None,
        duration: float | None,
        fixed: tuple[bool, bool],
    ) -> list[Candidate]:
        key = (base, requested, tokens, duration, fixed)
        if key not in self._train:
            args = (self.arch, base, self.kb, self.offers, requested, tokens, duration, fixed)
            self._train[key] = training_search.search(*args)
        return self._train[key]

    def layouts(self, s: ServeSetup) -> list[serving_search.Layout]:
        """Layouts of one offer per machine for ``s``'s memory settings."""
        if s not in self._layouts:
            self._layouts[s] = serving_search.layouts(self.arch, s, self.kb, _machines(self.offers))
        return self._layouts[s]

    def serve(self, s: ServeSetup, duration: float | None) -> list[Candidate]:
        """Every feasible serving candidate over the pruned catalog, in catalog order."""
        if (s, duration) not in self._serve:
            sized = self._sized(s, s, duration)
            found = fan_out(
                self._priced(duration), lambda o: sized.get(engine_key(o), []), lambda _: duration
            )
            self._serve[(s, duration)] = found
        return self._serve[(s, duration)]

    def serve_cheapest(
        self, s: ServeSetup, duration: float | None, memory_of: ServeSetup
    ) -> Candidate | None:
        """The cheapest candidate meeting the latency targets over every pruned offer.

        ``memory_of`` names the setup whose layouts to size: the plan's own when only the
        traffic changes (concurrency or QPS), ``s`` otherwise. Branch and bound: a
        layout's floor is its fewest machines at its cheapest sibling's quote, first by
        memory alone (``fewest_machines_by_memory``, no step-time model built), then, once
        that floor comes up, by capacity too (``serving_search.fewest_machines``, no queue
        maths); layouts are sized for traffic in the order of their floors until the next
        floor is above the best price found. Ties go to the earlier offer, then the
        earlier layout, as a full walk would.
        """
        fx = self.kb.catalog.fx_to_cny
        siblings = self._siblings(duration)
        found = [lay for lay in self.layouts(memory_of) if engine_key(lay.offer) in siblings]
        order = {key: i for i, key in enumerate(siblings)}
        cheapest: dict[tuple[EngineKey, int], tuple[float, int]] = {}  # a machine's layouts share it

        def price(lay: serving_search.Layout, machines: int) -> tuple[float, int]:
            key = (engine_key(lay.offer), machines)
            if key not in cheapest:
                offers = siblings[key[0]]
                cheapest[key] = min((cost.in_cny(_quote(o, duration, machines), fx), i) for i, o in offers)
            return cheapest[key]

        floors = [
            (
                price(lay, serving_search.fewest_machines_by_memory(lay, s))[0],
                order[engine_key(lay.offer)],
                n,
                False,
            )
            for n, lay in enumerate(found)
        ]
        heapq.heapify(floors)
        best: tuple[float, int, int] | None = None
        picked: tuple[Candidate, Offer] | None = None
        while floors:
            floor, rank, n, refined = heapq.heappop(floors)
            if best is not None and floor > best[0]:
                break
            if not refined:  # the memory floor passed: raise it to the capacity floor, never lower
                raised = price(found[n], serving_search.fewest_machines(found[n], s))[0]
                heapq.heappush(floors, (raised, rank, n, True))
                continue
            c = serving_search.size_for_traffic(found[n], s, duration)
            if c is None or not c.meets_latency:
                continue
            amount, at = price(found[n], c.machines)
            if best is None or (amount, at, n) < best:
                best, picked = (amount, at, n), (c, self._priced(duration)[at])
        return repriced(picked[0], picked[1], duration) if picked else None

    def _siblings(self, duration: float | None) -> dict[EngineKey, list[tuple[int, Offer]]]:
        """The priced offers of each machine with their place in ``_priced``, machines in catalog order."""
        out: dict[EngineKey, list[tuple[int, Offer]]] = {}
        for i, o in enumerate(self._priced(duration)):
            out.setdefault(engine_key(o), []).append((i, o))
        return out

    def _priced(self, duration: float | None) -> list[Offer]:
        """The offers ``fan_out`` could keep when every candidate is held ``duration`` (or 24×7).

        It keeps a re-priced candidate only when no earlier one of the same machine, layout
        and currency costs no more by the month and for the job; both quotes scale with the
        layout's machine count (rounding keeps their order), so an offer whose one-machine
        quotes an earlier sibling matches or undercuts is left out for every layout. Dropping
        it here gives ``fan_out`` the same answer from fewer offers.
        """
        if duration not in self._by_duration:
            fronts: dict[tuple[EngineKey, str], list[tuple[float, float]]] = {}
            kept: list[Offer] = []
            for o in self.offers:
                point = (cost.always_on(o).amount, cost.job(o, duration).amount if duration else 0.0)
                front = fronts.setdefault((engine_key(o), o.currency), [])
                if not any(m <= point[0] and j <= point[1] for m, j in front):
                    front.append(point)
                    kept.append(o)
            self._by_duration[duration] = kept
        return self._by_duration[duration]

    def _sized(
        self, s: ServeSetup, memory_of: ServeSetup, duration: float | None
    ) -> dict[EngineKey, list[Candidate]]:
        """Candidates of each machine's first offer, sized for ``s``'s traffic (once per plan)."""
        key = (s, memory_of, duration)
        if key not in self._sizes:
            out: dict[EngineKey, list[Candidate]] = {}
            for c in serving_search.size_all(self.layouts(memory_of), s, duration):
                out.setdefault(engine_key(c.offer), []).append(c)
            self._sizes[key] = out
        return self._sizes[key]


def _quote(offer: Offer, duration: float | None, machines: int) -> cost.Quote:
    return cost.job(offer, duration, machines) if duration else cost.always_on(offer, machines)


def _undercuts(
    cheapest: dict[tuple[EngineKey, str], float], where: tuple[EngineKey, str], one: cost.Quote
) -> bool:
    """Whether ``one`` (a machine's quote) is below every earlier sibling's in the same currency.

    Quotes scale with the machine count and rounding keeps their order (``fl(a·n) ≤ fl(b·n)``
    when ``a ≤ b``), so an offer that does not undercut can never be strictly cheaper for
    any layout: skipping it leaves the pick exactly as the full walk would.
    """
    if where in cheapest and one.amount >= cheapest[where]:
        return False
    cheapest[where] = one.amount
    return True
