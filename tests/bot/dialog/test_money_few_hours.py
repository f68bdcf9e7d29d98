"""A quote with hours and no model gets its arithmetic first; "a few hours a day" is a daily
schedule, never a job of that many hours (issue 44).

"几个小时" / "a few hours" carries no number: it is priced at 4 hours a day × 30 days =
120 hours a month (bot.dialog.money_stated.FEW_HOURS_A_DAY), said as such, with the hours a
day past which the month's rent wins (engine.billing break-even ÷ 30).
"""

from __future__ import annotations

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.quote import read
from tests.dialogs import simplified, talk


def said(dialog: Dialog, text: str) -> str:
    reply, _ = talk(dialog, text)
    return simplified(reply.text)


def test_a_job_of_hours_is_priced_before_any_model_is_asked(dialog: Dialog) -> None:
    text = said(dialog, "供应商报价 8卡H100 每小时 ¥180，包月 ¥9万，我要训练大约 300 小时，哪种划算")
    assert "300 小时 × ¥180" in text and "¥54,000" in text and "¥90,000" in text
    assert text.index("¥54,000") < text.index("模型")  # the money first, the fit question after


def test_a_few_hours_a_day_is_a_schedule_priced_at_four_hours(dialog: Dialog) -> None:
    text = said(dialog, "A100 每卡时 3 块，包月 1800，一天只用几个小时，选哪个")
    assert "按每天 4 小时" in text and "120 小时 × ¥3" in text and "¥360" in text  # 4 × 30 × 3
    assert "每天用不到 20.0 小时" in text  # 1,800 ÷ 3 = 600 h a month ÷ 30


def test_a_few_hours_a_day_in_english_is_a_schedule(dialog: Dialog) -> None:
    text = said(
        dialog, "4090 is $0.4 per GPU-hour or $250 a month, I only use it a few hours a day, which plan?"
    )
    assert "US$48" in text and "cheapest: by the hour" in text  # 120 h × 0.4
    assert "20.8 hours a day" in text  # 250 ÷ 0.4 = 625 h ÷ 30


def test_with_a_model_a_few_hours_a_day_is_still_a_month_of_that_schedule(dialog: Dialog) -> None:
    text = said(dialog, "8卡H100 每小时 ¥180，包月 ¥9万，每天跑几个小时，跑 Qwen2.5-72B 推理，30 人用")
    assert "装得下" in text and "120 小时 × ¥180" in text and "¥21,600" in text
    assert "4 小时算" in text


def test_a_price_per_card_hour_in_yuan_is_no_count_of_cards(kb: Knowledge) -> None:
    reading = read("A100 每卡时 3 块，包月 1800", kb)
    assert reading.count in (None, 1)
