"""Buy vs rent vs API says a verdict only when something was priced against the rent (issue 44).

With no purchase price and no API price "最省的是租" compared nothing; the title says the
rent and what is missing, and the line that asks for an API price offers the way the
dated reference table is used: a daily volume said beside "API".
"""

from __future__ import annotations

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import talk

SEVEN_B = "跑 Qwen2.5-7B 推理，10个人用"  # picks 1 × T4, ¥900/month


def test_nothing_to_compare_is_no_verdict(dialog: Dialog) -> None:
    reply, _ = talk(dialog, SEVEN_B, "买卡还是租卡划算")
    assert reply.title is not None
    assert "最省的是" not in reply.title and "比不出" in reply.title and "¥900" in reply.title


def test_the_invited_daily_volume_is_priced_against_the_reference_apis(dialog: Dialog) -> None:
    reply, _ = talk(dialog, SEVEN_B, "每天 500 万 token，和 API 比")
    assert "租：¥900/月" in reply.text and "qwen-turbo" in reply.text
    assert "¥45–¥90/月" in reply.text  # 5M × 30 × ¥0.3 … ¥0.6 per million (2026-12-07)


def test_a_stated_purchase_with_power_and_period_gets_its_payback(dialog: Dialog) -> None:
    reply, _ = talk(
        dialog, "买一台 8卡 H100 200 万，跑 Qwen2.5-72B 推理 30 人，电费 0.6，用 3 年，还是租划算"
    )
    assert "¥2,000,000 ÷ 36 个月 = ¥55,556" in reply.text
    assert "26.9 个月回本" in reply.text  # 2,000,000 ÷ (80,000 − 5,728 power)
