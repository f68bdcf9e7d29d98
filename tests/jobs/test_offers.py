"""The shared offer picker for non-LLM jobs: machines for a peak rate, a job's billed hours,
cost per unit at full use, all on the shipped catalog (seed 000's monthly prices)."""

from __future__ import annotations

import pytest

from gpu_advisor.engine.jobs import offers
from gpu_advisor.engine.jobs.offers import Fit
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Offer


def hundred_an_hour_on_24_gib(offer: Offer, gpu: GpuSpec, memory_gib: float) -> Fit | None:
    """A job that needs 20 GiB a card and does 100 units an hour on every card that holds it."""
    if memory_gib < 20:
        return None
    return Fit(units_per_hour=100.0 * offer.count, memory_gib=20.0, cards=offer.count)


def test_an_offer_whose_card_is_too_small_is_not_ranked(kb: Knowledge) -> None:
    ranked = offers.rank(kb, hundred_an_hour_on_24_gib)
    assert "t4" not in {p.offer.gpu for p in ranked} and ranked


def test_with_no_volume_the_cheapest_unit_ranks_first(kb: Knowledge) -> None:
    # RTX 3090 ¥1750/month = ¥2.43/hour for 100 units; A100 40G ¥2800/month for the same 100
    first = offers.rank(kb, hundred_an_hour_on_24_gib)[0]
    assert first.offer.id == "rtx3090-1x"


def test_a_peak_rate_rents_enough_machines(kb: Knowledge) -> None:
    p = offers.rank(kb, hundred_an_hour_on_24_gib, per_hour=250.0, gpu="rtx3090")[0]
    assert p.machines == 3 and p.month.amount == pytest.approx(3 * 1750)


def test_a_job_is_billed_by_its_offers_unit(kb: Knowledge) -> None:
    # 5,000 units at 100 an hour = 50 hours; a monthly-only offer bills one month
    p = offers.rank(kb, hundred_an_hour_on_24_gib, units=5000.0, gpu="rtx3090")[0]
    assert p.job_hours == pytest.approx(50.0) and p.job is not None and p.job.amount == pytest.approx(1750)


def test_cost_per_thousand_units_spreads_the_month_over_720_hours(kb: Knowledge) -> None:
    p = offers.rank(kb, hundred_an_hour_on_24_gib, gpu="rtx3090")[0]
    # ¥1750 / 720 h / 100 units × 1000 = ¥24.31
    assert offers.unit_cost(p, 1000, "per_1000").value == pytest.approx(1750 / 720 / 100 * 1000, rel=1e-3)


def test_the_option_carries_price_memory_and_cards(kb: Knowledge) -> None:
    # 700 an hour: seven 1-card A100 machines (¥19,600) beat four 2-card (¥22,400) and one 8-card (¥24,510)
    p = offers.rank(kb, hundred_an_hour_on_24_gib, gpu="a100-40g-sxm", per_hour=700.0)[0]
    opt = offers.option(p)
    assert (opt.gpus, opt.machines, opt.memory_gib, opt.memory_limit_gib) == (1, 7, 20.0, 39.49)


def test_a_demand_no_fleet_can_meet_leaves_every_offer_out(kb: Knowledge) -> None:
    assert offers.rank(kb, hundred_an_hour_on_24_gib, per_hour=1e300) == []
