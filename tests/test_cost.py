"""Rental billing: granularity, yearly discounts, ranges and currency."""

from __future__ import annotations

import pytest

from gpu_advisor.engine import cost
from gpu_advisor.engine.specs import Knowledge, Offer


def offer(**kw: object) -> Offer:
    base: dict[str, object] = {"id": "x", "gpu": "t4", "count": 1, "interconnect": "none", "source": "test"}
    return Offer.model_validate(base | kw)


def test_a_three_day_job_on_a_monthly_only_offer_is_billed_one_month() -> None:
    q = cost.job(offer(price_month=900), hours=72)
    assert (q.amount, q.billed_units, q.unit) == (900, 1, "month")


def test_a_forty_day_job_is_billed_two_months() -> None:
    assert cost.job(offer(price_month=900), hours=40 * 24).amount == 1800


def test_hourly_offers_bill_the_hours_but_not_below_the_minimum() -> None:
    o = offer(price_hour=10.0, min_rental_hours=24)
    assert cost.job(o, hours=5).amount == 240
    assert cost.job(o, hours=72).amount == 720


def test_an_offer_with_both_prices_bills_the_cheaper_way() -> None:
    o = offer(price_hour=10.0, price_month=3000)
    assert cost.job(o, hours=72).amount == 720
    assert cost.job(o, hours=700).amount == 3000


def test_yearly_commitment_applies_the_discount(kb: Knowledge) -> None:
    # Seed 000 §三 #1: A100 40G ¥2800/month, 20 % off paid yearly → ¥2240.
    a100 = next(o for o in kb.catalog.offers if o.id == "a100-40g-1x")
    assert cost.always_on(a100).yearly_monthly == pytest.approx(2240)


def test_a_price_range_quotes_the_low_end_and_keeps_the_high(kb: Knowledge) -> None:
    # Seed 000 §三 #3: 8×H100 SXM ¥80k–120k a month.
    h100 = next(o for o in kb.catalog.offers if o.id == "h100-sxm-8x")
    q = cost.always_on(h100)
    assert (q.amount, q.amount_max) == (80_000, 120_000)


def test_currency_conversion_goes_through_the_catalog_rate(kb: Knowledge) -> None:
    # CFETS central parity 2024-12-31: 1 USD = 7.1884 CNY (knowledge/catalog.yaml fx_date).
    assert cost.to_currency(100, "USD", "CNY", kb.catalog.fx_to_cny) == pytest.approx(718.84)
    assert cost.to_currency(100, "EUR", "CNY", kb.catalog.fx_to_cny) is None


def test_a_year_is_billed_as_twelve_months_not_thirteen() -> None:
    from gpu_advisor.engine.cost import billed_months

    assert billed_months(8760) == 12  # 365 days: 12.2 months of 720 hours, billed as 12
    assert billed_months(2 * 8760) == 24
    assert billed_months(720) == 1 and billed_months(721) == 2
    assert billed_months(9600) == 14  # 400 days: a year and 35 days
