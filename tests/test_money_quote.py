"""A vendor's quote judged for a workload: billing arithmetic, fit, catalog range, currencies.

Worked examples (amounts as the vendor printed them):
- "H100 整机每小时 ¥180 或包月 ¥9 万": monthly wins past 90,000 / 180 = 500 hours a month.
- "4090 ¥1.6/卡时" on one card: 200 hours cost 200 × 1.6 = ¥320.
- "8×A800 80G ¥58,000/月 年付85折": yearly is 58,000 × 0.85 = ¥49,300 a month.
- "$2.5/hr per H100", 8 cards: $20 an hour, 24×7 = 720 × 20 = $14,400 a month,
  $1,800 per card-month = ¥12,939 at the catalog's 7.1884, inside its ¥10k–15k H100 range.
"""

from __future__ import annotations

import pytest

from gpu_advisor.engine.billing import QuotePrice, VendorQuote, billing
from gpu_advisor.engine.quote import judge
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

SERVE_7B = Workload(task="infer", model="qwen2.5-7b", qps=2)


def quote(gpu: str, count: int, *prices: tuple[float, str, str], yearly_discount: float = 0.0) -> VendorQuote:
    priced = [QuotePrice(amount=a, currency=c, per=per) for a, c, per in prices]  # type: ignore[arg-type]
    return VendorQuote(gpu=gpu, count=count, prices=priced, yearly_discount=yearly_discount)


H100_BOTH = quote("h100", 8, (180, "CNY", "hour"), (90_000, "CNY", "month"))


def test_monthly_beats_hourly_past_the_break_even_hours() -> None:
    bill = billing(H100_BOTH, 600, "month")
    assert bill.break_even_hours_month == 500  # 90,000 / 180
    assert bill.cheapest == "month"


def test_hourly_beats_monthly_below_the_break_even_hours() -> None:
    bill = billing(H100_BOTH, 300, "month")
    hourly = next(o for o in bill.options if o.billing == "hour")
    assert hourly.amount == 54_000  # 300 × 180
    assert bill.cheapest == "hour"


def test_a_card_hour_price_is_multiplied_by_the_cards_and_hours() -> None:
    bill = billing(quote("4090", 1, (1.6, "CNY", "card_hour")), 200, "job")
    assert [(o.billing, o.amount) for o in bill.options] == [("hour", 320.0)]


def test_a_yearly_discount_of_85_percent_is_paid_every_month() -> None:
    bill = billing(quote("a800", 8, (58_000, "CNY", "month"), yearly_discount=0.15), 720, "month")
    yearly = next(o for o in bill.options if o.billing == "year")
    assert yearly.amount == 49_300  # 58,000 × 0.85
    assert bill.cheapest == "year"


def test_a_job_billed_monthly_pays_whole_months() -> None:
    bill = billing(H100_BOTH, 800, "job")
    monthly = next(o for o in bill.options if o.billing == "month")
    assert (monthly.billed_units, monthly.amount) == (2, 180_000)


def test_a_usd_quote_stays_in_usd(kb: Knowledge) -> None:
    v = judge(quote("h100", 8, (2.5, "USD", "card_hour")), SERVE_7B, kb)
    assert v.per_card_month.currency == "USD"
    assert v.per_card_month.amount == pytest.approx(1_800)  # 2.5 × 720
    assert all(o.currency == "USD" for o in v.billing.options)
    assert v.billing.options[0].amount == pytest.approx(14_400)  # 8 × 2.5 × 720


def test_a_usd_quote_is_placed_in_the_cny_catalog_range_through_the_rate(kb: Knowledge) -> None:
    # $1,800 per card-month × 7.1884 = ¥12,939, inside the seed's ¥80k–120k / 8 cards
    v = judge(quote("h100", 8, (2.5, "USD", "card_hour")), SERVE_7B, kb)
    assert v.price_position == "within_catalog_range"
    assert v.catalog_per_card_month_min is not None and v.catalog_per_card_month_min.amount == 10_000


def test_a_price_above_the_catalogs_range_for_the_card_is_flagged(kb: Knowledge) -> None:
    # T4 ¥1,200 a month against the catalog's ¥900: a third above
    v = judge(quote("t4", 1, (1_200, "CNY", "month")), SERVE_7B, kb)
    assert v.price_position == "above_catalog_range"
    assert v.above_catalog_by == pytest.approx(1 / 3, abs=0.001)
    assert any(f.id == "quote_above_catalog_range" for f in v.findings)


def test_the_cheapest_billing_is_said_back_in_the_users_currency(kb: Knowledge) -> None:
    v = judge(quote("h100", 8, (2.5, "USD", "card_hour")), SERVE_7B, kb, answer_currency="CNY")
    assert v.cheapest_in_answer_currency is not None
    assert v.cheapest_in_answer_currency.currency == "CNY"
    assert v.cheapest_in_answer_currency.amount == pytest.approx(14_400 * 7.1884, rel=1e-4)


def test_a_quote_for_a_model_too_big_does_not_fit(kb: Knowledge) -> None:
    v = judge(quote("4090", 1, (1.6, "CNY", "card_hour")), Workload(task="infer", model="qwen2.5-72b"), kb)
    assert not v.fits
    assert v.status == "no_fit"


def test_serving_on_a_quote_reports_cost_per_million_tokens_in_its_currency(kb: Knowledge) -> None:
    v = judge(quote("t4", 1, (900, "CNY", "month")), SERVE_7B, kb)
    assert v.option is not None and v.option.cost_per_million_output_tokens is not None
    tokens = v.option.output_tokens_per_s
    assert tokens is not None
    expected = 900 / (tokens * 720 * 3600) * 1e6  # monthly price over a month of output
    assert v.option.cost_per_million_output_tokens.amount == pytest.approx(expected, rel=1e-3)


def test_a_training_quote_prices_the_jobs_own_hours_and_days(kb: Knowledge) -> None:
    w = Workload(task="train", model="qwen2.5-7b", method="lora", train_tokens=1e8)
    v = judge(quote("a100", 8, (20, "CNY", "card_hour")), w, kb)
    assert v.option is not None and v.option.training_hours is not None
    assert v.billing.period == "job"
    assert v.billing.hours == pytest.approx(v.option.training_hours)
    assert v.training_days == pytest.approx(v.option.training_hours / 24, abs=0.01)


def test_the_cheapest_catalog_option_and_the_same_card_are_compared(kb: Knowledge) -> None:
    v = judge(H100_BOTH, SERVE_7B, kb)
    assert v.catalog_cheapest is not None and v.catalog_cheapest.gpu == "t4"
    assert v.catalog_same_card is not None and v.catalog_same_card.gpu == "h100-sxm"


def test_every_serving_option_reports_the_cost_per_million_tokens_at_full_load(kb: Knowledge) -> None:
    plan = recommend(SERVE_7B, kb)
    options = [o for o in (plan.recommendation, *plan.alternatives) if o is not None]
    for o in options:
        full, planned = o.cost_per_million_output_tokens_full_load, o.cost_per_million_output_tokens
        assert full is not None and planned is not None and o.output_tokens_per_s_full_load
        # 2 QPS is below capacity: a busier machine spreads the same month over more tokens
        assert full.amount < planned.amount
        assert full.amount == pytest.approx(
            o.monthly_cost.amount / (o.output_tokens_per_s_full_load * 720 * 3.6e3) * 1e6, rel=1e-3
        )


def test_serving_for_a_stated_time_prices_that_many_hours(kb: Knowledge) -> None:
    w = Workload(task="infer", model="qwen2.5-7b", qps=2, duration_hours=72)  # a three-day event
    v = judge(H100_BOTH, w, kb)
    assert (v.billing.period, v.billing.hours, v.billing.cheapest) == ("job", 72, "hour")
    assert v.billing.options[0].amount == 72 * 180
