"""A named model the family cannot size is said to be so; no other model stands in (issue 43).

"Mochi 1" is not Wan2.1, "Playground v2.5" not SDXL, XTTS's speech synthesis not
Whisper's transcription: sizing the family's default in their place answers a question
nobody asked. The reply says the model cannot be sized and lists the ones that can, and it
never names a language model.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.job_names import UNSIZED, unsized_in


@pytest.mark.parametrize(
    ("text", "family", "named"),
    [
        ("Playground v2.5 每天 1000 张图 租什么卡", "image_gen", "Playground"),
        ("用 SD 2.1 每天出 2000 张", "image_gen", "SD 2.1"),
        ("Mochi 1 生成 5 秒视频要多少显存", "video_gen", "Mochi"),
        ("AnimateDiff 生成视频用什么卡", "video_gen", "AnimateDiff"),
        ("XTTS 语音合成 每天 1000 小时", "speech", "XTTS"),
        ("I want to run XTTS text-to-speech for my app", "speech", "XTTS"),
    ],
)
def test_a_model_the_family_cannot_size_is_named_and_not_replaced(
    dialog: Dialog, kb: Knowledge, text: str, family: str, named: str
) -> None:
    reply, _ = dialog.handle(ConversationState(), text)
    assert reply.job is not None and reply.job.family == family
    assert not reply.job.sized and reply.job.pick is None and reply.job.model == named
    assert f"“{named}”" in reply.text
    assert not any(m.name in reply.text for m in kb.models.values())


def test_a_known_model_beside_an_unsized_word_is_still_sized(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "SDXL 每天 5000 张 租什么卡")
    assert reply.job is not None and reply.job.sized and reply.job.model == "Stable Diffusion XL 1.0"


def test_unsized_names_match_whole_words_only() -> None:
    assert unsized_in("image_gen", "same as before, 1000 images a day") is None
    assert unsized_in("image_gen", "sam 分割") == "sam"


def test_every_family_with_unsized_names_is_a_job_family() -> None:
    from typing import get_args

    from gpu_advisor.engine.jobs.plan import JobFamily

    assert set(UNSIZED) <= set(get_args(JobFamily))


def test_a_model_it_cannot_size_is_not_asked_its_volume_first(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "SAM 分割 100 万张图")
    assert reply.kind == "answer" and reply.job is not None and not reply.job.sized
    assert "“SAM”" in reply.text
