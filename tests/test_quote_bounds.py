"""Quotes no arithmetic can price get an answer or a 4xx, never a 500 (issue 40).

Each shape is sent the way a user would: pasted in the chat, posted to ``/api/quote``, typed
to ``gpu-advisor ask`` or ``gpu-advisor quote``. Nine or more prices keep each period's first
(the one billing reads); a zero price is no price; an amount that is infinite or past
``engine.quote.MAX_PRICE`` and a currency the catalog has no rate for are refused naming
the field.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from gpu_advisor import knowledge
from gpu_advisor.bot import cli
from gpu_advisor.engine.quote import MAX_PRICE
from tests.test_web_api import post, serving

SERVE_72B = {"task": "infer", "model": "qwen2.5-72b", "qps": 2}
NINE_PRICES = " ".join(f"4090 ¥{i + 1}/卡时" for i in range(9))
ZERO_PRICE = "4090 ¥0/卡时"


def structured(amount: Any = 2.5, currency: str = "USD") -> dict[str, Any]:
    price = {"amount": amount, "currency": currency, "per": "card_hour"}
    return {"workload": SERVE_72B, "quote": {"gpu": "h100", "count": 8, "prices": [price]}}


# --- POST /api/quote --------------------------------------------------------------------
async def test_a_pasted_list_of_nine_prices_is_judged_on_its_first_price(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, body = await post(client, "/api/quote", {"workload": SERVE_72B, "text": NINE_PRICES})
    assert status == 200
    assert body["quote"]["prices"] == [{"amount": 1.0, "currency": "CNY", "per": "card_hour"}]


async def test_a_pasted_zero_price_is_refused_as_no_quote_naming_the_text(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, body = await post(client, "/api/quote", {"workload": SERVE_72B, "text": ZERO_PRICE})
    assert status == 422
    assert body["error"]["code"] == "no_quote" and body["error"]["field"] == "text"


@pytest.mark.parametrize("amount", [1e308, MAX_PRICE * 10])
async def test_a_structured_price_past_the_maximum_is_refused_naming_it(
    tmp_path: Path, amount: float
) -> None:
    async with serving(tmp_path) as client:
        status, body = await post(client, "/api/quote", structured(amount))
    assert status == 422
    assert body["error"]["code"] == "price_out_of_range"
    assert body["error"]["field"] == "quote.prices.0.amount"


async def test_a_structured_infinite_price_is_refused_with_a_4xx(tmp_path: Path) -> None:
    raw = json.dumps(structured(1.0)).replace('"amount": 1.0', '"amount": Infinity')
    async with serving(tmp_path) as client:
        status, body = await post(client, "/api/quote", raw)
    assert status == 422 and "amount" in json.dumps(body["error"])


async def test_an_unknown_currency_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, body = await post(client, "/api/quote", structured(currency="XXX"))
    assert status == 422
    assert body["error"]["code"] == "unknown_currency"
    assert body["error"]["field"] == "quote.prices.0.currency"
    known = ", ".join(sorted(knowledge.load().catalog.fx_to_cny))  # the rates knowledge/catalog.yaml has
    assert body["error"]["values"] == {"name": "XXX", "known": known}


async def test_an_unknown_answer_currency_is_refused_naming_it(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, body = await post(client, "/api/quote", {**structured(), "currency": "XXX"})
    assert status == 422
    assert body["error"]["code"] == "unknown_currency" and body["error"]["field"] == "currency"


# --- the chat (POST /api/chat) ----------------------------------------------------------
async def test_nine_prices_pasted_in_the_chat_get_the_judged_quote(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, reply = await post(
            client, "/api/chat", {"text": f"{NINE_PRICES} 跑 qwen2.5-72b qps 2 划算吗", "lang": "zh"}
        )
    assert status == 200 and "¥1/卡时" in reply["text"]


async def test_a_zero_price_in_the_chat_is_answered_as_not_a_price(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, reply = await post(client, "/api/chat", {"text": ZERO_PRICE, "lang": "zh"})
    assert status == 200 and "0 不是正数" in reply["text"]


# --- the command line ---------------------------------------------------------------------
def test_ask_with_nine_prices_answers_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["ask", f"{NINE_PRICES} 跑 qwen2.5-72b qps 2 划算吗"])
    assert code == 0 and "¥1/卡时" in capsys.readouterr().out


def test_ask_with_a_zero_price_answers_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["ask", ZERO_PRICE])
    assert code == 0 and "0 不是正数" in capsys.readouterr().out


def quote(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, dict[str, Any]]:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(SERVE_72B)))
    code = cli.main(["quote", "--json", "-", *args])
    return code, json.loads(capsys.readouterr().out)


def test_the_quote_command_refuses_an_unknown_currency_with_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, body = quote(monkeypatch, capsys, "4090 ¥1.6/卡时", "--currency", "xxx")
    assert code == 2 and body["error"]["code"] == "unknown_currency"


def test_the_quote_command_refuses_a_zero_price_with_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, body = quote(monkeypatch, capsys, ZERO_PRICE)
    assert code == 2 and body["error"]["code"] == "no_quote"


def test_the_quote_command_judges_nine_prices(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, body = quote(monkeypatch, capsys, NINE_PRICES)
    assert code == 0 and body["per_card_month"] == {"amount": 720.0, "currency": "CNY"}  # ¥1 × 720 h
