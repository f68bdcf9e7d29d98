"""A hosted speech API's per-minute price against renting a card for the same audio hours (issue 44, class 4).

API: hours × 60 × the price a minute. Rent: the speech family's plan (engine/jobs/speech.py,
whisper-large-v3) for the same hours on the named card, billed as the catalog bills it
(knowledge/catalog.yaml: 1× A100 40GB SXM4 ¥2,800 a month, a month at the least).
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.speech_api import speech_api_vs_rent
from gpu_advisor.knowledge.job_speeds import load_jobs
from tests.dialogs import simplified, talk


def said(dialog: Dialog, text: str) -> str:
    reply, _ = talk(dialog, text)
    return simplified(" ".join([reply.title or "", *reply.summary]))


def test_the_api_costs_its_minutes_and_the_rent_a_billed_month(kb: Knowledge) -> None:
    c = speech_api_vs_rent(Money(amount=0.006, currency="USD"), 500, kb, load_jobs(), "a100-40g-sxm")
    assert c is not None and c.api.amount == pytest.approx(180)  # 500 × 60 × US$0.006
    assert c.rent_own == Money(amount=2_800, currency="CNY") and c.gpu_hours < 720
    assert c.cheaper == "api" and c.fx_date == kb.catalog.fx_date


@pytest.mark.parametrize(
    ("text", "api", "verdict"),
    [
        ("语音转写 API 每分钟 ¥0.015，每月 2000 小时音频，还是租 A100 跑 Whisper 划算", "¥1,800", "更省"),
        ("語音轉寫 API 每分鐘 ¥0.015，每月 2000 小時音頻，還是租 A100 跑 Whisper 划算", "¥1,800", "更省"),
        (
            "speech-to-text API at $0.006 a minute, 500 hours of audio a month, or rent an A100 for Whisper",
            "US$180",
            "cheaper",
        ),
    ],
)
def test_a_speech_api_against_renting_gets_both_costs_and_a_verdict_without_a_model_question(
    dialog: Dialog, text: str, api: str, verdict: str
) -> None:
    reply = said(dialog, text)
    assert api in reply and verdict in reply and "2,800" in reply, reply
    assert "Qwen" not in reply
