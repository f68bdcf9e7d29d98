"""Buy vs rent vs hosted API: the arithmetic pinned with worked examples in CNY and USD.

Rates: the catalog's CFETS parity of 2024-12-31, 1 USD = 7.1884 CNY. Reference rows:
DGX H100 ~US$270,000 (SemiAnalysis 2023-05); RTX 4090 US$1,599 / ¥12,999 (NVIDIA launch);
8-GPU host 4.6 kW besides its GPUs (DGX H100 10.2 kW − 8 × 700 W); PUE 1.3 by default.
"""

from __future__ import annotations

import pytest

from gpu_advisor.engine.ownership import OwnershipAsk, ownership
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge.prices import reference

H100_SERVICE = Workload(task="infer", model="deepseek-v3", qps=1, gpu="h100", gpu_count=8)
CNY_POWER = OwnershipAsk(electricity_per_kwh=Money(amount=0.6, currency="CNY"))


def test_an_eight_h100_server_draws_its_gpus_tdp_plus_the_host(kb: Knowledge) -> None:
    buy = ownership(H100_SERVICE, CNY_POWER, kb, reference()).buy
    assert buy is not None
    assert buy.power_kw == pytest.approx(10.2)  # (8 × 700 W + 4,600 W) / 1000
    assert buy.energy_kwh_month == pytest.approx(10.2 * 720 * 1.3)  # 9,547.2 kWh at PUE 1.3
    assert buy.electricity_monthly == pytest.approx(9547.2 * 0.6, abs=0.01)  # ¥5,728.32


def test_a_usd_server_price_is_converted_to_cny_and_depreciated_over_36_months(kb: Knowledge) -> None:
    buy = ownership(H100_SERVICE, CNY_POWER, kb, reference()).buy
    assert buy is not None
    assert buy.price == pytest.approx(270_000 * 7.1884)  # ¥1,940,868
    assert buy.depreciation_monthly == pytest.approx(1_940_868 / 36, abs=0.01)  # ¥53,913
    assert buy.price_date is not None and "SemiAnalysis" in buy.price_source


def test_buying_the_h100_server_pays_back_after_26_months_of_renting(kb: Knowledge) -> None:
    o = ownership(H100_SERVICE, CNY_POWER, kb, reference())
    assert o.rent_monthly == 80_000  # seed 000: 8×H100 SXM ¥8万–12万/月, low end
    # 1,940,868 / (80,000 − 5,728.32) = 26.1 months
    assert o.break_even_months == pytest.approx(26.1, abs=0.05)


def test_buying_beats_renting_by_the_hour_only_above_the_break_even_utilisation(kb: Knowledge) -> None:
    o = ownership(H100_SERVICE, CNY_POWER, kb, reference())
    # (53,913 depreciation + 0 hosting) / (80,000 − 5,728.32 electricity at full use)
    assert o.break_even_utilisation == pytest.approx(53_913 / (80_000 - 5_728.32), abs=1e-3)


def test_the_api_costs_the_tables_price_per_token_for_a_month_of_the_planned_traffic(kb: Knowledge) -> None:
    o = ownership(H100_SERVICE, CNY_POWER, kb, reference())
    api = o.api
    assert api is not None and api.output_per_million == 8 and api.input_per_million == 2  # DeepSeek ¥8 / ¥2
    expected = (api.output_tokens_month * 8 + api.input_tokens_month * 2) / 1e6
    assert api.monthly == pytest.approx(expected, abs=0.01)
    assert o.cheapest == "api"  # one request a second is far below what a server pays off


def test_a_training_schedule_in_usd_buys_a_4090_back_in_about_seven_months(kb: Knowledge) -> None:
    w = Workload(task="train", model="qwen2.5-7b", method="lora", gpu="4090")
    o = ownership(w, OwnershipAsk(hours_per_month=200, currency="USD"), kb, reference())
    buy = o.buy
    assert buy is not None and o.currency == "USD"
    assert buy.price == 1599  # the USD row is used as quoted, not converted
    assert buy.energy_kwh_month == pytest.approx(0.7 * 200 * 1.3)  # (450 W + 250 W host) × 200 h × PUE
    assert buy.electricity_monthly == pytest.approx(182 * 0.8 / 7.1884, abs=0.01)  # ¥0.8 default in USD
    assert o.rent_monthly == pytest.approx(1750 / 7.1884, abs=0.01)  # the 3090's ¥1,750 month in USD
    assert o.break_even_months == pytest.approx(1599 / (1750 / 7.1884 - 182 * 0.8 / 7.1884), abs=0.05)


def test_the_users_purchase_price_and_hosting_replace_the_table(kb: Knowledge) -> None:
    w = Workload(task="infer", model="qwen2.5-72b", qps=1, gpu="a800", gpu_count=8)
    ask = OwnershipAsk(
        purchase_price=Money(amount=1_200_000, currency="CNY"),
        hosting_per_month=Money(amount=3_000, currency="CNY"),
        electricity_per_kwh=Money(amount=1, currency="CNY"),
        depreciation_months=60,
    )
    buy = ownership(w, ask, kb, reference()).buy
    assert buy is not None and buy.price_source == "user"
    assert buy.depreciation_monthly == 20_000  # 1,200,000 / 60
    assert buy.power_kw == pytest.approx(7.8)  # 8 × 400 W + 4,600 W
    assert buy.monthly == pytest.approx(20_000 + 7.8 * 720 * 1.3 + 3_000, abs=0.01)


def test_a_card_without_a_purchase_price_says_so(kb: Knowledge) -> None:
    o = ownership(Workload(task="infer", model="qwen2.5-7b", qps=1), OwnershipAsk(), kb, reference())
    assert o.buy is None
    assert any(f.id == "no_purchase_price" for f in o.findings)


def test_the_cumulative_series_starts_buying_at_its_price(kb: Knowledge) -> None:
    o = ownership(H100_SERVICE, CNY_POWER, kb, reference())
    assert o.buy is not None and o.series[0].buy == o.buy.price and o.series[0].rent == 0
    assert o.series[12].rent == pytest.approx(12 * o.rent_monthly)
