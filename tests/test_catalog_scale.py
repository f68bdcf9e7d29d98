"""Big operator catalogs: dominated offers are pruned at load and plans do not change for it."""

from __future__ import annotations

from typing import Any

import pytest

from bench.catalog_bench import generated_offers
from gpu_advisor.engine import estimate as estimate_module
from gpu_advisor.engine import training_search
from gpu_advisor.engine.architecture import resolve
from gpu_advisor.engine.candidates import repriced
from gpu_advisor.engine.catalog_index import CatalogIndex, prune
from gpu_advisor.engine.defaults import train_setup
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Catalog, Knowledge, Offer
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge.catalogs import parse_upload, with_catalog


def offer(id_: str, **kw: Any) -> Offer:
    fields: dict[str, Any] = {"gpu": "a100-40g-sxm", "count": 1, "interconnect": "none", "source": "test"}
    return Offer.model_validate({"id": id_, **fields, **kw})


def kept_ids(*offers: Offer) -> list[str]:
    return [o.id for o in prune(list(offers))]


def test_pruning_keeps_exactly_the_offers_nothing_beats() -> None:
    offers = [
        offer("dear", price_month=3000),
        offer("cheap", price_month=2500),
        offer("cheap-yearly", price_month=2600, yearly_discount=0.2),  # dearer monthly, cheaper yearly
        offer("hourly", price_hour=4.0, min_rental_hours=1),  # billed another way
        offer("hourly-dear", price_hour=4.5, min_rental_hours=1),
        offer("two-cards", count=2, interconnect="nvlink", price_month=5600),  # another machine
        offer("more-ram", price_month=2900, ram_gb=256),  # another machine too
    ]
    assert kept_ids(*offers) == ["cheap", "cheap-yearly", "hourly", "two-cards", "more-ram"]


def test_offers_in_different_currencies_are_never_compared() -> None:
    assert kept_ids(offer("cny", price_month=2800), offer("usd", price_month=100, currency="USD")) == [
        "cny",
        "usd",
    ]


def test_of_two_equally_priced_offers_the_first_in_the_catalog_stays() -> None:
    first = offer("first", price_month=2800, order_url="https://a.example/first")
    kept = prune([first, offer("second", price_month=2800)])
    assert kept == [first] and kept[0].order_url == "https://a.example/first"


def test_a_later_offer_drops_an_earlier_one_only_when_strictly_cheaper_on_every_ranked_price() -> None:
    earlier = offer("earlier", price_month=2800, price_hour=5.0)
    assert kept_ids(earlier, offer("later-tie", price_month=2800, price_hour=4.0)) == ["earlier", "later-tie"]
    assert kept_ids(earlier, offer("later-cheaper", price_month=2700, price_hour=4.0)) == ["later-cheaper"]


@pytest.fixture(scope="module")
def generated(kb: Knowledge) -> tuple[Knowledge, Knowledge]:
    """A 600-offer marketplace, searched pruned and (index forced to every offer) unpruned."""
    catalog = Catalog.model_validate(
        {"operator": "generated", "offers": generated_offers(600), "fx_to_cny": kb.catalog.fx_to_cny}
    )
    assert len(catalog.index.offers) < len(catalog.offers)
    unpruned = catalog.model_copy()
    everything = CatalogIndex([])
    for o in catalog.offers:
        everything.offers.append(o)
        everything.by_gpu_count.setdefault((o.gpu, o.count), []).append(o)
    unpruned._index = everything
    return with_catalog(kb, catalog), with_catalog(kb, unpruned)


WORKLOADS = (
    {"task": "infer", "params_b": 13, "always_on": True},
    {"task": "infer", "model": "llama-3.1-8b", "qps": 20},
    {"task": "infer", "params_b": 70, "weight_dtype": "int4", "duration_hours": 100},
    {"task": "infer", "params_b": 7, "budget": {"amount": 300, "currency": "USD", "per": "month"}},
    {"task": "train", "params_b": 13, "method": "full", "train_tokens": 2e8},
    {"task": "train", "params_b": 7, "method": "lora", "duration_hours": 30},
    {"task": "train", "params_b": 70, "method": "qlora", "budget": {"amount": 9000, "per": "month"}},
    {"task": "both", "params_b": 7},
)


def picked(plan: Any) -> list[tuple[str, float, str] | None]:
    options = [plan.recommendation, *plan.alternatives, plan.serving]
    return [(o.offer, o.cost.amount, o.cost.currency) if o else None for o in options]


@pytest.mark.parametrize("raw", WORKLOADS, ids=lambda r: f"{r['task']}-{r.get('params_b', 8)}b")
def test_plans_over_the_pruned_catalog_pick_the_same_offers_and_prices(
    raw: dict[str, Any], generated: tuple[Knowledge, Knowledge]
) -> None:
    pruned, unpruned = generated
    w = Workload.model_validate(raw)
    a, b = recommend(w, pruned), recommend(w, unpruned)
    assert picked(a) == picked(b)
    assert a.what_ifs == b.what_ifs and a.pitfalls == b.pitfalls


def test_a_sibling_offer_repriced_equals_evaluating_it(kb: Knowledge) -> None:
    w = Workload(task="train", params_b=13, method="full", train_tokens=2e8)
    arch = resolve(w, kb.models).arch
    base, _ = train_setup(w, arch, None, 1)
    first, sibling = (
        offer("first", count=8, interconnect="nvswitch", price_month=24510),
        offer("sibling", count=8, interconnect="nvswitch", price_hour=40.0),
    )
    gpu = kb.gpus["a100-40g-sxm"]
    args = (arch, base)
    direct = training_search.evaluate(*args, sibling, gpu, 8, 1, 2e8, None, (False, False))
    shared = training_search.evaluate(*args, first, gpu, 8, 1, 2e8, None, (False, False))
    assert direct is not None and shared is not None
    assert repriced(shared, sibling, shared.training_hours) == direct


CSV = "id,gpu,count,interconnect,price_month,order_url\n" + "\n".join(
    [
        "dear,a100-40g-sxm,1,none,3000,https://a.example/dear",
        "cheap,a100-40g-sxm,1,none,2500,https://b.example/cheap",
    ]
)
YAML = """
operator: two vendors
offers:
  - {id: dear, gpu: a100-40g-sxm, count: 1, interconnect: none, price_month: 3000, source: upload}
  - {id: cheap, gpu: a100-40g-sxm, count: 1, interconnect: none, price_month: 2500, source: upload}
"""


@pytest.mark.parametrize(("body", "kind"), [(CSV, "text/csv"), (YAML, "application/yaml")])
def test_an_uploaded_catalog_is_pruned_and_keeps_every_offer_listed(
    body: str, kind: str, kb: Knowledge
) -> None:
    catalog = parse_upload(body.encode(), kind, "op", kb)
    assert [o.id for o in catalog.offers] == ["dear", "cheap"]
    assert [o.id for o in catalog.index.offers] == ["cheap"]
    plan = recommend(Workload(task="infer", params_b=7), with_catalog(kb, catalog))
    assert plan.recommendation is not None and plan.recommendation.offer == "cheap"


def test_the_training_estimate_sizes_memory_once_per_gpu_count(
    kb: Knowledge, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = estimate_module.training_memory

    def counting(arch: Any, setup: Any) -> Any:
        calls.append(setup.gpus)
        return real(arch, setup)

    monkeypatch.setattr(estimate_module, "training_memory", counting)
    estimate(Workload(task="train", params_b=70, method="full"), kb)
    assert len(calls) <= len(estimate_module.COUNTS) + 1  # + the headline figure; was one per card and count
