"""A yes/no question about a named card and a non-LLM job is answered yes or no first (issue 43).

"Can this card do it?" is answered on that card, before any priced pick: 能/不能 (yes/no),
the memory the job needs against what the card holds, and for a stated rate (images a
day, live streams) whether one card keeps up or how many it takes. The verdict comes from
the family's own planner run on the named card alone (``engine.jobs.verdict``), so it never
disagrees with the arithmetic under it. The phrasings are our own.
"""

from __future__ import annotations

import pytest

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.engine.jobs.request import parse_job
from gpu_advisor.engine.jobs.verdict import on_card
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.jobs import books


def first_line(dialog: Dialog, text: str) -> str:
    reply, _ = dialog.handle(ConversationState(), text)
    return reply.text.splitlines()[0]


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("两张 4090 能不能跑 Wan2.1 14B 720p 视频", "不能"),
        ("T4 能不能训练 Flux 的 LoRA", "不能"),
        ("A10 夠不夠跑 HunyuanVideo", "不能"),
        ("一张 4090 跑得动 SDXL 吗", "能"),
        ("T4 能跑 bge-m3 吗", "能"),
        ("一張 L4 能跑 SDXL 嗎", "能"),
    ],
)
def test_a_chinese_fit_question_leads_with_yes_or_no_and_the_memory(
    dialog: Dialog, text: str, verdict: str
) -> None:
    line = first_line(dialog, text)
    assert line.startswith(verdict + "：")
    assert line.count("GiB") == 2  # what it needs and what the card holds


@pytest.mark.parametrize(
    ("text", "verdict"),
    [("Can a T4 run SDXL?", "Yes"), ("Is an RTX 4090 enough to train a Flux LoRA?", "No")],
)
def test_an_english_fit_question_leads_with_yes_or_no(dialog: Dialog, text: str, verdict: str) -> None:
    assert first_line(dialog, text).startswith(verdict + ":")


def test_a_card_too_small_says_what_the_job_needs_against_what_it_holds(dialog: Dialog) -> None:
    line = first_line(dialog, "我有一张 3090，能跑 SD3.5 Large 吗")
    assert line.startswith("不能") and "28.9 GiB" in line and "23.7 GiB" in line


def test_a_card_too_small_in_bf16_says_when_fp8_weights_fit(dialog: Dialog) -> None:
    line = first_line(dialog, "RTX 4090 跑得动 Flux dev 吗")
    assert line.startswith("不能") and "FP8" in line and "装得下" in line


def test_a_stated_stream_count_the_card_meets_is_said_to_keep_up(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "is an L40S enough for whisper large-v3 on 8 live streams?")
    lines = reply.text.splitlines()
    assert lines[0].startswith("Yes:")
    assert "keeps up" in lines[1]


def test_a_stated_stream_count_beyond_one_card_says_how_many_it_takes(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "can one T4 handle whisper large-v3 for 50 live streams?")
    second = reply.text.splitlines()[1]
    assert "does not keep up" in second and "about 9 of them" in second


def test_a_daily_volume_beyond_one_card_is_sized_for_its_busiest_hour(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "一张 A10 能跑 SDXL 每天 5 万张吗")
    second = reply.text.splitlines()[1]
    assert "跟不上" in second and "最忙" in second


def test_the_verdict_comes_before_the_priced_pick(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "T4 能跑 bge-m3 吗")
    assert reply.pick is not None
    assert reply.text.index("能：") < reply.text.index(reply.pick)


def test_a_sizing_question_gets_no_verdict(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "SDXL 在 4090 上出一张图要多久")
    assert not reply.text.startswith(("能", "不能"))


def test_the_engine_verdict_is_the_planner_on_the_named_card_alone(kb: Knowledge) -> None:
    request = parse_job({"family": "speech", "model": "whisper-large-v3", "live_streams": 50})
    found = on_card(request, kb, books(), "t4")
    assert found.runs and found.rate_stated and not found.keeps_up
    assert found.option is not None and found.option.gpu == "t4"
    assert found.card_gib == pytest.approx(kb.gpus["t4"].usable_gib, abs=0.01)


def test_a_job_too_big_for_the_card_has_no_option_and_its_memory(kb: Knowledge) -> None:
    found = on_card(parse_job({"family": "image_gen", "model": "sd3.5-large"}), kb, books(), "rtx3090")
    assert not found.runs and found.option is None
    assert found.need_gib is not None and found.card_gib is not None and found.need_gib > found.card_gib


def test_the_real_catalog_is_untouched(kb: Knowledge) -> None:
    before = len(kb.catalog.offers)
    on_card(parse_job({"family": "embedding"}), kb, books(), "t4")
    assert len(kb.catalog.offers) == before == len(knowledge.load().catalog.offers)


def test_a_daily_volume_with_the_model_between_number_and_images_is_the_rate(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "is one H100 enough for 2000 SDXL images a day?")
    lines = reply.text.splitlines()
    assert lines[0].startswith("Yes:") and "keeps up" in lines[1]
    assert "2000" not in reply.text  # read as the volume, not said back as unused


def test_a_fit_question_after_a_job_is_about_that_job_on_the_card_named(dialog: Dialog) -> None:
    state = ConversationState()
    _, state = dialog.handle(state, "SDXL 每天 5000 张图")
    reply, state = dialog.handle(state, "一张 T4 能跑吗")
    assert reply.text.startswith("能：1 张 T4")
    assert "跟不上" in reply.text.splitlines()[1]
    assert state.job is not None and state.job.gpu == "t4"
