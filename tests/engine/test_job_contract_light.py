"""The light families through the job contract every surface uses (``bot.job_contract``):
JSON in, a priced plan and its sentences out, in the language asked."""

from __future__ import annotations

from gpu_advisor.bot.job_contract import answer, job_from
from gpu_advisor.engine.specs import Knowledge


def test_a_transcription_backlog_is_priced_and_told_it_is_audio_in_chinese(kb: Knowledge) -> None:
    reply = answer(job_from({"family": "speech", "model": "whisper-large-v3", "audio_hours": 1000}), kb, "zh")
    assert reply.plan.pick is not None and reply.plan.pick.gpu == "t4"
    assert any("音频时长，不是租用时长" in line for line in reply.text)


def test_an_embedding_collection_is_sized_in_hours_with_its_arithmetic_in_english(kb: Knowledge) -> None:
    job = {"family": "embedding", "model": "bge-m3", "documents": 1_000_000, "tokens_per_document": 500}
    reply = answer(job_from(job), kb, "en")
    assert reply.plan.sized and reply.plan.pick is not None and reply.plan.pick.job_hours
    assert any("1,000,000 documents take about" in line for line in reply.text)


def test_a_transcoding_job_names_the_cards_without_an_encoder(kb: Knowledge) -> None:
    reply = answer(job_from({"family": "video_encode", "codec": "h264", "streams": 4}), kb, "en")
    assert reply.plan.pick is not None and reply.plan.pick.gpu not in {"a100-40g-sxm", "h100-sxm"}
    assert any("No hardware video encoder (NVENC)" in line for line in reply.text)


def test_a_yolo_training_run_carries_the_yolo_train_command(kb: Knowledge) -> None:
    reply = answer(
        job_from({"family": "vision_train", "model": "yolo11s", "images": 5000, "epochs": 100}), kb
    )
    assert reply.plan.tool == "ultralytics" and reply.plan.command is not None
    assert reply.plan.command.startswith("yolo train model=yolo11s.pt")
