"""Cards priced as several machines say so: a machine is what the operator sells (issue 47).

"16 张 A100 多少钱" is cheapest as eight 2-card machines, but eight machines are not a
16-card server: the cards inside one machine talk over its NVLink/NVSwitch, the machines
only over the network the catalog lists (often none). A price line of more than one
machine is followed by what that means — ``spans``: N separate machines of ``count``
cards, what joins the cards inside and what joins the machines, and that one job cannot use
all the cards together (each machine can run its own) — and, when the catalog sells the
card in bigger machines, ``fewest``: the fewest of its biggest machines that hold the cards,
priced by ``engine.price_lookup`` as whole machines, with the network between them that one
job across machines needs (``MULTI_NODE_NIC_GBPS``, the sheet reader's multi-node bar).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from gpu_advisor import locales
from gpu_advisor.engine.price_lookup import PriceLine, lookup
from gpu_advisor.engine.rules.sheet_pitfalls import MULTI_NODE_NIC_GBPS
from gpu_advisor.engine.specs import Knowledge, Offer

Priced = Callable[[PriceLine], str]  # a price line in the reply's words ("2 张 A100 × 8 台，…")


def span_lines(kb: Knowledge, lang: str, line: PriceLine, gpu_name: str, priced: Priced) -> list[str]:
    """What several machines in ``line`` mean for one job, and the catalog's biggest machines."""
    if line.machines <= 1 or line.mig_profile:
        return []
    offer = next((o for o in kb.catalog.offers if o.id == line.offer), None)
    if offer is None:
        return []
    gpus = line.count * line.machines
    out = [
        locales.t(
            lang,
            "plans.machines.spans",
            gpus=gpus,
            gpu=gpu_name,
            machines=line.machines,
            count=line.count,
            inside=_inside(lang, offer),
            between=_between(lang, offer),
            need=MULTI_NODE_NIC_GBPS,
        )
    ]
    biggest = _biggest(kb, line.gpu)
    if biggest is None or biggest.count <= line.count:
        out.append(locales.t(lang, "plans.machines.no_bigger", gpu=gpu_name, count=line.count))
        return out
    machines = math.ceil(gpus / biggest.count)
    one = lookup(kb, line.gpu, biggest.count, line.hours, line.yearly, one_machine=True)
    if not one.in_catalog or not one.lines or one.lines[0].offer != biggest.id:
        return out
    whole = one.lines[0]
    several = whole.model_copy(
        update={"machines": machines, "total": whole.total * machines, "monthly": whole.monthly * machines}
    )
    key = "plans.machines.fewest_one" if machines == 1 else "plans.machines.fewest"
    out.append(locales.t(lang, key, gpus=gpus, line=priced(several), between=_between(lang, biggest)))
    return out


def _biggest(kb: Knowledge, gpu: str) -> Offer | None:
    """The catalog's machine with the most of ``gpu`` (whole cards, not slices), cheapest first."""
    offers = [o for o in kb.catalog.offers if o.gpu == gpu and not o.is_slice]
    return max(offers, key=lambda o: (o.count, -(o.price_month or 0.0))) if offers else None


def _inside(lang: str, offer: Offer) -> str:
    if offer.count <= 1 or offer.interconnect == "none":
        return ""
    return locales.t(lang, "plans.machines.inside", fabric=locales.t(lang, f"label.{offer.interconnect}"))


def _between(lang: str, offer: Offer) -> str:
    if not offer.network_gbps:
        return locales.t(lang, "plans.machines.no_network")
    return locales.t(lang, "plans.machines.network", gbps=offer.network_gbps)
