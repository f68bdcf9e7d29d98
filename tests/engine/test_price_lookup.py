"""Price lookups against the shipped catalog (seed 000's vendor list, knowledge/catalog.yaml)."""

from __future__ import annotations

import pytest

from gpu_advisor.engine.price_lookup import lookup, total_of, yearly_discounts
from gpu_advisor.engine.specs import Knowledge

A100 = "a100-40g-sxm"


def test_a_month_of_one_card_is_its_list_price(kb: Knowledge) -> None:
    answer = lookup(kb, "t4", 1, 720)
    assert answer.in_catalog and answer.total == 900  # seed 000 §三 #2: Tesla T4 ¥900/月


def test_a_week_on_a_monthly_offer_bills_a_whole_month(kb: Knowledge) -> None:
    line = lookup(kb, A100, 1, 168).lines[0]
    assert (line.unit, line.billed_units, line.total) == ("month", 1, 2800)


def test_four_cards_combine_the_cheapest_machines_fewest_first(kb: Knowledge) -> None:
    line = lookup(kb, A100, 4, 720).lines[0]
    assert (line.count, line.machines, line.total) == (2, 2, 11200)  # 2 × ¥5,600 = 4 × ¥2,800; fewer machines


def test_paying_yearly_applies_the_offers_discount(kb: Knowledge) -> None:
    answer = lookup(kb, "h100-sxm", 8, 720, yearly=True)
    assert answer.total == pytest.approx(80000 * 0.85)  # seed 000: 8 卡 H100 年付 85 折


def test_a_count_no_machine_divides_quotes_the_smallest_bigger_machine(kb: Knowledge) -> None:
    line = lookup(kb, "h100-sxm", 3, 720).lines[0]
    assert line.bigger and line.count == 8


def test_a_card_the_catalog_lacks_gets_the_nearest_offers_with_as_much_memory(kb: Knowledge) -> None:
    answer = lookup(kb, "rtx4090", 1, 720)
    assert not answer.in_catalog
    assert answer.lines and all(kb.gpus[line.gpu].memory_gb >= 24 for line in answer.lines)
    assert answer.lines[0].gpu == "rtx3090"  # ¥1,750, the cheapest 24 GB+ card listed


def test_the_cheapest_slice_is_the_one_gigabyte_profile(kb: Knowledge) -> None:
    line = lookup(kb, None, 1, 720).lines[0]
    assert line.mig_profile == "1g.5gb" and line.total == 210


def test_several_lines_sum_in_one_currency(kb: Knowledge) -> None:
    both = [lookup(kb, A100, 2, 720), lookup(kb, "rtx3090", 1, 720)]
    assert total_of(both) == (5600 + 1750, "CNY")


def test_every_yearly_discount_is_listed_at_its_yearly_rate(kb: Knowledge) -> None:
    rows = yearly_discounts(kb)
    assert {row.offer for row in rows} >= {"a100-40g-1x", "h100-sxm-8x"}
    assert all(row.unit_price == pytest.approx(row.monthly * (1 - row.discount)) for row in rows)
