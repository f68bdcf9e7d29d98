"""Every non-LLM job card shows what one unit of its work costs, in chat and in the JSON (issue 44).

The unit price is the pick's hourly rate (a monthly price ÷ 720 h) over the units it makes
an hour. Catalog prices (knowledge/catalog.yaml): T4 ¥900/月 = ¥1.25 an hour, RTX 3090
¥1,750/月. Golden figures:
- SDXL LoRA on 200 images, 20,000 steps on a T4 at 7.62 s a step = 42.32 h × ¥1.25 = ¥52.9
  per training run (the billed month stays ¥900, said on the job-cost line).
- SDXL images on a 3090: ¥1,750 ÷ 720 ÷ 601 images an hour × 1,000 = ¥4.05 per 1,000 images.
- 1080p transcoding on a T4: ¥900 a month ÷ 15 streams = ¥60 per stream-month.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.job_contract import answer, job_from
from gpu_advisor.engine.specs import Knowledge
from tests.dialogs import simplified, talk

CHATS: list[tuple[str, str]] = [
    ("帮我算下：拿 SDXL 一天出一万张图，得租啥卡", "每千张 ¥4.05"),
    ("SDXL, 10,000 images a day, what should I rent?", "CN¥4.05 per 1,000 images"),
    ("想用 200 張照片練一個 SDXL 的 LoRA，租哪張卡", "每次训练 ¥52.9"),
    ("fine-tune an SDXL LoRA from 200 photos, which card to rent?", "CN¥52.9 per training run"),
    ("Wan2.1 一天要出 100 段 5 秒的影片，租什麼", "每条 ¥"),
    ("make 100 five-second clips a day with Wan2.1, what GPU?", "per clip"),
    ("Whisper large-v3 转写 500 小时会议录音，租啥", "每小时音频 ¥"),
    ("need to transcribe 500 hours of calls with whisper large-v3, which GPU", "per hour of audio"),
    ("bge-m3 給 20 萬篇文件建向量索引，租什麼卡", "每百万 token ¥"),
    ("index 200k documents with bge-m3 embeddings, which GPU?", "per million tokens"),
    ("YOLOv8 同时跑 20 路摄像头检测，用什么卡", "每百万张 ¥"),
    ("YOLOv8 on 20 camera feeds in real time, what GPU?", "per million images"),
    ("50 路 1080p 直播同时转码，租什么卡", "每路每月 ¥60"),
    ("transcode fifty 1080p live streams at once, which GPU?", "CN¥60 per stream-month"),
]


@pytest.mark.parametrize(("text", "unit"), CHATS, ids=[t for t, _ in CHATS])
def test_a_job_card_in_chat_names_its_unit_price(dialog: Dialog, text: str, unit: str) -> None:
    reply, _ = talk(dialog, text)
    assert unit in simplified(reply.text), reply.text


REQUESTS: list[dict[str, object]] = [
    {"family": "image_gen", "model": "sdxl", "images_per_day": 10000},
    {"family": "image_train", "model": "sdxl", "images": 200},
    {"family": "video_gen", "model": "wan2.1", "clips_per_day": 100},
    {"family": "speech", "model": "whisper-large-v3", "audio_hours": 500},
    {"family": "embedding", "model": "bge-m3", "documents": 200000},
    {"family": "vision_infer", "model": "yolov8", "images_per_s": 140},
    {"family": "vision_train", "model": "yolo11m", "images": 100000},
    {"family": "video_encode", "streams": 50},
]


@pytest.mark.parametrize("request_", REQUESTS, ids=[str(r["family"]) for r in REQUESTS])
def test_every_job_family_fills_the_json_unit_price(kb: Knowledge, request_: dict[str, object]) -> None:
    price = answer(job_from(request_), kb, "en").unit_price
    assert price is not None and price.value > 0 and price.text


def test_an_image_training_run_is_priced_per_run_first(kb: Knowledge) -> None:
    price = answer(job_from({"family": "image_train", "model": "sdxl", "images": 200}), kb, "en").unit_price
    assert price is not None and price.id == "per_run"
    assert price.value == pytest.approx(42.32 * 900 / 720, abs=0.05)  # hours × T4's hourly rate
