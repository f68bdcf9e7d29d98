"""No money reply ever prints a placeholder (issue 44): "装得下 ?", "约 ? 小时 ≈ ? 天",
"? 张 ? ¥80,000/月" leaked when a template was filled with a value that was missing.

Every message below is a money question people ask (quotes with and without a model,
hours vs month, buy vs rent, rent vs API, budgets and their cuts, price lookups, the
cost fold), in Simplified, Traditional and English; each reply is read whole (title,
lines, folds) for a "?" standing where a number or a name should be, an unfilled
"{field}", or a "None"/"nan".
"""

from __future__ import annotations

import re

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import talk

SEVEN_B = "跑 Qwen2.5-7B 推理，10个人用，7x24"
SERVE_72B = "跑 Qwen2.5-72B 推理，30个人用，7x24，每月预算 8 万"
CONVERSATIONS: list[tuple[str, ...]] = [
    ("供应商报价 8卡H100 每小时 ¥180，包月 ¥9万，我要训练大约 300 小时，哪种划算",),
    ("H100 一卡时 ¥22，包月 ¥12000，每天用 4 小时，怎么付划算",),
    ("A100 每小時 NT$80，跑 200 小時，合理嗎",),
    ("8卡H100整机月租12万，跑 Qwen2.5-72B 推理 30个人用，值不值",),
    ("8×A800 80G ¥58,000/月 年付85折，值不值",),
    ("/quote 8×A800 80G ¥58,000/月 年付85折，跑 Qwen2.5-72B 推理，30 人同时用",),
    ("/quote $2.5/hr per H100",),
    ("/quote",),
    ("$2.49/hr per H100, or $1,500 a month, we need it about 6 hours a day",),
    ("报价 4090 每小时 2.5 元，跑 SDXL 出图 300 小时，多少钱",),
    ("A100 每小时 8 元，包月 4000，每天 6 小时，怎么租",),
    ("每月 2000 块，3090 每小时 2.5，每天开 10 小时",),
    ("¥0.08/分钟 跑 5 小时",),
    ("买一台 8卡 A800 服务器 150 万，电费 0.8 元/度，用三年，还是租划算",),
    ("buy an 8x H100 server for $280k, power $0.12/kWh, 3 years, vs renting",),
    ("买一张 4090 五万台币，还是租划算",),
    ("a 4090 costs US$1,800, buy or rent?",),
    ("4090 五万台币 值不值",),
    ("自建还是调 API：每天 2000 万 token，跑 Qwen2.5-72B",),
    ("每天 5000 万 token，租卡还是调 DeepSeek API 划算",),
    ("we process 30M tokens a day, is renting an A100 cheaper than the OpenAI API?",),
    ("API 每百万 token 8 元，每天 1000 万 token，租一张 A100 划算吗",),
    ("每月 6 万的方案太贵，砍 25%",),
    ("the $9,000/month box is too much, cut it by a third",),
    ("月租 NT$50,000 壓到八成",),
    ("8卡 H100 整机包年多少钱",),
    ("一台 8 卡 A100 月租和年租各多少",),
    ("A100 租一個月多少錢",),
    ("how much is an 8x H100 node for a year?",),
    ("train on an A100, serve on a 3090: the monthly bill for both",),
    ("A100 加 128G 内存 一个月多少钱",),
    ("T4 每月多少钱，包年呢",),
    (SEVEN_B, "/cost"),
    (SEVEN_B, "预算再压一压"),
    (SEVEN_B, "便宜点", "再砍 20%", "/plan"),
    (SERVE_72B, "再砍 20%"),
    (SERVE_72B, "预算再压一压", "便宜点"),
    (SERVE_72B, "/cost"),
    (SERVE_72B, "年付能省多少"),
    (SERVE_72B, "一个月多少钱"),
    ("serve Llama-3.1-8B for 20 users 24/7, budget $300 a month", "cut the budget by a third"),
    ("serve Llama-3.1-8B for 20 users 24/7, budget $100 a month", "/cost"),
    (f"{SEVEN_B}，每月预算 NT$3000",),
    ("跑 Qwen2.5-7B 推理，10個人用，7x24，每月預算 NT$5萬", "/cost"),
    ("微调 Qwen2.5-7B，LoRA，10 亿 token", "便宜点"),
    ("微调 Qwen2.5-7B，LoRA，10 亿 token", "/cost"),
    ("8卡H100 每小时 ¥180，包月 ¥9万，训练 300 小时", "跑 Qwen2.5-72B 全参微调"),
]
# A "?" where a value belongs: after a space or before a unit, a count or a money sign.
_HOLE = re.compile(
    r"(?:^|[\s(（:：])\?(?:[\s)）,，。张台卡小天月/¥$]|$)|[¥$]\s?\?|\?\s?(?:张|台|小时|天|GiB|token)"
)
_UNFILLED = re.compile(r"\{[a-z_]+(?::[^}]*)?\}|\bNone\b|\bnan\b")


def _all_text(dialog: Dialog, messages: tuple[str, ...]) -> str:
    reply, _ = talk(dialog, *messages)
    return "\n".join([reply.text, *(line for s in reply.sections for line in s.lines)])


@pytest.mark.parametrize("messages", CONVERSATIONS, ids=lambda m: " | ".join(m)[:60])
def test_no_money_reply_prints_a_placeholder(dialog: Dialog, messages: tuple[str, ...]) -> None:
    text = _all_text(dialog, messages)
    # a checklist bullet "? 问题" in a server sheet is a question mark by design, not a hole
    lines = [line for line in text.splitlines() if not line.startswith("? ")]
    for line in lines:
        assert not _HOLE.search(line), line
        assert not _UNFILLED.search(line), line
        assert " ? " not in line and "?张" not in line and "约 ? 小时" not in line, line


@pytest.mark.parametrize(
    "leak", ["装得下 ?", "训练：约 ? 小时 ≈ ? 天", "目录同配置：? 张 ? ¥80,000/月", "cost {amount:money}"]
)
def test_the_check_catches_the_leaks_once_seen(leak: str) -> None:
    assert _HOLE.search(leak) or _UNFILLED.search(leak)


@pytest.mark.parametrize("fine", ["值不值？", "which is cheaper?", "US$300/月 ≈ ¥2,157/月", "要放弃什么?"])
def test_a_question_mark_ending_a_question_is_no_leak(fine: str) -> None:
    assert not _HOLE.search(fine)
