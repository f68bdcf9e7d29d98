"""Price lookups on fresh phrasings of the issue-44 classes, held out from the readers' tuning.

The phrasings were written after reading rental providers' billing pages (how a price is
asked there: by the hour, 包日/包月/包年, reserved for a year, a node of 8, add-ons):
- https://help.spacehpc.com/document/recharge_billing/recharge_billing.html (按量 vs 包日包月)
- https://www.bkunyun.com/helpce/docs/2020/about3/ (标准型 vs 包年包月)
- https://deploybase.ai/articles/runpod-gpu-pricing (RunPod: hourly, a month of 730 h, a year)
- https://deploybase.ai/articles/gpu-reserved-vs-spot-vs-on-demand-complete-pricing-guide (1-year reserved)
- https://computespec.pages.dev/learn/pricing/cloud-gpu-pricing-explained (per GPU vs per 8-GPU node)
- https://fptcloud.com/en/documents/ai-factory-billing/?doc=gpu-container-billing (GPU plus add-ons)
Expected amounts come from knowledge/catalog.yaml (t4-1x ¥900, rtx3090-1x ¥1,750,
a100-40g-1x ¥2,800 with 20 % off yearly, a100-40g-8x ¥24,510 and h100-sxm-8x ¥80,000 with
15 % off yearly; add-ons cpu-16c ¥400, ram-128g ¥600 a month).
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk

HELD_OUT: list[tuple[str, list[str]]] = [
    # a year of a node is twelve months at the yearly rate, never one month
    ("8 卡 H100 一整台，租一年要花多少", ["¥816,000"]),  # 80,000 × 0.85 × 12
    ("what does an 8x H100 node cost for a year?", ["CN¥816,000"]),
    # month and year asked together: both
    ("A100 包年包月各多少钱", ["¥2,800", "¥26,880"]),  # 2,800; 2,800 × 0.8 × 12
    ("A100 月租多少？年繳呢", ["¥2,800", "¥26,880"]),
    ("T4 monthly and yearly price?", ["CN¥900", "CN¥10,800"]),  # no yearly discount on the T4
    ("一台 8 卡 A100 月租和年租各多少", ["¥24,510", "¥250,002"]),  # one node, 24,510 × 0.85 × 12
    # Traditional-character rent questions are price lookups, not "train or serve?"
    ("租一張 3090 一個月要多少錢", ["¥1,750"]),
    # the catalog's CPU and memory upgrades added to the machine's month
    ("A100 一台，CPU 升到 16 核、記憶體加到 128G，每月多少", ["¥3,800"]),  # 2,800 + 400 + 600
    ("how much per month for an A100 with the 128GB RAM upgrade", ["CN¥3,400"]),  # 2,800 + 600
    # train on one card, serve on another: the monthly bill for both is their sum
    ("训练用 2 张 A100，推理用一张 3090，两边每月一共多少钱", ["¥7,350"]),  # 5,600 + 1,750
    ("We train on 8x A100 and serve on one T4, what's the monthly bill for both?", ["Total: CN¥23,300"]),
    # a day asked of a catalog that bills by the month is a month, and says so
    ("H100 包日多少钱", ["1 天", "¥80,000", "按月计费"]),
    ("how much does an A100 cost per month running 24/7?", ["CN¥2,800"]),
    # a second fresh set, scored once before any change (8 of 10 right); the two misses follow
    ("租 2 张 A100 一年总共多少钱", ["¥53,760"]),  # 5,600 × 0.8 × 12
    ("how much would a T4 be per year, paid annually?", ["CN¥10,800"]),  # was one month: 'per year' missed
    ("RTX 3090 的月租跟年租分别是多少", ["¥1,750", "¥21,000"]),
    ("請問 A100 包月價格多少", ["¥2,800"]),
    ("4 张 A100 一个月要多少", ["¥11,200"]),  # two 2-card machines
    ("price of one A100 for two weeks?", ["2 weeks", "CN¥2,800"]),  # billed as a whole month
    ("A100 加 128G 内存要多少钱一个月", ["¥3,400"]),
    ("训练租 8 卡 H100，推理租 2 张 3090，每月合计多少", ["¥83,500"]),  # 80,000 + 2 × 1,750
]


@pytest.mark.parametrize(("text", "amounts"), HELD_OUT, ids=[t for t, _ in HELD_OUT])
def test_a_held_out_price_question_gets_its_amounts(dialog: Dialog, text: str, amounts: list[str]) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    for amount in amounts:
        assert amount in said, said
    assert "训练/微调" not in said and "train / fine-tune" not in said.lower()


def test_english_periods_are_counted_in_words(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "how much is an A100 for 3 hours")
    assert "3 hours" in reply.text and "hour(s)" not in reply.text and "× 1 month" not in reply.text
