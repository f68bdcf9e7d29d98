"""A quote's catalog figure for its own card is absent with a reason, never a zero (issue 44).

The catalog (knowledge/catalog.yaml) rents no A800, so "8×A800 80G ¥58,000/月" has nothing
to be set beside: ``catalog_same_card`` is null and ``catalog_same_card_missing`` says
``not_in_catalog``. Before, the A800 was sized as if owned and the JSON said ¥0 a month and
¥0 per million tokens. The H100 node it does
rent: h100-sxm-8x at ¥80,000 a month.
"""

from __future__ import annotations

import json

from gpu_advisor.bot.quote_call import QuoteRequest, answer
from gpu_advisor.engine.specs import Knowledge

SERVE_72B = {"task": "infer", "model": "qwen2.5-72b", "concurrency": 30}


def quoted(kb: Knowledge, text: str) -> dict[str, object]:
    request = QuoteRequest.model_validate({"workload": SERVE_72B, "text": text})
    out: dict[str, object] = json.loads(answer(request, kb).model_dump_json())
    return out


def test_a_card_the_catalog_does_not_rent_has_no_same_card_figure(kb: Knowledge) -> None:
    body = quoted(kb, "8×A800 80G ¥58,000/月 年付85折")
    assert body["catalog_same_card"] is None
    assert body["catalog_same_card_missing"] == "not_in_catalog"


def test_a_rented_machine_keeps_its_catalog_price_and_no_reason(kb: Knowledge) -> None:
    body = quoted(kb, "8卡H100 整机 ¥90,000/月")
    same = body["catalog_same_card"]
    assert isinstance(same, dict) and same["monthly_cost"]["amount"] == 80_000  # h100-sxm-8x
    assert same["cost_per_million_output_tokens"]["amount"] > 0
    assert body["catalog_same_card_missing"] is None
