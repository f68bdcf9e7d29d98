"""``POST /api/quote`` over real HTTP on loopback: a pasted or structured quote judged for a workload."""

from __future__ import annotations

from pathlib import Path

from tests.test_web_api import post, serving

SERVE_72B = {"task": "infer", "model": "qwen2.5-72b", "qps": 2}


async def test_a_pasted_quote_is_judged_with_billing_and_break_even(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, body = await post(
            client, "/api/quote", {"workload": SERVE_72B, "text": "H100 整机每小时 ¥180 或包月 ¥9 万"}
        )
    assert status == 200
    assert body["gpu"] == "h100-sxm" and body["quote"]["count"] == 8 and body["fits"]
    assert body["billing"]["break_even_hours_month"] == 500  # 90,000 / 180
    assert body["price_position"] == "within_catalog_range"


async def test_a_structured_usd_quote_answers_in_usd_and_says_the_cheapest_bill_in_cny(
    tmp_path: Path,
) -> None:
    quote = {"gpu": "h100", "count": 8, "prices": [{"amount": 2.5, "currency": "USD", "per": "card_hour"}]}
    async with serving(tmp_path) as client:
        status, body = await post(
            client, "/api/quote", {"workload": SERVE_72B, "quote": quote, "currency": "CNY"}
        )
    assert status == 200
    assert body["per_card_month"] == {"amount": 1800.0, "currency": "USD"}  # 2.5 × 720
    assert body["cheapest_in_answer_currency"]["currency"] == "CNY"
    assert body["cheapest_in_answer_currency"]["amount"] == round(14_400 * 7.1884, 2)


async def test_text_without_a_quote_is_refused_naming_the_text_field(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, body = await post(client, "/api/quote", {"workload": SERVE_72B, "text": "能便宜点吗"})
    assert status == 422 and body["error"]["field"] == "text" and body["error"]["code"] == "no_quote"


async def test_a_request_with_both_text_and_quote_is_refused(tmp_path: Path) -> None:
    quote = {"gpu": "t4", "prices": [{"amount": 900, "per": "month"}]}
    async with serving(tmp_path) as client:
        status, _ = await post(
            client, "/api/quote", {"workload": SERVE_72B, "text": "t4 900/月", "quote": quote}
        )
    assert status == 422
