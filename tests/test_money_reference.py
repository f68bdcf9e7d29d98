"""The reference price table: every price dated and sourced, every card and currency known."""

from __future__ import annotations

import pytest

from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge import KnowledgeError
from gpu_advisor.knowledge.prices import parse, reference


def test_every_hardware_row_names_a_known_card_and_a_priced_currency(kb: Knowledge) -> None:
    for row in reference().hardware:
        assert row.gpu in kb.gpus, row.id
        assert row.currency in kb.catalog.fx_to_cny, row.id


def test_every_api_row_has_a_date_a_source_and_a_priced_currency(kb: Knowledge) -> None:
    for row in reference().apis:
        assert row.date.year >= 2024 and len(row.source) > 20, row.id
        assert row.currency in kb.catalog.fx_to_cny, row.id
        assert row.model is None or row.model in kb.models, row.id


def test_a_row_without_a_date_is_refused() -> None:
    text = """
hardware: [{id: x, kind: card, gpu: t4, price: 1, currency: USD, source: "somewhere real"}]
apis: []
host_power: [{id: w, up_to_gpus: 1, other_w: 100, source: "a datasheet"}]
defaults: {electricity_per_kwh: 1, electricity_currency: CNY, pue: 1.2, depreciation_months: 36,
           source: "operator"}
"""
    with pytest.raises(KnowledgeError, match="date"):
        parse(text)


def test_an_eight_card_server_draws_the_dgx_remainder_besides_its_gpus() -> None:
    # DGX H100 user guide: 10.2 kW maximum input, 8 x 700 W GPUs → 4.6 kW for the rest
    assert reference().host_w(8) == 4600
    assert reference().host_w(1) == 250


def test_the_newest_api_price_for_a_model_is_chosen() -> None:
    row = reference().api_for("deepseek-v3")
    assert row is not None and row.output_per_million == 8 and row.currency == "CNY"
