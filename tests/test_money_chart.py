"""The buy/rent/API chart: a phone-sized PNG of cumulative cost with the payback month marked."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from gpu_advisor.bot.charts.ownership import render_ownership_png
from gpu_advisor.bot.charts.style import PANEL_PX
from gpu_advisor.engine.ownership import Ownership, OwnershipAsk, ownership
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge.prices import reference


@pytest.fixture(scope="module")
def h100(kb: Knowledge) -> Ownership:
    w = Workload(task="infer", model="deepseek-v3", qps=1, gpu="h100", gpu_count=8)
    return ownership(w, OwnershipAsk(electricity_per_kwh=Money(amount=0.6, currency="CNY")), kb, reference())


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_chart_is_a_phone_sized_png(h100: Ownership, lang: str) -> None:
    image = Image.open(io.BytesIO(render_ownership_png(h100, lang)))
    assert image.format == "PNG" and image.size == PANEL_PX


def test_the_payback_month_is_marked_with_a_dark_dotted_line(h100: Ownership) -> None:
    # month 26.1 of 36 on the x axis: a column of dark ink pixels near 72 % of the plot's width
    image = Image.open(io.BytesIO(render_ownership_png(h100, "en"))).convert("L")
    width, height = image.size
    dark_columns = [
        x
        for x in range(width // 2, width)
        if sum(image.getpixel((x, y)) < 80 for y in range(100, height - 150)) > 100
    ]
    assert dark_columns, "no vertical payback line drawn"


def test_without_a_purchase_price_the_chart_still_draws_rent(kb: Knowledge) -> None:
    o = ownership(Workload(task="infer", model="qwen2.5-7b", qps=1), OwnershipAsk(), kb, reference())
    assert o.buy is None
    assert render_ownership_png(o, "zh").startswith(b"\x89PNG")
