"""Money answered from what was said, with no model: quotes, schedules, buy vs rent, APIs, budgets.

Issue 44: "供应商报价 8卡H100 每小时 ¥180，包月 ¥9万，我要训练大约 300 小时，哪种划算" needs
300 × ¥180 = ¥54,000 < ¥90,000 and nothing else. Golden numbers are worked in the comments
from the catalog (knowledge/catalog.yaml, seed 000), the TDPs (knowledge/gpus.yaml), the
operator defaults (knowledge/prices.yaml: PUE 1.3, ¥0.8/kWh) and the month of 720 h.
"""

from __future__ import annotations

import pytest

from gpu_advisor.engine import budget
from gpu_advisor.engine.api_compare import TokenVolume, audio_month, rent_vs_api, user_price
from gpu_advisor.engine.billing import QuotePrice, VendorQuote, billing, schedule_hours
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.payback import BuyRentAsk, buy_vs_rent
from gpu_advisor.engine.price_lookup import lookup, month_and_year, total_of, with_addons
from gpu_advisor.engine.quote import judge, money_only
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge.api_prices import api_reference
from gpu_advisor.knowledge.prices import reference


def _cny(amount: float) -> Money:
    return Money(amount=amount, currency="CNY")


def _h100_hour_or_month() -> VendorQuote:
    prices = [QuotePrice(amount=180, per="hour"), QuotePrice(amount=90_000, per="month")]
    return VendorQuote(gpu="H100", count=8, prices=prices)


# --- a quote's billing, no model ------------------------------------------------------------


def test_a_300_hour_job_billed_hourly_costs_54000_and_beats_the_90000_month() -> None:
    bill = billing(_h100_hour_or_month(), 300, "job")
    by = {o.billing: o.amount for o in bill.options}
    assert by == {"hour": 54_000, "month": 90_000}  # 300 × ¥180; one month
    assert (bill.cheapest, bill.runner_up, bill.saving) == ("hour", "month", 36_000)


def test_monthly_billing_wins_past_500_hours_a_month() -> None:
    assert billing(_h100_hour_or_month(), 300, "month").break_even_hours_month == 500  # 90,000 / 180


def test_a_daily_schedule_is_hours_a_month_not_a_job_of_that_many_hours() -> None:
    assert schedule_hours(4) == 120  # 4 h × 30 days of the 720 h month


def test_a_schedule_longer_than_a_day_is_refused() -> None:
    with pytest.raises(ValueError, match="0-24 hours"):
        schedule_hours(25)


def test_a_card_hour_price_is_multiplied_by_the_cards_for_a_few_hours_a_day() -> None:
    prices = [QuotePrice(amount=2.5, per="card_hour"), QuotePrice(amount=1_200, per="card_month")]
    q = VendorQuote(gpu="A100", count=8, prices=prices)
    bill = billing(q, schedule_hours(4), "month")
    by = {o.billing: o.amount for o in bill.options}
    assert by == {"hour": 2_400, "month": 9_600}  # ¥2.5 × 8 cards × 120 h; ¥1,200 × 8
    assert bill.cheapest == "hour" and bill.break_even_hours_month == 480  # 9,600 / 20


def test_a_yearly_discount_is_the_cheapest_for_a_machine_that_runs_all_month() -> None:
    q = VendorQuote(
        gpu="A800", count=8, prices=[QuotePrice(amount=58_000, per="month")], yearly_discount=0.15
    )
    bill = billing(q, 720, "month")
    assert bill.cheapest == "year" and bill.saving == pytest.approx(8_700)  # 58,000 × 0.15


def test_a_quote_is_priced_and_placed_against_the_catalog_without_a_model(kb: Knowledge) -> None:
    answer = money_only(_h100_hour_or_month(), kb, 300, "job")
    assert answer.gpu == "h100-sxm" and answer.billing.cheapest == "hour"
    assert answer.per_card_month.amount == 11_250  # ¥90,000 / 8 cards
    assert answer.price_position == "within_catalog_range"  # catalog 8×H100: ¥80k–120k, ¥10k–15k a card


def test_a_quote_in_cny_is_also_said_in_the_askers_dollars(kb: Knowledge) -> None:
    answer = money_only(_h100_hour_or_month(), kb, 300, "job", answer_currency="USD")
    assert answer.cheapest_in_answer_currency is not None
    assert answer.cheapest_in_answer_currency.amount == pytest.approx(54_000 / 7.1884, abs=0.01)


def test_a_quote_for_a_card_nobody_knows_is_still_priced(kb: Knowledge) -> None:
    q = VendorQuote(gpu="MysteryCard 9000", count=2, prices=[QuotePrice(amount=10, per="hour")])
    answer = money_only(q, kb, 100, "job")
    assert answer.gpu is None and answer.billing.options[0].amount == 1_000
    assert answer.price_position == "no_catalog_offer"


# --- buy vs rent from stated numbers ---------------------------------------------------------


def _eight_4090s(**extra: object) -> BuyRentAsk:
    return BuyRentAsk(
        gpu="4090",
        count=8,
        purchase_price=_cny(200_000),
        electricity_per_kwh=_cny(0.6),
        rent_monthly=_cny(12_000),
        **extra,
    )


def test_a_bought_server_draws_its_cards_tdp_plus_the_host(kb: Knowledge) -> None:
    answer = buy_vs_rent(_eight_4090s(), kb, reference())
    assert answer.power_kw == 8.2 and not answer.power_stated  # 8 × 450 W + 4,600 W host
    assert answer.electricity_monthly == pytest.approx(4_605.12)  # 8.2 kW × 720 h × PUE 1.3 × ¥0.6


def test_buying_pays_back_after_27_months_of_renting(kb: Knowledge) -> None:
    answer = buy_vs_rent(_eight_4090s(), kb, reference())
    assert answer.payback_months == 27.0  # 200,000 / (12,000 − 4,605.12)


def test_over_two_years_renting_is_still_cheaper(kb: Knowledge) -> None:
    answer = buy_vs_rent(_eight_4090s(months=24), kb, reference())
    assert answer.buy_total == pytest.approx(310_522.88)  # 200,000 + 24 × 4,605.12
    assert answer.rent_total == 288_000 and answer.cheaper == "rent"


def test_a_stated_power_draw_replaces_the_tdp(kb: Knowledge) -> None:
    answer = buy_vs_rent(_eight_4090s(power_w=5_000), kb, reference())
    assert answer.power_stated and answer.power_kw == 5.0


def test_without_an_electricity_price_the_operator_default_is_used_and_said(kb: Knowledge) -> None:
    ask = BuyRentAsk(gpu="4090", count=8, purchase_price=_cny(200_000), rent_monthly=_cny(12_000))
    answer = buy_vs_rent(ask, kb, reference())
    assert answer.electricity_assumed and answer.electricity_per_kwh == 0.8


def test_without_a_rent_the_catalog_prices_the_same_cards(kb: Knowledge) -> None:
    ask = BuyRentAsk(gpu="H100", count=8, purchase_price=_cny(2_000_000))
    answer = buy_vs_rent(ask, kb, reference())
    assert (answer.rent_source, answer.rent_monthly) == ("catalog", 80_000)  # seed 000: 8×H100 ¥80,000/月


def test_an_hourly_rent_is_priced_for_the_hours_used(kb: Knowledge) -> None:
    ask = BuyRentAsk(
        gpu="4090",
        count=1,
        purchase_price=_cny(15_000),
        rent_hourly=_cny(2),
        hours_per_month=schedule_hours(8),
    )
    answer = buy_vs_rent(ask, kb, reference())
    assert answer.rent_monthly == 480 and answer.rent_source == "stated_hour"  # ¥2 × 240 h


def test_a_dollar_purchase_is_answered_in_its_own_currency(kb: Knowledge) -> None:
    ask = BuyRentAsk(
        gpu="4090", count=1, purchase_price=Money(amount=2_000, currency="USD"), rent_monthly=_cny(1_500)
    )
    answer = buy_vs_rent(ask, kb, reference())
    assert answer.currency == "USD" and answer.rent_monthly == pytest.approx(1_500 / 7.1884, abs=0.01)


def test_a_card_the_catalog_does_not_rent_needs_a_stated_rent(kb: Knowledge) -> None:
    with pytest.raises(EngineError) as err:
        buy_vs_rent(BuyRentAsk(gpu="4090", count=1, purchase_price=_cny(15_000)), kb, reference())
    assert err.value.code == "no_rent_price"


# --- rent vs API for the user's own volume ---------------------------------------------------


def test_an_api_month_is_thirty_days_of_the_daily_volume_at_its_two_prices(kb: Knowledge) -> None:
    volume = TokenVolume(input_per_day=15e6, output_per_day=5e6)
    price = user_price(_cny(2), _cny(8))
    answer = rent_vs_api(volume, _cny(12_000), [price], kb.catalog.fx_to_cny, "CNY")
    row = answer.apis[0]
    assert row.low == row.high == 2_100  # 30 × (15 × ¥2 + 5 × ¥8)
    assert row.verdict == "api" and answer.cheapest == "user"


def test_the_break_even_is_the_daily_volume_where_the_api_costs_the_rent(kb: Knowledge) -> None:
    volume = TokenVolume(input_per_day=15e6, output_per_day=5e6)
    answer = rent_vs_api(volume, _cny(12_000), [user_price(_cny(2), _cny(8))], kb.catalog.fx_to_cny, "CNY")
    assert answer.apis[0].break_even_tokens_per_day == 114_285_714  # ¥400 a day / ¥3.5 per M blended


def test_a_daily_total_without_the_split_is_a_range_and_can_depend(kb: Knowledge) -> None:
    volume = TokenVolume(total_per_day=50e6)
    answer = rent_vs_api(volume, _cny(6_000), [user_price(_cny(2), _cny(8))], kb.catalog.fx_to_cny, "CNY")
    row = answer.apis[0]
    assert (row.low, row.high, row.verdict) == (3_000, 12_000, "depends")  # all input … all output
    assert answer.cheapest == "rent"


def test_a_small_volume_is_cheaper_on_every_reference_api_than_a_rented_h100(kb: Knowledge) -> None:
    volume = TokenVolume(input_per_day=1e6, output_per_day=2e5)
    answer = rent_vs_api(volume, _cny(80_000), api_reference().token_apis, kb.catalog.fx_to_cny, "CNY")
    assert all(row.verdict == "api" for row in answer.apis)
    assert answer.apis == sorted(answer.apis, key=lambda r: r.high)


def test_every_reference_price_carries_a_date_and_a_source_url() -> None:
    table = api_reference()
    dated = [(row.date, row.source) for row in table.token_apis]
    dated += [(row.date, row.source) for row in table.minute_apis]
    assert all(when is not None and "https://" in source for when, source in dated)
    providers = {row.provider.split(" ")[0] for row in table.token_apis}
    assert {"DeepSeek", "Alibaba", "Zhipu", "Moonshot", "OpenAI", "Anthropic", "Google"} <= providers


def test_an_hour_of_audio_a_day_on_whisper_costs_ten_dollars_eighty_a_month(kb: Knowledge) -> None:
    whisper = api_reference().minute_apis[0]
    assert audio_month(60, whisper, kb.catalog.fx_to_cny, "USD").amount == 10.8  # 30 × 60 × $0.006


# --- budgets ---------------------------------------------------------------------------------


def test_a_300_dollar_budget_holds_a_900_yuan_pick(kb: Knowledge) -> None:
    answer = budget.check(Money(amount=300, currency="USD"), _cny(900), kb.catalog)
    assert answer.fits and answer.budget_in_pick_currency == _cny(2_156.52)  # 300 × 7.1884


def test_a_300_dollar_budget_is_overrun_by_a_2800_yuan_pick(kb: Knowledge) -> None:
    answer = budget.check(Money(amount=300, currency="USD"), _cny(2_800), kb.catalog)
    assert answer.fits is False and answer.over_by == Money(amount=89.52, currency="USD")


def test_a_budget_in_a_currency_without_a_rate_is_not_guessed(kb: Knowledge) -> None:
    answer = budget.check(Money(amount=30_000, currency="JPY"), _cny(900), kb.catalog)
    assert answer.fits is None and answer.budget_in_pick_currency is None


def test_a_ten_thousand_nt_dollar_budget_is_overrun_by_a_2800_yuan_pick(kb: Knowledge) -> None:
    answer = budget.check(Money(amount=10_000, currency="TWD"), _cny(2_800), kb.catalog)
    assert answer.fits is False and answer.budget_in_pick_currency == _cny(2_192.86)  # × 7.1884 / 32.781
    assert answer.over_by is not None and answer.over_by.amount == pytest.approx(
        2_800 / 0.219286 - 10_000, abs=0.01
    )


def test_a_relative_cut_names_the_next_cheaper_option_and_what_it_gives_up(kb: Knowledge) -> None:
    plan = recommend(Workload(model="Qwen2.5-7B-Instruct", task="infer", qps=2), kb)
    pick = plan.recommendation
    assert pick is not None
    options = [pick, *plan.alternatives]
    trade = budget.next_cheaper(max(options, key=lambda o: o.monthly_cost.amount), options, kb.catalog)
    assert trade is not None and trade.saves_monthly.amount > 0
    assert trade.cheaper.monthly_cost.amount < max(o.monthly_cost.amount for o in options)


# --- price lookups ---------------------------------------------------------------------------


def test_a_year_of_a_node_is_twelve_discounted_months(kb: Knowledge) -> None:
    month, year = month_and_year(kb, "h100-sxm", 8)
    assert month.total == 80_000 and year.total == pytest.approx(12 * 80_000 * 0.85)  # 年付 85 折


def test_a_year_without_a_yearly_discount_is_twelve_list_months(kb: Knowledge) -> None:
    _, year = month_and_year(kb, "t4", 1)
    assert year.total == 12 * 900  # seed 000: T4 ¥900/月, no yearly discount listed


def test_cpu_and_memory_upgrades_are_added_per_machine(kb: Knowledge) -> None:
    answer = with_addons(kb, lookup(kb, "a100-40g-sxm", 1, 720), ["cpu-16c", "ram-128g"])
    assert answer is not None and answer.monthly == 2_800 + 400 + 600  # seed 000 §三 #1


def test_an_upgrade_the_catalog_does_not_list_is_named_not_priced(kb: Knowledge) -> None:
    answer = with_addons(kb, lookup(kb, "t4", 1, 720), ["gpu-wings"])
    assert answer is not None and answer.unknown == ["gpu-wings"] and answer.monthly == 900


def test_train_on_one_card_and_serve_on_another_sums_both_monthly_bills(kb: Knowledge) -> None:
    both = [lookup(kb, "a100-40g-sxm", 1, 720), lookup(kb, "t4", 1, 720)]
    assert total_of(both) == (2_800 + 900, "CNY")


def test_a_daily_schedule_with_a_model_is_priced_as_a_month_of_use_not_a_job(kb: Knowledge) -> None:
    prices = [QuotePrice(amount=2.5, per="card_hour"), QuotePrice(amount=1_200, per="card_month")]
    q = VendorQuote(gpu="A100", count=8, prices=prices)
    w = Workload(task="train", model="qwen2.5-7b", method="lora", train_tokens=1e8)
    verdict = judge(q, w, kb, hours=schedule_hours(4), schedule=True)
    assert (verdict.billing.period, verdict.billing.hours) == ("month", 120)  # 4 h × 30 days
    assert verdict.billing.cheapest == "hour"  # ¥2,400 against ¥9,600
