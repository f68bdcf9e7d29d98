"""A quote with a named non-LLM job (SDXL/Flux, Whisper, YOLO …) is answered with its money and the
job named, never "which model will run on it" (issue 44, class 4).

Figures from what the message says: hours × the hourly price against the monthly price.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import simplified, talk


def said(dialog: Dialog, text: str) -> str:
    reply, _ = talk(dialog, text)
    return simplified(" ".join([reply.title or "", *reply.summary]))


@pytest.mark.parametrize(
    ("text", "money", "job"),
    [
        # 100 h × ¥20 = ¥2,000 against one month of ¥10,000
        ("8卡4090 每小时 20 元，包月 1 万，跑 Flux 出图 100 小时，哪个划算", "2,000", "图像生成"),
        # 6 h × 30 days = 180 h; × ¥8 = ¥1,440 against ¥4,000
        ("報價 A100 每小時 8 元，包月 4000，用來跑 Whisper 轉寫，每天 6 小時，哪個划算", "1,440", "语音"),
        # 200 h × ¥8 = ¥1,600 against ¥4,000
        (
            "Quote: A100 at ¥8 an hour or ¥4,000 a month, for YOLO training, 200 hours. Which is cheaper?",
            "1,600",
            "vision",
        ),
    ],
)
def test_a_quote_for_a_named_non_llm_job_gets_its_money_and_names_the_job(
    dialog: Dialog, text: str, money: str, job: str
) -> None:
    reply = said(dialog, text)
    assert money in reply and job in reply, reply
    assert "Qwen" not in reply  # the LLM example of "tell me the model" is not asked


@pytest.mark.parametrize(
    ("text", "money", "job"),
    [
        ("报价 4090 每小时 2.5 元，跑 SDXL 出图 300 小时，多少钱", "¥750", "图像生成"),  # 300 h × ¥2.5
        ("報價 A100 每小時 6 元，跑 YOLO 訓練 80 小時，要多少錢", "¥480", "视觉"),  # 80 h × ¥6
        ("A 4090 at ¥2/hour for Whisper transcription, 100 hours, how much?", "CN¥200", "speech"),
    ],
)
def test_a_card_price_asked_for_a_named_job_is_priced_for_its_hours_before_any_sizing(
    dialog: Dialog, text: str, money: str, job: str
) -> None:
    reply = said(dialog, text)
    assert money in reply and job in reply, reply
