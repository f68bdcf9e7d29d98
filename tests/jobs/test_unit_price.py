"""Every job answer carries what one unit of its work costs, on every surface (issue 43).

A renter compares a GPU job by its unit price — ¥ per 1,000 images, per clip, per hour of
audio, per million embedded tokens, per stream-month — so the chat card prints it beside the
deciding number, and ``gpu-advisor job`` and ``POST /api/job`` return it as ``unit_price``
(the pick's first unit cost, worded in the language asked), an added field beside the plan.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.bot.job_cli import add_job_command
from gpu_advisor.bot.job_contract import answer, job_from
from gpu_advisor.engine.specs import Knowledge
from tests.test_web_api import post, serving


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("每天要出 5000 张 SDXL 图，租什么卡", "每千张 ¥"),
        ("Wan2.1 14B 720p 生成 5 秒视频要多久", "每条 ¥"),
        ("whisper large-v3 转写 1000 小时音频要多久多少钱", "每小时音频 ¥"),
        ("bge-m3 给 100 万篇文档建索引", "每百万 token ¥"),
        ("20 路 1080p H.264 直播转码租什么", "每路每月 ¥"),
        ("embed 1 million documents with bge-m3", "per million tokens"),
        ("transcode 20 live 1080p H.264 streams, what should I rent", "per stream-month"),
    ],
)
def test_the_first_card_shows_the_jobs_unit_price(dialog: Dialog, text: str, words: str) -> None:
    reply, _ = dialog.handle(ConversationState(), text)
    assert reply.kind == "answer" and reply.job is not None
    assert any(words in line for line in reply.summary), reply.summary


def test_a_stream_month_is_the_machines_month_over_the_streams_it_holds(kb: Knowledge) -> None:
    got = answer(job_from({"family": "video_encode", "codec": "h264", "streams": 20}), kb, "en")
    assert got.plan.pick is not None and got.unit_price is not None
    # the shipped catalog's T4 at ¥900 a month holds 15 real-time 1080p H.264 streams
    # (encoding.py: two NVENC sessions' 461 fps engine ÷ 30 fps): ¥900 ÷ 15 = ¥60
    assert got.plan.pick.gpu == "t4"
    assert got.unit_price.id == "per_stream_month" and got.unit_price.value == pytest.approx(60.0)
    assert got.unit_price.text == "CN¥60 per stream-month"


def test_the_cli_answer_carries_the_unit_price(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = tmp_path / "job.json"
    request.write_text(json.dumps({"family": "speech", "audio_hours": 1000}), encoding="utf-8")
    parser = argparse.ArgumentParser()
    add_job_command(parser.add_subparsers())
    args = parser.parse_args(["job", "--json", str(request), "--say", "zh"])
    assert args.func(args) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["unit_price"]["id"] == "per_audio_hour"
    assert body["unit_price"]["text"].startswith("每小时音频 ¥")


async def test_the_api_answer_carries_the_unit_price(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, body = await post(
            client, "/api/job?lang=en", {"family": "image_gen", "model": "sdxl", "images_per_day": 5000.0}
        )
    assert status == 200
    assert body["unit_price"]["id"] == "per_1000_images" and body["unit_price"]["currency"] == "CNY"
    assert body["unit_price"]["text"].endswith("per 1,000 images")
    assert body["plan"]["pick"]["unit_costs"][0]["value"] == body["unit_price"]["value"]


def test_an_unsized_job_has_no_unit_price(kb: Knowledge) -> None:
    got = answer(job_from({"family": "speech", "model": "whisper-xxl", "audio_hours": 10.0}), kb, "en")
    assert not got.plan.sized and got.unit_price is None
