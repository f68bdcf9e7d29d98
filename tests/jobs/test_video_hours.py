"""Hours of video a month or a day size transcoding by streams running at real time.

A month of 720 h (engine.cost) turns "10,000 hours of video a month" into 10,000 / 720 = 13.9,
so 14 streams at real time; "2,000 hours a day" into 2,000 / 24 = 83.3, so 84. NVENC streams a
card (knowledge/video_codec.yaml, NVENC Application Note, SDK 13.0): a T4 holds 15 H.264 or
13 HEVC 1080p30 streams, so 14 streams fit one T4 and 84 HEVC streams need 7 (91).
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.message import read_message
from tests.dialogs import simplified, talk

RATES: list[tuple[str, str, int]] = [
    ("we transcode about 10,000 hours of footage a month to H.264 — which GPU?", "video_hours_month", 10_000),
    ("每月要轉碼 8000 小時影片成 H.264，租什麼卡", "video_hours_month", 8_000),
    ("每天 2000 小时视频转 HEVC，要几张卡", "video_hours_day", 2_000),
]


@pytest.mark.parametrize(("text", "slot", "hours"), RATES, ids=[t for t, _, _ in RATES])
def test_hours_of_video_with_their_period_are_read(dialog: Dialog, text: str, slot: str, hours: int) -> None:
    msg = read_message(text, dialog.vocab)
    assert msg.job == "video_encode"
    assert msg.job_slots[slot] == hours
    assert not msg.unplaced


def test_a_month_of_video_hours_fits_one_t4(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "we transcode about 10,000 hours of footage a month to H.264 — which GPU?")
    said = reply.text
    assert "10,000 hours of video a month" in said and "1× T4" in said, said


def test_a_day_of_video_hours_needs_seven_t4s(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "每天 2000 小时视频转 HEVC，要几张卡")
    said = simplified(reply.text)
    assert "7 台 × 1 张 T4" in said and "每卡 13 路" in said, said


def test_the_answer_names_nvenc(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "一張 T4 的 NVENC 可以同時轉幾路 1080p H.264？")
    said = simplified(reply.text)
    assert "NVENC" in said and "每卡 15 路" in said, said
