"""A reply names the model as the user wrote it; the JSON keeps the knowledge's name (issue 43).

Someone who writes "SDXL" or "Flux dev" reads "SDXL" back, not "Stable Diffusion XL 1.0" or
"FLUX.1 [dev]" — in the card's first line, in the findings that name the model, in /why, in
both languages. The plan (``reply.job``, the API's body) keeps the canonical name so a site
or a script can key on it.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog


@pytest.mark.parametrize(
    ("text", "said", "canonical"),
    [
        ("SDXL 每天 5000 张 租什么卡", "SDXL", "Stable Diffusion XL 1.0"),
        ("I need Flux dev for 3000 images a day", "Flux dev", "FLUX.1 [dev]"),
        ("Wan2.1 14B 720p 生成 5 秒视频要多少显存", "Wan2.1 14B", "Wan2.1 T2V 14B"),
        ("用 kohya 给 SDXL 训练 LoRA，30 张图 10 轮", "SDXL", "Stable Diffusion XL 1.0"),
    ],
)
def test_the_card_names_the_model_as_the_user_wrote_it(
    dialog: Dialog, text: str, said: str, canonical: str
) -> None:
    reply, _ = dialog.handle(ConversationState(), text)
    assert reply.job is not None and reply.job.model == canonical
    assert said in reply.lead[0]
    assert canonical not in reply.text


def test_findings_under_why_echo_the_users_name(dialog: Dialog) -> None:
    _, state = dialog.handle(ConversationState(), "SDXL 每天 5000 张 租什么卡")
    why, _ = dialog.handle(state, "/why")
    assert "SDXL（fp16" in why.text and "Stable Diffusion XL 1.0" not in why.text


def test_an_english_warning_names_whisper_as_written(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "transcribe 1000 hours of audio with whisper large-v3")
    assert reply.job is not None and reply.job.model == "whisper-large-v3"
    assert "whisper large-v3 is a light job" in reply.text and "Whisper large-v3" not in reply.text


def test_a_later_model_swap_echoes_the_new_name(dialog: Dialog) -> None:
    _, state = dialog.handle(ConversationState(), "I need Flux dev for 3000 images a day")
    reply, _ = dialog.handle(state, "switch to SDXL")
    assert reply.job is not None and reply.job.model == "Stable Diffusion XL 1.0"
    assert "SDXL" in reply.lead[0] and "Flux dev" not in reply.text
