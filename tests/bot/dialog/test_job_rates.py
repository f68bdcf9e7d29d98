"""A speed the user states for their own job is used, not said back as unused (issue 43).

"每张 8 秒", "a clip takes 10 minutes", "RTF 0.1", "一个 epoch 要 20 分钟" are the user's
own measurements: the reading keeps each as a job slot with its role, and the answer does
the arithmetic asked on that figure (images a day = 86,400 ÷ seconds an image; clips a
day = 1,440 ÷ minutes a clip; a backlog's hours = hours of audio × RTF; a run = epochs ×
minutes an epoch), then sets the engine's estimate for the same card beside it. The
phrasings are our own.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.reading.message import read_message


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("SDXL 每张 8 秒，一天能出多少张", "s_per_image", 8),
        ("SDXL 一張大概 6 秒，一天能出幾張", "s_per_image", 6),
        ("Flux runs at 12 s per image for us", "s_per_image", 12),
        ("Wan2.1 14B 一条 10 分钟，一天能出几条", "minutes_per_clip", 10),
        ("with HunyuanVideo a clip takes 25 minutes", "minutes_per_clip", 25),
        ("whisper large-v3 RTF 0.1，1000 小时音频要多久", "rtf", 0.1),
        ("faster-whisper 實時率 0.05，轉寫 300 小時錄音", "rtf", 0.05),
        ("YOLOv8 训练 5 万张图，一个 epoch 要 20 分钟", "epoch_minutes", 20),
        ("yolov8 on 50000 training images, 15 minutes per epoch", "epoch_minutes", 15),
    ],
)
def test_a_stated_speed_is_a_job_slot_and_not_unplaced(
    dialog: Dialog, text: str, slot: str, value: float
) -> None:
    msg = read_message(text, dialog.vocab)
    assert msg.job_slots[slot] == value
    assert str(value) not in msg.unplaced


def lead(dialog: Dialog, text: str, lang: str = "zh") -> str:
    reply, _ = dialog.handle(ConversationState(lang=lang), text)
    assert reply.kind == "answer"
    return reply.text


def test_seconds_an_image_give_images_a_day_beside_the_engines(dialog: Dialog) -> None:
    text = lead(dialog, "SDXL 每张 8 秒，一天能出多少张")
    assert "86,400 秒 ÷ 8" in text and "10,800 张" in text  # 86,400 / 8
    assert "我估" in text and "我没用上" not in text


def test_minutes_a_clip_give_clips_a_day(dialog: Dialog) -> None:
    text = lead(dialog, "with HunyuanVideo a clip takes 25 minutes, how many clips per day?", "en")
    assert "about 57.6 clips a day" in text  # 1,440 / 25
    assert "My estimate for" in text


def test_an_rtf_and_a_backlog_give_the_backlogs_hours(dialog: Dialog) -> None:
    text = lead(dialog, "whisper large-v3 RTF 0.1，1000 小时音频要多久")
    assert "1,000 小时音频单卡约要 100 小时" in text  # 1,000 × 0.1


def test_an_rtf_alone_gives_an_hours_minutes(dialog: Dialog) -> None:
    text = lead(dialog, "faster-whisper 實時率 0.05 大概什麼水平")
    assert "3 分鐘" in text and "20 倍實時" in text  # 60 × 0.05; 1 / 0.05


def test_minutes_an_epoch_give_the_runs_hours(dialog: Dialog) -> None:
    text = lead(dialog, "training yolov8 on 50000 images at 20 minutes per epoch for 100 epochs", "en")
    assert "100 epochs take about 33.33 hours" in text  # 100 × 20 / 60
    assert "minutes per epoch," in text  # the engine's own figure follows


def test_the_engines_estimate_is_for_the_card_named(dialog: Dialog) -> None:
    text = lead(dialog, "Flux at 12 s per image on an L40S, how many a day?", "en")
    assert "7,200 images a day" in text and "My estimate for L40S" in text


def test_a_speed_in_the_wrong_family_is_not_read_as_one(dialog: Dialog) -> None:
    msg = read_message("Wan2.1 14B 每张 8 秒", dialog.vocab)
    assert "s_per_image" not in msg.job_slots
