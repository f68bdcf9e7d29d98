"""An image fine-tune's repeats and batch are read as the run's own numbers (issue 43).

kohya counts optimizer steps as images × repeats × epochs ÷ batch; a message that says
"每张重复 10 次" or "batch size 4" must change the steps the plan reports, not be said
back as a number nobody used. The phrasings are our own.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.reading.message import read_message


@pytest.mark.parametrize(
    ("text", "repeats", "batch"),
    [
        ("kohya 训练 SDXL LoRA，40 张图每张重复 10 次，8 轮，batch 2", 10, 2),
        ("SDXL LoRA 訓練 50 張圖，重複 5 次，10 輪，批大小 2", 5, 2),
        ("Train a Flux LoRA on 30 images, 20 repeats, 10 epochs, batch size 4", 20, 4),
        ("LoRA for SDXL with 25 photos, repeats=8, bs=3, 6 epochs", 8, 3),
    ],
)
def test_repeats_and_batch_of_a_lora_run_are_read(
    dialog: Dialog, text: str, repeats: int, batch: int
) -> None:
    msg = read_message(text, dialog.vocab)
    assert msg.job == "image_train"
    assert (msg.job_slots["repeats"], msg.job_slots["batch"]) == (repeats, batch)
    assert not msg.unplaced


def test_a_batch_outside_a_fine_tune_is_not_a_training_batch(dialog: Dialog) -> None:
    msg = read_message("SDXL 每天出 5000 张图，batch 4", dialog.vocab)
    assert "batch" not in msg.job_slots


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("kohya 训练 SDXL LoRA，40 张图每张重复 10 次，8 轮，batch 2", 40 * 10 * 8 // 2),
        ("Train a Flux LoRA on 30 images, 20 repeats, 10 epochs, batch size 4", 30 * 20 * 10 // 4),
        ("SDXL LoRA 訓練 50 張圖，重複 5 次，10 輪，批大小 2", 50 * 5 * 10 // 2),
    ],
)
def test_the_plans_steps_are_images_times_repeats_times_epochs_over_batch(
    dialog: Dialog, text: str, steps: int
) -> None:
    reply, _ = dialog.handle(ConversationState(), text)
    assert reply.job is not None and reply.job.pick is not None
    metrics = {m.id: m.value for m in reply.job.pick.metrics}
    assert metrics["steps"] == steps
