"""Hours of recorded audio are the speech job's backlog, never a rental period (issue 43).

"2,000 hours of podcasts to transcribe" is 2,000 hours of sound for Whisper to read; a renter
who means it as a rental says "rent an A100 for 300 hours". The phrasings are our own, in
the shapes renters write: the content named (podcasts, interviews, 会议录音, 播客), an audio
backlog in either order, and Traditional script.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.reading.message import read_message


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("2,000 hours of podcasts to transcribe", 2000),
        ("transcribe 300 hours of interviews", 300),
        ("whisper: 400 hours of customer calls", 400),
        ("500 hours of recordings backlog", 500),
        ("an audio backlog of 800 hours", 800),
        ("we have a 1,200-hour audio backlog to transcribe with whisper", 1200),
        ("3000小时会议录音转写", 3000),
        ("2000 小时的播客要转文字", 2000),
        ("我有 2000 小時錄音要轉寫", 2000),
        ("转写 2000 小时音频", 2000),
    ],
)
def test_hours_of_recorded_sound_are_read_as_audio_hours(dialog: Dialog, text: str, hours: int) -> None:
    msg = read_message(text, dialog.vocab)
    assert msg.job == "speech"
    assert msg.job_slots.get("audio_hours") == hours
    assert msg.slots.get("duration_hours") is None


def test_hours_to_rent_a_card_stay_a_rental(dialog: Dialog) -> None:
    msg = read_message("rent an A100 for 300 hours to run whisper", dialog.vocab)
    assert "audio_hours" not in msg.job_slots
    assert msg.slots.get("duration_hours") == 300


def test_a_podcast_backlog_is_answered_with_the_card_hours_it_takes(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "2,000 hours of podcasts to transcribe")
    assert reply.job is not None and reply.job.family == "speech" and reply.job.pick is not None
    # 2,000 audio hours at the pick's 24.15 h of audio an hour (faster-whisper batched on a T4,
    # knowledge/speech.yaml) is 82.8 card-hours, not a 2,000-hour rental
    assert reply.job.pick.job_hours == pytest.approx(2000 / 24.15, rel=0.01)
    assert "2,000 hours of audio" in reply.lead[0]
