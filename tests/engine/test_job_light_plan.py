"""The four light families (speech, embeddings, vision, encoding) assemble their plan in one
place, ``engine.rules.jobs.light_plan``: the pick and at most three others, the rules'
findings after a named card's note, the family's own findings last, the arithmetic for /why.
"""

from __future__ import annotations

import pytest

from gpu_advisor.engine.jobs import light
from gpu_advisor.engine.jobs.speeds import JobKnowledge
from gpu_advisor.engine.rules import jobs as job_rules
from gpu_advisor.engine.rules.jobs import JobContext
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.job_speeds import load_jobs


@pytest.fixture(scope="module")
def jobs() -> JobKnowledge:
    return load_jobs()


def test_no_option_is_an_unsized_plan_that_keeps_its_command(jobs: JobKnowledge, kb: Knowledge) -> None:
    req = light.parse({"family": "speech", "audio_hours": 10})
    ctx = JobContext("speech", req, kb, jobs, [], "Whisper large-v3")
    plan = job_rules.light_plan(ctx, "whisper-large-v3", [], [], command="whisper a.wav", tool="whisper")
    assert not plan.sized and plan.pick is None and plan.alternatives == []
    assert plan.command == "whisper a.wav"


@pytest.mark.parametrize(
    "request_",
    [
        {"family": "speech", "audio_hours": 1000},
        {"family": "embedding", "documents": 1_000_000},
        {"family": "vision_train", "model": "resnet-50", "images": 1_281_167, "epochs": 90},
        {"family": "vision_infer", "model": "yolo11n", "images_per_s": 500},
    ],
)
def test_every_light_family_shows_its_arithmetic_under_why(
    jobs: JobKnowledge, kb: Knowledge, request_: dict[str, object]
) -> None:
    plan = light.plan_job(request_, kb, jobs)
    assert plan.sized and plan.assumptions
    assert len(plan.alternatives) <= 3


def test_encoding_adds_its_streams_after_the_rules_and_no_assumptions(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    plan = light.plan_job({"family": "video_encode", "codec": "h264", "streams": 4}, kb, jobs)
    assert plan.assumptions == []
    assert plan.findings[-1].id == "encode_streams"


def test_vision_names_the_tool_people_use_for_each_model(jobs: JobKnowledge, kb: Knowledge) -> None:
    yolo = light.plan_job({"family": "vision_infer", "model": "yolo11n", "images_per_s": 50}, kb, jobs)
    resnet = light.plan_job(
        {"family": "vision_train", "model": "resnet-50", "images": 10_000, "epochs": 1}, kb, jobs
    )
    vit = light.plan_job({"family": "vision_infer", "model": "vit-l-16", "images_per_s": 50}, kb, jobs)
    assert (yolo.tool, resnet.tool, vit.tool) == ("ultralytics", "torchvision", "tensorrt")
