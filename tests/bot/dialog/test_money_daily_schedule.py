"""A few hours a day, by the hour or monthly: the arithmetic and the hours a day where they meet (issue 44).

Catalog (knowledge/catalog.yaml): a100-40g-1x ¥2,800/月, billed by the month only. At 3 hours
a day × 30 days = 90 hours a month that month costs ¥2,800 ÷ 90 = ¥31.11 per hour used.
With an hourly price of ¥4 (the user's own): 90 × ¥4 = ¥360, and the month wins past
¥2,800 ÷ ¥4 = 700 hours a month = 23.3 hours a day.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.dialog.money_schedule import schedule_money
from gpu_advisor.engine.billing import schedule_against_month
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.quote import read_normalized
from gpu_advisor.reading.use_words import read_use
from gpu_advisor.text.normalize import normalize
from tests.dialogs import simplified, talk
from tests.engine.jobs_helpers import catalog_of, offer

NO_PRICE: list[tuple[str, str]] = [
    ("我每天就用 3 小时左右，A100 按小时还是包月划算", "¥31.11"),
    ("我每天大概只用 3 個小時，A100 按小時計費還是包月比較划算？", "¥31.11"),
    ("I only use it about 3 hours a day, is an A100 cheaper by the hour or monthly?", "CN¥31.11"),
]


@pytest.mark.parametrize(("text", "per_hour"), NO_PRICE, ids=[t for t, _ in NO_PRICE])
def test_a_schedule_with_no_price_is_set_against_the_catalog_month(
    dialog: Dialog, text: str, per_hour: str
) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert per_hour in said and "90" in said and "2,800" in said, said
    assert "训练" not in said and "train or serve" not in said


def test_with_a_model_the_schedule_is_still_priced_before_the_load_question(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "我每天就用 3 小时左右，跑 Qwen2.5-7B 推理，A100 按小时还是包月划算")
    said = reply.text
    assert "¥31.11" in said and said.index("¥31.11") < said.index("Qwen2.5-7B")


STATED: list[tuple[str, str]] = [
    ("A100 每卡时 4 块，包月 2800，我每天用 3 小时，哪个划算", "每天用不到 23.3 小时"),
    ("A100 每小時 4 元、月租 2800，每天用 3 小時，選哪個", "每天用不到 23.3 小时"),
    ("A100 ¥4/hour or ¥2,800/month, I use it 3 hours a day, which is cheaper?", "Under 23.3 hours a day"),
]


@pytest.mark.parametrize(("text", "even"), STATED, ids=[t for t, _ in STATED])
def test_a_stated_hourly_and_monthly_price_give_the_break_even_hours_a_day(
    dialog: Dialog, text: str, even: str
) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert even in said and "360" in said, said  # 90 h × ¥4


def test_with_a_model_the_stated_prices_still_give_the_hours_a_day(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "A100 每卡时 4 块，包月 2800，我每天用 3 小时跑 Qwen2.5-7B 推理，哪个划算")
    assert "每天用不到 23.3 小时" in reply.text and "装得下" in reply.text


def test_the_schedule_arithmetic_itself() -> None:
    s = schedule_against_month(2800, 3, 4)
    assert s.hours_month == 90 and s.hourly_total == 360
    assert s.per_used_hour == pytest.approx(31.11, abs=0.01)
    assert s.break_even_hours_day == pytest.approx(23.33, abs=0.01)


def test_more_than_a_day_of_hours_is_refused() -> None:
    with pytest.raises(ValueError, match="0-24 hours"):
        schedule_against_month(2800, 25)


def test_a_catalog_with_an_hourly_price_gives_the_schedule_and_the_hours_a_day(kb: Knowledge) -> None:
    hourly_kb = catalog_of(kb, offer("a100-40g-sxm", 2800, price_hour=4.0))  # a test catalog's own prices
    low = normalize("我每天就用 3 小时，A100 按小时还是包月划算")
    content = schedule_money(hourly_kb, low, read_normalized(low, hourly_kb), read_use(low), "zh")
    assert content is not None
    said = "\n".join(content.summary)
    assert "90 小时 × ¥4 = ¥360" in said and "按时划算" in said
    assert "每天用不到 23.3 小时" in said  # 2,800 ÷ 4 ÷ 30
