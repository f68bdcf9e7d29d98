"""A job that is not a language model's is answered in chat with the same card as a plan.

Each family is sized by the engine's own planner (``engine.jobs``) from what the message
said: the pick from the catalog and its price, the number that decides the job, its unit
cost; ``/why`` ``/alt`` ``/cmd`` ``/cost`` unfold the same plan, a later turn changes the
job held, and no reply ever puts a language model in place of the named job.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.bot.dialog.reply import Reply
from gpu_advisor.bot.storage import Storage
from gpu_advisor.engine.specs import Knowledge

Turn = tuple[Reply, ConversationState]


def say(dialog: Dialog, *texts: str, state: ConversationState | None = None) -> Turn:
    """The conversation's last reply and state after each text in turn."""
    state = state or ConversationState()
    reply: Reply | None = None
    for text in texts:
        reply, state = dialog.handle(state, text)
    assert reply is not None
    return reply, state


def llm_names(kb: Knowledge) -> list[str]:
    return [m.name for m in kb.models.values()]


@pytest.mark.parametrize(
    ("text", "family", "model", "metric"),
    [
        ("SDXL 在 4090 上出一张图要多久", "image_gen", "Stable Diffusion XL 1.0", "s_per_image"),
        ("whisper large-v3 转写 1000 小时音频要多久多少钱", "speech", "whisper-large-v3", "x_realtime"),
        ("bge-m3 给 100 万篇文档建索引", "embedding", "bge-m3", "tokens_per_s"),
        ("YOLOv8 训练 5 万张图 100 epoch", "vision_train", "yolov8m", "images_per_s"),
        ("一张 L4 能同时转码几路 1080p H.264", "video_encode", "h264", "streams_per_card"),
        ("Wan2.1 14B 720p 生成 5 秒视频要多少显存", "video_gen", "Wan2.1 T2V 14B", "minutes_per_clip"),
        ("用 kohya 给 SDXL 训练 LoRA，30 张图 10 轮", "image_train", "Stable Diffusion XL 1.0", "s_per_step"),
    ],
)
def test_a_direct_question_gets_a_priced_pick_for_its_own_model(
    dialog: Dialog, kb: Knowledge, text: str, family: str, model: str, metric: str
) -> None:
    reply, state = say(dialog, text)
    assert reply.kind == "answer" and reply.job is not None and reply.job.family == family
    assert reply.job.model == model and reply.job.pick is not None
    assert metric in {m.id for m in reply.job.pick.metrics}
    assert reply.price and "¥" in reply.price and reply.pick
    assert not any(name in reply.text for name in llm_names(kb))
    assert state.job is not None and state.job.family == family


def test_a_named_card_the_catalog_lacks_is_answered_for_that_card_and_priced_on_the_nearest(
    dialog: Dialog,
) -> None:
    reply, _ = say(dialog, "SDXL 在 4090 上出一张图要多久")
    assert reply.job is not None and reply.job.pick is not None and reply.job.pick.gpu != "rtx4090"
    assert reply.summary[0].startswith("在 RTX 4090 上") and "每张" in reply.summary[0]


def test_a_volume_sizes_the_fleet_and_the_defaults_are_said(dialog: Dialog) -> None:
    reply, _ = say(dialog, "每天要出 5000 张 SDXL 图，租什么卡")
    assert reply.kind == "answer" and reply.job is not None
    assert "每天 5,000 张图" in reply.lead[0]
    assert "1,024×1,024" in reply.text and "30 步" in reply.text


def test_a_sizing_request_without_its_volume_asks_it_once_with_buttons(dialog: Dialog) -> None:
    question, state = say(dialog, "SDXL 租什么卡")
    assert question.kind == "question" and question.title == locales.t("zh", "jobchat.ask.images_per_day")
    assert [b.payload for b in question.buttons][:3] == [f"jq:images_per_day:{i}" for i in range(3)]
    answer, state = dialog.press(state, "jq:images_per_day:1")
    assert answer.kind == "answer" and answer.job is not None and "每天 5,000 张图" in answer.lead[0]
    again, _ = say(dialog, "每天 2 万张呢", state=state)
    assert again.kind == "answer" and "每天 20,000 张图" in again.lead[0]


def test_a_typed_answer_to_the_jobs_question_is_taken(dialog: Dialog) -> None:
    _, state = say(dialog, "训练 YOLO 模型要什么卡")
    assert state.pending == "job.dataset_images"
    reply, state = say(dialog, "5万", state=state)
    assert reply.kind == "answer" and state.job is not None and state.job.slots["dataset_images"] == 50_000


def test_a_follow_up_changes_the_model_and_keeps_the_rest(dialog: Dialog, kb: Knowledge) -> None:
    reply, state = say(dialog, "每天要出 5000 张 SDXL 图，租什么卡", "换成 Flux 呢")
    assert reply.job is not None and reply.job.model == "FLUX.1 [dev]"
    assert state.job is not None and state.job.slots["images_per_day"] == 5000
    assert not any(name in reply.text for name in llm_names(kb))


def test_a_bigger_volume_needs_more_machines(dialog: Dialog) -> None:
    first, state = say(dialog, "每天要出 5000 张 SDXL 图，租什么卡")
    more, _ = say(dialog, "每天 2 万张呢", state=state)
    assert first.job is not None and more.job is not None and first.job.pick and more.job.pick
    assert more.job.pick.gpus * more.job.pick.machines > first.job.pick.gpus * first.job.pick.machines


def test_cheaper_answers_with_the_options_of_the_job_held(dialog: Dialog) -> None:
    reply, _ = say(dialog, "What GPU should I rent for SDXL, 5000 images a day?", "cheaper?")
    assert reply.lang == "en" and reply.job is not None and reply.job.family == "image_gen"
    assert any(s.id == "alternatives" for s in reply.sections)


@pytest.mark.parametrize(
    ("command", "section"), [("/why", "reasoning"), ("/alt", "alternatives"), ("/cmd", "commands")]
)
def test_the_folds_unfold_the_job_plan(dialog: Dialog, command: str, section: str) -> None:
    _, state = say(dialog, "whisper large-v3 转写 1000 小时音频要多久多少钱")
    reply, _ = dialog.handle(state, command)
    assert reply.job is not None and reply.job.family == "speech"
    assert any(s.id == section and s.lines for s in reply.sections)


def test_why_shows_the_arithmetic_and_cmd_the_tools_command(dialog: Dialog) -> None:
    _, state = say(dialog, "YOLOv8 训练 5 万张图 100 epoch")
    why, _ = dialog.handle(state, "/why")
    cmd, _ = dialog.handle(state, "/cmd")
    assert "GFLOPs" in why.text and "5,000,000" in why.text
    assert "yolo train model=yolov8m.pt" in cmd.text


def test_cost_gives_the_backlogs_hours_and_cost(dialog: Dialog) -> None:
    _, state = say(dialog, "whisper large-v3 转写 1000 小时音频要多久多少钱")
    reply, _ = dialog.handle(state, "/cost")
    assert "41.4 小时" in reply.text and "每小时音频" in reply.text


def test_a_traditional_writer_gets_the_card_in_traditional(dialog: Dialog) -> None:
    reply, _ = say(dialog, "每天要出 5000 張 SDXL 圖，租什麼卡")
    assert reply.kind == "answer" and reply.job is not None
    assert "張" in reply.text and "张" not in reply.text


def test_an_english_question_is_answered_in_english(dialog: Dialog) -> None:
    reply, _ = say(dialog, "How long to transcribe 1000 hours of audio with whisper large-v3?")
    assert reply.lang == "en" and reply.job is not None and reply.job.family == "speech"
    assert "real time" in reply.text and "/month" in (reply.price or "")


def test_two_codecs_read_as_source_and_output(dialog: Dialog) -> None:
    _, state = say(dialog, "H.264 转 H.265，4K 60帧，一张 L4 能同时跑几路")
    assert state.job is not None and state.job.slots["codec"] == "H265"
    assert state.job.slots["source_codec"] == "H264"


def test_a_language_model_after_a_job_is_the_language_model_flow_again(dialog: Dialog) -> None:
    _, state = say(dialog, "SDXL 在 4090 上出一张图要多久", "我想部署一个13B的模型")
    assert state.job is None


def test_stored_rows_without_a_job_still_load() -> None:
    assert ConversationState.model_validate_json('{"version": 1, "lang": "en"}').job is None


def test_the_store_round_trips_the_job_and_a_follow_up_goes_on_from_it(
    dialog: Dialog, store_at: Callable[..., Storage]
) -> None:
    _, state = say(dialog, "每天要出 5000 张 SDXL 图，租什么卡")
    store = store_at()
    store.save("web", "c", "u", state)
    again = store.load("web", "c", "u")
    assert again.job == state.job
    reply, _ = say(dialog, "换成 Flux 呢", state=again)
    assert reply.job is not None and reply.job.model == "FLUX.1 [dev]"


def test_numbers_the_contract_refuses_are_said_back_as_read_not_sized_as_a_chatbot(dialog: Dialog) -> None:
    reply, _ = say(dialog, "SDXL 每天 5000 张图，500 步")
    assert reply.job is None and reply.plan is None
    assert "500 步" in reply.text and "不是大语言模型任务" in reply.text


def test_a_number_the_job_does_not_use_is_said_back(dialog: Dialog) -> None:
    reply, _ = say(dialog, "whisper 转写 1000 小时音频，分 4 批")
    assert reply.job is not None and "「4」" in reply.lead[1]


def test_a_bare_amount_changes_the_jobs_volume(dialog: Dialog) -> None:
    reply, state = say(dialog, "bge-m3 给 100 万篇文档建索引", "1000万篇呢")
    assert reply.job is not None and state.job is not None and state.job.slots["documents"] == 10_000_000
    assert "1000" not in reply.lead[-1] or len(reply.lead) == 1  # the amount was used, not said back


def test_a_cards_own_price_while_a_job_is_held_is_the_price_lookup(dialog: Dialog) -> None:
    reply, state = say(dialog, "每天要出 5000 张 SDXL 图，租什么卡", "一张 4090 包月多少")
    assert reply.job is None and state.job is not None and state.job.gpu is None


def test_a_comparison_while_a_job_is_held_is_the_comparison(dialog: Dialog) -> None:
    reply, _ = say(dialog, "每天要出 5000 张 SDXL 图，租什么卡", "L40S 和 A6000 哪个好")
    assert reply.job is None and "L40S" in reply.text and "A6000" in reply.text


def test_faster_shows_the_other_options_of_the_job(dialog: Dialog) -> None:
    reply, _ = say(dialog, "每天要出 5000 张 SDXL 图，租什么卡", "快一点的呢")
    assert reply.job is not None and any(s.id == "alternatives" for s in reply.sections)


def test_the_folds_and_the_buttons_stay_traditional_for_a_traditional_writer(dialog: Dialog) -> None:
    _, state = say(dialog, "SDXL 租什麼卡，要出圖")
    answer, state = dialog.press(state, "jq:images_per_day:1")
    why, _ = dialog.handle(state, "/why")
    assert "張" in answer.text and "张" not in answer.text
    assert "計算" in why.text or "顯存" in why.text or "張" in why.text
    assert "张" not in why.text


def test_a_video_models_memory_question_gets_the_whole_pipelines_memory(dialog: Dialog) -> None:
    reply, _ = say(dialog, "Wan2.1 14B 720p 生成 5 秒视频要多少显存")
    assert any("54.8 GiB" in line and "文本编码器" in line for line in reply.summary)
    assert "每张卡显存" in reply.text


def test_cameras_at_a_frame_rate_are_the_images_a_second_to_serve(dialog: Dialog) -> None:
    reply, state = dialog.handle(ConversationState(lang="en"), "YOLO detection on 12 RTSP cameras at 25 fps")
    assert reply.job is not None and reply.job.pick is not None and state.job is not None
    served = reply.job.pick.metrics[0]
    assert served.id == "images_per_s" and served.value >= 12 * 25


def test_a_mig_slice_is_named_a_slice(dialog: Dialog) -> None:
    reply, _ = say(dialog, "bge-m3 给 100 万篇文档建索引")
    assert reply.job is not None and reply.job.pick is not None and reply.job.pick.offer_id.endswith("mig-1g")
    assert "MIG 1g.5gb 切片" in (reply.pick or "")


@pytest.mark.parametrize("text", ["/order", "那就租这个"])
def test_ordering_a_job_gives_its_pick_not_a_language_model_error(dialog: Dialog, text: str) -> None:
    _, state = say(dialog, "每天要出 5000 张 SDXL 图，租什么卡")
    reply, _ = dialog.handle(state, text)
    assert reply.kind == "card" and reply.job is not None and "¥2,800/月" in (reply.title or "")


def test_a_model_swap_while_training_stays_training(dialog: Dialog) -> None:
    reply, state = say(dialog, "用 kohya 给 SDXL 训练 LoRA，30 张图 10 轮", "换成 Flux 呢")
    assert reply.job is not None and reply.job.family == "image_train" and reply.job.model == "FLUX.1 [dev]"
    assert state.job is not None and state.job.slots["dataset_images"] == 30
