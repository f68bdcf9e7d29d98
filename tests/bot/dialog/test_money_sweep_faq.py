"""A sweep of money questions written the way rental FAQ pages and forum posts put them (issue 44).

Phrasings are ours, in the styles of: RunPod's pod pricing page (per-hour on-demand billing,
upfront savings plans for a fixed term; https://docs.runpod.io/pods/pricing), a Chinese
"按需付费还是包年包月哪种更划算" explainer (https://www.jygpu.com/news/179), a 2026 survey of
AutoDL / 恒源云 / GpuGeek renting ("按小时租，用完就关"; https://juejin.cn/post/7617650290708447258)
and a CDN vendor's 按量计费 vs 包年包月 page (https://www.wangsu.com/document/3487/10345).

Each reply must carry the arithmetic's figure in its first answer, never ask which model (or
"train or serve?") where the numbers alone answer, and never leak a placeholder. Golden
amounts from knowledge/catalog.yaml: T4 ¥900/月; RTX 3090 ¥1,750/月 (no yearly discount);
A100 40G ¥2,800/月, 2 cards ¥5,600, 8 cards ¥24,510, 20 % off yearly on 1-2 cards;
h100-sxm-8x ¥80,000/月, 15 % off yearly; the cheapest slice (A100 MIG 1g.5gb) ¥210/月.
"""

from __future__ import annotations

import re

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk

SWEEP: list[tuple[str, tuple[str, ...]]] = [
    # price lookups
    ("A100 包月多少钱", ("¥2,800",)),
    ("A100 按年付一个月多少", ("¥2,240",)),  # 2,800 × 0.8, one month on a yearly plan
    ("两张 A100 租 10 天多少钱", ("¥5,600", "不足一个月按一个月算")),
    ("8 卡 H100 整机包月多少，包年呢", ("¥80,000", "¥816,000", "¥960,000")),
    ("H100 一年要多少錢", ("¥816,000", "¥144,000")),  # 80,000 × 0.85 × 12; 960,000 − 816,000
    ("3090 月租多少？年繳呢", ("¥1,750", "¥21,000", "没有折扣")),
    ("T4 一年多少钱", ("¥10,800", "没有折扣")),
    ("how much is a T4 per month?", ("CN¥900",)),
    ("what's the monthly and the yearly price of an A100?", ("CN¥2,800", "CN¥26,880", "CN¥33,600")),
    ("how much does a 3090 cost for two weeks?", ("CN¥1,750", "a part month costs a whole one")),
    ("what would two A100s cost for a year?", ("CN¥53,760", "CN¥67,200", "CN¥13,440")),
    ("price of an 8x H100 node per month", ("CN¥80,000",)),
    ("a 3 month commitment on an H100 node, how much?", ("CN¥240,000",)),
    ("4 卡 A100 包三个月多少钱", ("¥33,600",)),  # 2 machines × 2 cards × 5,600 × 3
    ("A100 每分钟多少钱", ("¥0.06",)),  # 2,800 ÷ 720 ÷ 60
    ("年付比月付省多少", ("¥560", "¥1,120")),
    ("最便宜的卡多少钱一个月", ("¥210", "¥900")),
    ("What's the cheapest GPU you rent?", ("CN¥210", "CN¥900")),
    ("训练用两张 A100，推理用一张 3090，每月一共多少钱", ("¥7,350",)),  # 5,600 + 1,750
    # hourly vs monthly, with the user's own prices
    ("A100 每小时 8 元，包月 4000，我每天用 6 小时，怎么租划算", ("¥1,440", "每天用不到 16.7 小时")),
    ("4090 每卡时 2 块，包月 1200，训练大概 200 小时，选哪个", ("¥400", "¥1,200")),
    ("A100 按量每小时 6.5 元，我每天开 5 个小时，一个月多少钱", ("¥975",)),  # 5 × 30 × 6.5
    ("A100 每小時 6.5 元，每天用 5 小時，一個月要多少", ("¥975",)),
    ("4090 ¥1.98/小時，包月 ¥1,100，每天跑 4 小時，哪個划算", ("¥238", "每天用不到 18.5 小时")),
    ("I pay $1.2 an hour for an A100, about 5 hours a day, what's that a month?", ("US$180",)),
    (
        "H100 at $2.5/hr vs $1,400/month, I need it 8 hours a day, which is cheaper?",
        ("US$600", "18.7 hours a day"),
    ),
    ("8卡H100 每小时 ¥180，包月 ¥9万，训练 300 小时，哪种划算", ("¥54,000", "¥90,000")),
    # 2,000 ÷ 2.5 = 800 h a month: more than a month has, so the hour wins at any schedule
    ("3090 每小时 2.5，包月 2000，每天开 10 小时，哪个划算", ("¥750", "每天用满 24 小时也是按时更省")),
    # a daily schedule and no price: the catalog's month per hour used, or the rule
    ("A100 包月和按小时，我每天大概用两三个小时，哪个好", ("¥31.11",)),  # 2,800 ÷ 90
    ("RTX 3090 hourly or monthly if I use it 10 hours a day?", ("CN¥5.83",)),  # 1,750 ÷ 300
    ("4090 一天只用几个小时，按时计费还是包月", ("每月 120 小时", "M ÷ P ÷ 30")),
    ("我每天就用 3 小時，4090 按小時還是包月比較省", ("每月 90 小时", "M ÷ P ÷ 30")),
    ("RTX 4090 hourly or monthly? I use it 2 hours a day", ("60 hours a month", "M ÷ P ÷ 30")),
    # offers weighed
    ("a supplier quotes an L40S at ¥4,000 a month, is that fair?", ("CN¥4,000",)),
    ("有人给我报 A100 一个月 3500，贵不贵", ("¥3,500", "¥2,800", "1.25 倍")),
    ("有人報 A100 一個月要 3500，貴不貴", ("¥3,500", "1.25 倍")),
    ("A800 八卡整机 5 万一个月，年付 85 折，贵不贵", ("¥42,500", "¥7,500")),  # 50,000 × 0.85
    # a quoted month asked for a year: 12 × yearly rate and 12 × list
    ("A800 八卡整机 5 万一个月，年付 85 折，一年多少钱", ("¥510,000", "¥600,000", "¥90,000")),
    ("A800 8-card node at ¥50,000 a month, 15% off if paid yearly, what is that per year?", ("CN¥510,000",)),
    ("4090 月租 1200，一年多少钱", ("¥14,400",)),
    # buy vs rent, rent vs API
    ("buying an RTX 4090 for $1,800 vs renting one, which is cheaper over 18 months?", ("US$1,599",)),
    ("买一张 4090 一万三，电费一块钱一度，用两年，和租比哪个划算", ("¥13,000", "¥12,999")),  # 一万三 = 13,000
    # 两万五 = 25,000 bought; 1,750 a month rented; 18 months (一年半) of each
    ("買一張 3090 兩萬五，電費 0.6 一度，用一年半，跟租比哪個划算", ("¥25,000", "用 18 个月", "¥31,500")),
    # buy or rent with no purchase price: the renting half, and the price buying must beat
    ("自己买 A100 还是租 A100 划算，用一年", ("¥33,600", "¥26,880")),  # 2,800 × 12; 2,240 × 12
    ("should I buy or rent a T4 for 6 months?", ("CN¥5,400",)),  # 900 × 6
    ("買還是租 3090 比較划算", ("¥21,000", "12 个月")),  # a year when no period is said
    ("每天 500 万 token，用 API 还是自己租卡便宜", ("每天 500万 token",)),
    (
        "deepseek API vs renting an A100 for 2 million tokens a day, which is cheaper?",
        ("CN¥2,800", "deepseek"),
    ),
    # a month's budget and no job yet: what the catalog rents (US$ at 7.1884, NT$ at 0.219286 per ¥)
    ("预算每月 3000 能租什么卡", ("¥2,800", "¥1,750", "¥900")),
    ("my budget is $300 a month, what GPU can I rent?", ("US$243", "US$125")),  # 1,750 and 900 ÷ 7.1884
    ("預算每月一萬台幣，能租什麼卡", ("NT$7,980", "NT$4,104")),  # 1,750 and 900 ÷ 0.219286
    ("预算 5000 一个月，A100 够吗", ("在预算内", "¥2,200")),  # 5,000 − 2,800
    ("预算 2000 一个月，A100 够吗", ("超出", "¥800")),  # 2,800 − 2,000
    # second-hand FAQ wording
    ("按秒计费的话 A100 跑 10 分钟多少钱", ("¥2,800", "不足一个月按一个月算")),
    ("包年的话单卡 A100 一年总共多少钱", ("¥26,880", "¥6,720")),
    ("A100 包一年和按月续费差多少", ("¥26,880", "¥33,600")),
    ("how much do I save on an A100 if I pay yearly?", ("CN¥2,240", "CN¥560")),
    ("A100 年繳一個月省多少", ("¥2,240", "¥560")),
]

ASKS_MODEL = re.compile(
    r"训练/微调模型，还是|train / fine-tune a model, or serve|跑哪个模型、多大负载|How big is the model"
)
LEAK = re.compile(r"(?:^|\s)[?？](?:\s|$)|\{[a-z_]+\}|(?<![a-z])(?:None|nan)(?![a-z])")
"""What a template leaks when a value is missing: "装得下 ?", "约 ? 小时", "{gpu}", "None"."""


@pytest.mark.parametrize(("text", "figures"), SWEEP, ids=[t for t, _ in SWEEP])
def test_a_money_question_gets_its_arithmetic_first(
    dialog: Dialog, text: str, figures: tuple[str, ...]
) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    for figure in figures:
        assert simplified(figure) in said, said


@pytest.mark.parametrize("text", [t for t, _ in SWEEP])
def test_a_money_question_never_asks_for_a_model_or_leaks_a_placeholder(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    assert ASKS_MODEL.search(reply.text) is None, reply.text
    assert not [line for line in reply.text.splitlines() if LEAK.search(line)], reply.text


def test_the_sweep_holds_at_least_forty_phrasings() -> None:
    assert len(SWEEP) >= 40
