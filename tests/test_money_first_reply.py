"""Every money question gets its arithmetic in the first reply, with or without a model (issue 44).

Each class is phrased three ways (Simplified, Traditional, English) in our own words; the
figures are worked in the comments from what the message says, the catalog
(knowledge/catalog.yaml) and the month of 720 h.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk


def said(dialog: Dialog, text: str) -> str:
    reply, _ = talk(dialog, text)
    return simplified(" ".join([reply.title or "", *reply.summary]))


@pytest.mark.parametrize(
    "text",
    [
        "机房报价：8卡H100 按小时 180 元，包月 9 万，我这次训练要跑 300 小时左右，选哪种",
        "機房報價：8卡H100 每小時 180 元，包月 9 萬，這次訓練大概 300 小時，選哪種",
        "Quote for 8x H100: ¥180 an hour or ¥90,000 a month; my training run is about 300 hours. Which one?",
    ],
)
def test_an_hourly_and_a_monthly_quote_are_priced_for_the_jobs_hours_without_a_model(
    dialog: Dialog, text: str
) -> None:
    reply = said(dialog, text)
    assert "54,000" in reply and "90,000" in reply  # 300 h × ¥180 against one month
    assert "36,000" in reply  # what hourly saves


@pytest.mark.parametrize(
    "text",
    [
        "A100 一卡时 2.5 元，包月一张 1200，租 8 张，每天就用 4 小时，哪个划算",
        "A100 一卡時 2.5 元，包月一張 1200，租 8 張，每天只用 4 小時，哪個划算",
        "8x A100 at ¥2.5 per card-hour or ¥1,200 per card a month, I use it 4 hours a day - which?",
    ],
)
def test_a_card_hour_price_is_priced_for_a_daily_schedule_over_the_month(dialog: Dialog, text: str) -> None:
    reply = said(dialog, text)
    assert "2,400" in reply and "9,600" in reply  # ¥2.5 × 8 × (4 h × 30 days); ¥1,200 × 8
    assert "120" in reply  # hours a month of the schedule


@pytest.mark.parametrize(
    "text",
    [
        "买一台 8 卡 4090 要 20 万，电费 0.6 一度，打算用两年，和每月 1.2 万租比呢",
        "買一台 8 卡 4090 要 20 萬，電費 0.6 一度，打算用兩年，和每月 1.2 萬租比呢",
        "Buying an 8x 4090 server costs ¥200k, power is ¥0.6/kWh, for 2 years; renting is ¥12,000 a month",
    ],
)
def test_buy_vs_rent_from_a_stated_price_is_computed_without_a_model(dialog: Dialog, text: str) -> None:
    reply = said(dialog, text)
    assert "27" in reply  # months to pay back: 200,000 / (12,000 − 4,605.12)
    assert "310,523" in reply and "288,000" in reply  # two years of owning against renting


@pytest.mark.parametrize(
    "text",
    [
        "API 每百万 token 输入 2 块输出 8 块，每天输入 1500 万、输出 500 万，租一台每月 1500 的 4090 划算吗",
        "API 每百萬 token 輸入 2 塊輸出 8 塊，每天輸入 1500 萬、輸出 500 萬，租一台每月 1500 的 4090 划算嗎",
        "API at ¥2 per million input and ¥8 output; we do 15M in, 5M out a day. Rent a ¥1,500/month 4090?",
    ],
)
def test_rent_vs_api_is_priced_for_the_daily_volume(dialog: Dialog, text: str) -> None:
    reply = said(dialog, text)
    assert "2,100" in reply and "1,500" in reply  # 30 × (15 × ¥2 + 5 × ¥8) against the rent


@pytest.mark.parametrize(
    ("text", "total"),
    [
        ("8卡H100 包月和包年分别多少", "816,000"),
        ("8卡H100 包月和包年分別多少", "816,000"),
        ("8x H100, monthly and yearly price?", "816,000"),
    ],
)
def test_a_month_and_a_year_are_both_priced(dialog: Dialog, text: str, total: str) -> None:
    reply = said(dialog, text)
    assert "80,000" in reply and total in reply  # 12 × ¥80,000 × 0.85


@pytest.mark.parametrize(
    "text",
    [
        "/quote 8×A800 80G ¥58,000/月 年付85折，跑 Qwen2.5-72B 推理，30 人同时用",
        "/quote 8×A800 80G ¥58,000/月 年繳85折，跑 Qwen2.5-72B 推理，30 人同時用",
        "/quote 8x A800 80G ¥58,000/month, 15% off yearly, serving Qwen2.5-72B to 30 people at once",
    ],
)
def test_the_quote_command_reads_the_workload_in_its_own_message(dialog: Dialog, text: str) -> None:
    reply = said(dialog, text)
    assert "72B" in reply and "49,300" in reply  # fits, and ¥58,000 × 85 % paid yearly
    assert "¥0" not in reply and "?" not in reply  # no unpriced catalog line, nothing unknown printed


@pytest.mark.parametrize(
    "text",
    [
        "按小时 12 块和包月 6000，我一个月大概用 300 小时，哪个省",
        "按小時 12 塊和包月 6000，我一個月大概用 300 小時，哪個省",
        "¥12 an hour or ¥6,000 a month, I use about 300 hours a month - which saves more?",
    ],
)
def test_two_ways_of_paying_without_a_card_are_still_priced(dialog: Dialog, text: str) -> None:
    reply = said(dialog, text)
    assert "3,600" in reply and "2,400" in reply  # 300 h × ¥12; what it saves against ¥6,000
    assert "1×" not in reply


@pytest.mark.parametrize(
    "text",
    [
        "每个月大概三千万 token，调千问 API 一个月多少钱",
        "每個月大概三千萬 token，調千問 API 一個月多少錢",
        "about 30M tokens a month - what would the Qwen API cost a month?",
    ],
)
def test_a_volume_with_no_rent_is_priced_on_the_reference_apis_with_their_dates(
    dialog: Dialog, text: str
) -> None:
    reply = said(dialog, text)
    assert "qwen-turbo" in reply and "2026-12-07" in reply  # 1M tokens a day × 30 at ¥0.3–¥0.6 per M
    assert "9" in reply and "18" in reply


@pytest.mark.parametrize(
    "text", ["8卡H100一年包下来总共多少钱", "4 卡 A100 租一年多少钱", "8卡H100 租一年總共多少"]
)
def test_a_year_of_a_node_is_twelve_discounted_months(dialog: Dialog, text: str) -> None:
    reply = said(dialog, text)
    assert "× 12" in reply and (
        "816,000" in reply or "107,520" in reply
    )  # 12 × ¥80,000 × 0.85; 12 × ¥11,200 × 0.8


@pytest.mark.parametrize(
    "text",
    [
        "一张 A100 包月多少钱？CPU 升到 16 核要加多少",
        "一張 A100 月租多少，CPU 升到 16 核、記憶體 128G 要加多少",
        "How much is one A100 a month, and how much more with the CPU upgraded to 16 cores?",
    ],
)
def test_the_catalogs_upgrades_are_added_to_the_machines_month(dialog: Dialog, text: str) -> None:
    reply = said(dialog, text)
    assert "2,800" in reply and "400" in reply  # seed 000 §三 #1: A100 ¥2,800/月, 16 核 +¥400/月
    assert "3,200" in reply or "3,800" in reply  # + the ¥600 memory upgrade when it is asked
