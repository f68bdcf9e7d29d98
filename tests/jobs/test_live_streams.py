"""Live calls at once size speech by streams: the streams one card holds and how many cards.

Each live stream needs one audio second transcribed per second on its own, so a card holds
⌊x_realtime⌋ streams with the sequential runtime (engine.jobs.speech). Whisper large-v3 under
sequential faster-whisper on an RTX 3090 is 19× real time (speaches #169's turbo and
faster-whisper README rows, scaled by 936 GB/s): 19 streams a card, so 40 or 50 calls need
three 3090s (57 streams).
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.message import read_message
from tests.dialogs import simplified, talk

CALLS: list[tuple[str, int]] = [
    ("客服中心要用 Whisper 实时转写，同时 40 通电话，租什么卡", 40),
    ("SenseVoice 即時轉寫，並發 100 個通話，要幾張卡", 100),
    ("we need Whisper large-v3 on 50 simultaneous phone calls, live", 50),
    ("Paraformer realtime ASR for 30 concurrent sessions", 30),
]


@pytest.mark.parametrize(("text", "streams"), CALLS, ids=[t for t, _ in CALLS])
def test_calls_at_once_are_read_as_live_streams(dialog: Dialog, text: str, streams: int) -> None:
    msg = read_message(text, dialog.vocab)
    assert msg.job == "speech"
    assert msg.job_slots["streams"] == streams
    assert not msg.unplaced


@pytest.mark.parametrize(
    "text",
    [
        "客服中心要用 Whisper large-v3 实时转写，同时 40 通电话，租什么卡",
        "Whisper large-v3 live for 50 concurrent calls",
    ],
)
def test_live_calls_are_answered_in_streams_per_card(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert "每卡 19 路" in said or "19 streams per card" in said, said
    assert "57" in said  # 3 × 3090 × 19 streams ≥ 40 or 50


def test_a_backlog_is_answered_in_real_time_speed_not_streams(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "Whisper large-v3 转写 500 小时录音")
    said = simplified(reply.text)
    assert "24.15 倍实时" in said and "每卡" not in said  # T4: 500 h ÷ 24.15 ≈ 20.7 h
