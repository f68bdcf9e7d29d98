"""Quotes and ownership prices read from text in many spellings: Simplified, Traditional, English, typos.

``HELD_OUT`` were written after the reader and run once against it, unchanged: they
measure how it does on phrasings it was not tuned on.
"""

from __future__ import annotations

import time

import pytest

from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.quote import read

# text → (gpu, cards per machine, [(amount, currency, per)], yearly discount)
Prices = list[tuple[float, str, str]]
QUOTES: list[tuple[str, str, int | None, list[tuple[float, str, str]], float]] = [
    ("8×A800 80G ¥58,000/月 年付85折", "a800-80g-sxm", 8, [(58000, "CNY", "month")], 0.15),
    ("4090 ¥1.6/卡时", "rtx4090", None, [(1.6, "CNY", "card_hour")], 0.0),
    (
        "H100 整机每小时 ¥180 或包月 ¥9 万",
        "h100-sxm",
        8,
        [(180, "CNY", "hour"), (90000, "CNY", "month")],
        0.0,
    ),
    ("$2.5/hr per H100", "h100-sxm", None, [(2.5, "USD", "card_hour")], 0.0),
    ("八卡A800 每月5.8萬 年付八五折", "a800-80g-sxm", 8, [(58000, "CNY", "month")], 0.15),
    ("H100整機 每小時180 包月9萬", "h100-sxm", 8, [(180, "CNY", "hour"), (90000, "CNY", "month")], 0.0),
    (
        "quote: 8x H100 SXM, $2.2 per GPU-hour, 15% off for annual",
        "h100-sxm",
        8,
        [(2.2, "USD", "card_hour")],
        0.15,
    ),
    ("A100 40G 2800元一个月", "a100-40g-sxm", None, [(2800, "CNY", "month")], 0.0),
    ("t4 900/月", "t4", None, [(900, "CNY", "month")], 0.0),
    ("4090 每张卡每小时1.8元", "rtx4090", None, [(1.8, "CNY", "card_hour")], 0.0),
    ("rent 8xH100 for $16/h", "h100-sxm", 8, [(16, "USD", "hour")], 0.0),
    ("L20 48G 月租 ¥4500 per card", "l20", None, [(4500, "CNY", "card_month")], 0.0),
    ("H100 80GB PCIe ¥9000/卡/月", "h100-pcie", None, [(9000, "CNY", "card_month")], 0.0),
    ("ａ８００ ８卡 ￥５８０００／月", "a800-80g-sxm", 8, [(58000, "CNY", "month")], 0.0),
]

HELD_OUT: list[tuple[str, str, int | None, list[tuple[float, str, str]], float]] = [
    ("4卡4090服务器 包月 6500元", "rtx4090", 4, [(6500, "CNY", "month")], 0.0),
    ("租 A100 80G 每卡时 ¥7.5，年付9折", "a100-80g-sxm", None, [(7.5, "CNY", "card_hour")], 0.1),
    ("H20 96G x8 整機月租 7萬元", "h20", 8, [(70000, "CNY", "month")], 0.0),
    ("8 x h100 sxm5 at $2.99 per gpu per hour", "h100-sxm", 8, [(2.99, "USD", "card_hour")], 0.0),
    ("L40S 单卡 $0.9/hour", "l40s", 1, [(0.9, "USD", "hour")], 0.0),
    ("3090 一张 1.2元/小时", "rtx3090", 1, [(1.2, "CNY", "hour")], 0.0),
]


def _check(
    kb: Knowledge, text: str, gpu: str, count: int | None, prices: list[tuple[float, str, str]], off: float
) -> None:
    r = read(text, kb)
    assert r.gpu == gpu
    assert r.count == count
    assert [(p.amount, p.currency, p.per) for p in r.prices] == [(float(a), c, per) for a, c, per in prices]
    assert r.yearly_discount == pytest.approx(off)


@pytest.mark.parametrize(("text", "gpu", "count", "prices", "off"), QUOTES)
def test_a_quote_is_read_into_card_count_prices_and_discount(
    kb: Knowledge, text, gpu, count, prices, off
) -> None:  # type: ignore[no-untyped-def]
    _check(kb, text, gpu, count, prices, off)


@pytest.mark.parametrize(("text", "gpu", "count", "prices", "off"), HELD_OUT)
def test_a_held_out_quote_is_read_too(
    kb: Knowledge, text: str, gpu: str, count: int | None, prices: Prices, off: float
) -> None:
    _check(kb, text, gpu, count, prices, off)


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("电费 0.6 元一度", 0.6, "CNY"),
        ("電費 0.6 元一度", 0.6, "CNY"),
        ("¥0.8/kWh", 0.8, "CNY"),
        ("工业电 1 块", 1.0, "CNY"),
        ("电价0.55", 0.55, "CNY"),
        ("electricity is $0.12/kwh", 0.12, "USD"),
        ("每度电 0.7 元", 0.7, "CNY"),
        ("0.65元/度", 0.65, "CNY"),
    ],
)
def test_an_electricity_price_is_read_as_such_not_as_a_price_or_budget(
    kb: Knowledge, text, amount, currency
) -> None:  # type: ignore[no-untyped-def]
    r = read(text, kb)
    assert r.electricity is not None and (r.electricity.amount, r.electricity.currency) == (amount, currency)
    assert r.prices == []


def test_a_purchase_with_hosting_pue_and_depreciation_is_read_for_ownership(kb: Knowledge) -> None:
    r = read("买一台 8 卡 A800 要 120 万，电费 0.6，托管费 3000/月, pue 1.4, 折旧 5 年", kb)
    ask = r.ownership_ask()
    assert ask.purchase_price is not None and ask.purchase_price.amount == 1_200_000
    assert ask.hosting_per_month is not None and ask.hosting_per_month.amount == 3000
    assert (ask.pue, ask.depreciation_months) == (1.4, 60)
    assert ask.electricity_per_kwh is not None and ask.electricity_per_kwh.amount == 0.6
    assert r.prices == []


def test_an_api_price_per_million_tokens_is_read(kb: Knowledge) -> None:
    r = read("deepseek api ¥8/百万tokens", kb)
    assert r.api_output_per_million is not None and r.api_output_per_million.amount == 8


def test_hours_a_month_are_not_read_as_a_price(kb: Knowledge) -> None:
    r = read("每月 200 小时 4090 ¥1.6/卡时", kb)
    assert r.hours_per_month == 200
    assert [p.amount for p in r.prices] == [1.6]


def test_the_users_currency_is_the_one_they_wrote(kb: Knowledge) -> None:
    assert read("$2.5/hr per H100", kb).currency == "USD"
    assert read("4090 ¥1.6/卡时", kb).currency == "CNY"


@pytest.mark.parametrize("filler", [" ", "\u3000", "8", "¥", "万", "/", "卡", "x", "a800 "])
def test_pathological_input_is_read_in_linear_time(kb: Knowledge, filler: str) -> None:
    short = "8×A800 ¥58,000/月"
    started = time.perf_counter()
    read(short, kb)
    base = time.perf_counter() - started
    started = time.perf_counter()
    read("1" + filler * 2000 + "!", kb)
    assert time.perf_counter() - started < max(0.5, base * 200)
