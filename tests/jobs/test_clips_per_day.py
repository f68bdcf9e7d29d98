"""A video service's daily volume is read as clips a day and sizes the fleet (issue 43).

"每天 20 条" after a video model is twenty clips a day, not a number left unused; the video
planner (``engine/jobs/video.py``) sizes the machines for it, evenly over the day at 80 %.
The phrasings are our own.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.reading.message import read_message


@pytest.mark.parametrize(
    ("text", "clips"),
    [
        ("Wan2.1 14B 720p 生成 5 秒视频，每天 20 条", 20),
        ("HunyuanVideo 日均生成 50 段视频", 50),
        ("we need 200 clips a day with LTX-Video", 200),
    ],
)
def test_a_video_services_clips_a_day_are_read(dialog: Dialog, text: str, clips: int) -> None:
    msg = read_message(text, dialog.vocab)
    assert msg.job == "video_gen" and msg.job_slots.get("clips_per_day") == clips
    assert not msg.unplaced


def test_clips_a_day_reach_the_plan_and_are_said_back(dialog: Dialog) -> None:
    reply, state = dialog.handle(ConversationState(), "we need 200 clips a day with LTX-Video")
    assert state.job is not None and state.job.slots["clips_per_day"] == 200
    assert "200 clips a day" in reply.lead[0]
    assert reply.job is not None and reply.job.pick is not None


def test_clips_a_day_are_not_read_outside_a_video_job(dialog: Dialog) -> None:
    msg = read_message("TTS 每天生成 500 条 1 分钟音频", dialog.vocab)
    assert "clips_per_day" not in msg.job_slots
