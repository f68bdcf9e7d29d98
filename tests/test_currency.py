"""Every price keeps its own currency to the text; comparisons go through the catalog's dated rates."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.engine import cost
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Catalog, Knowledge
from gpu_advisor.engine.workload import Workload

# issue 14: "a US$540 offer read CN¥540"
USD_OFFER = {
    "id": "l40s-usd-1x",
    "gpu": "l40s",
    "count": 1,
    "interconnect": "none",
    "price_month": 540,
    "currency": "USD",
    "source": "test: a US-dollar offer",
}


def catalog_with(*offers: dict[str, Any], **changes: Any) -> Catalog:
    data = yaml.safe_load((Path(knowledge.__file__).parent / "catalog.yaml").read_text(encoding="utf-8"))
    data["offers"].extend(offers)
    return Catalog.model_validate(data | changes)


@pytest.fixture(scope="module")
def usd_kb(kb: Knowledge) -> Knowledge:
    return kb.model_copy(update={"catalog": catalog_with(USD_OFFER)})


def test_the_default_catalog_dates_and_sources_its_rates(kb: Knowledge) -> None:
    assert kb.catalog.fx_date == date(2024, 12, 31)
    assert "2024-12-31" in kb.catalog.fx_source
    # CFETS central parity on 2024-12-31: 1 USD = 7.1884 CNY.
    assert kb.catalog.fx_to_cny["USD"] == pytest.approx(7.1884)


def test_a_catalog_pricing_in_a_currency_without_a_rate_is_refused() -> None:
    with pytest.raises(ValueError, match="EUR"):
        catalog_with(USD_OFFER | {"id": "eur", "currency": "EUR"})


def test_a_usd_offer_is_ranked_by_its_cny_value(usd_kb: Knowledge) -> None:
    # US$540 x 7.1884 = CN¥3,882 a month: dearer than the CN¥2,800 A100 for a 32B model.
    plan = recommend(Workload(task="infer", model="qwen2.5-32b", concurrency=8, always_on=True), usd_kb)
    assert plan.recommendation is not None and plan.recommendation.offer == "a100-40g-1x"
    usd = [o for o in plan.alternatives if o.offer == "l40s-usd-1x"]
    assert usd and usd[0].cost.currency == "USD" and usd[0].cost.amount == 540


def test_a_usd_offer_is_held_against_a_cny_budget_through_the_rate(usd_kb: Knowledge) -> None:
    w = Workload(
        task="infer",
        model="qwen2.5-32b",
        gpu="l40s",
        concurrency=8,
        always_on=True,
        budget={"amount": 3800, "currency": "CNY", "per": "month"},
    )
    plan = recommend(w, usd_kb)
    usd = [o for o in [plan.recommendation, *plan.alternatives] if o and o.offer == "l40s-usd-1x"]
    assert usd and usd[0].within_budget is False  # 540 x 7.1884 = 3,881.7 > 3,800


def test_conversion_goes_through_the_dated_table(kb: Knowledge) -> None:
    q = cost.Quote(540.0, "USD", "month", 1, "month")
    assert cost.in_cny(q, kb.catalog.fx_to_cny) == pytest.approx(540 * 7.1884)


@pytest.mark.parametrize(("lang", "wanted", "wrong"), [("zh", "US$540", "¥540"), ("en", "US$540", "CN¥540")])
def test_the_plan_text_shows_a_usd_offer_in_us_dollars(
    usd_kb: Knowledge, lang: str, wanted: str, wrong: str
) -> None:
    dialog = Dialog(usd_kb)
    msg = {"zh": "部署 Qwen2.5-32B 推理，7×24，并发 8", "en": "serve qwen2.5-32b, concurrency 8, 24/7"}[lang]
    reply, state = dialog.handle(ConversationState(lang=lang), msg)
    # The short card names only the pick; the US$ offer is an alternative, listed in /alt.
    alternatives, _ = dialog.handle(state, "/alt")
    assert wanted in alternatives.text
    for view in ("/why all", "/cost", "/alt"):
        text = dialog.handle(state, view)[0].text
        assert wrong not in text.replace(wanted, "")
    assert wrong not in reply.text.replace(wanted, "")
