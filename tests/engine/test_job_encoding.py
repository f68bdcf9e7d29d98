"""Video encoding: NVENC per card, AV1 from Ada on, GeForce's session cap, ffmpeg on NVENC."""

from __future__ import annotations

import pytest

from gpu_advisor.engine.jobs import encoding
from gpu_advisor.engine.jobs.encoding import EncodeRequest
from gpu_advisor.engine.jobs.speeds import JobKnowledge
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.job_speeds import load_jobs
from tests.engine.jobs_helpers import catalog_of, offer


@pytest.fixture(scope="module")
def jobs() -> JobKnowledge:
    return load_jobs()


def test_an_a100_has_no_nvenc_so_a_transcoding_job_is_never_placed_there(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    cheap_a100 = catalog_of(kb, offer("a100-40g-sxm", 100), offer("t4", 900))
    plan = encoding.plan(EncodeRequest(codec="h264", streams=4), cheap_a100, jobs)
    placed = {o.gpu for o in [plan.pick, *plan.alternatives] if o is not None}
    assert placed == {"t4"}


def test_only_training_cards_in_the_catalog_means_the_job_is_not_sized(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    training_only = catalog_of(kb, offer("a100-80g-sxm", 3000), offer("h100-sxm", 8000))
    plan = encoding.plan(EncodeRequest(codec="hevc"), training_only, jobs)
    assert not plan.sized and any(f.id == "no_encoder_on_card" for f in plan.findings)


def test_asking_to_transcode_on_an_h100_says_it_has_no_encoder(jobs: JobKnowledge, kb: Knowledge) -> None:
    plan = encoding.plan(EncodeRequest(codec="h264", gpu="h100-sxm"), kb, jobs)
    found = next(f for f in plan.findings if f.id == "no_encoder_on_card")
    assert (
        plan.pick is None and found.values["gpus"] == ["NVIDIA H100 80GB SXM5"] and found.severity == "high"
    )


def test_av1_goes_to_an_ada_card_and_not_to_a_t4(jobs: JobKnowledge, kb: Knowledge) -> None:
    both = catalog_of(kb, offer("t4", 900), offer("l4", 1500))
    plan = encoding.plan(EncodeRequest(codec="av1"), both, jobs)
    assert plan.pick is not None and plan.pick.gpu == "l4" and not plan.alternatives
    assert any(f.id == "av1_encode_needs_ada" for f in plan.findings)


def test_the_geforce_session_cap_sets_the_machines_for_many_streams(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    # NVIDIA support matrix: GeForce drivers allow 8 concurrent encode sessions per system
    plan = encoding.plan(EncodeRequest(codec="hevc", streams=12, gpu="rtx3090"), kb, jobs)
    cap = next(f for f in plan.findings if f.id == "geforce_session_cap")
    assert plan.pick is not None and plan.pick.machines == 2 and cap.values["machines"] == 2


def test_a_data_centre_card_has_no_session_cap(jobs: JobKnowledge, kb: Knowledge) -> None:
    plan = encoding.plan(EncodeRequest(codec="h264", streams=12, gpu="t4"), kb, jobs)
    assert plan.pick is not None and plan.pick.machines == 1
    assert all(f.id != "geforce_session_cap" for f in plan.findings)


def test_engines_per_card_come_from_the_support_matrix(jobs: JobKnowledge) -> None:
    l4, l40s, a100 = (jobs.codec.card(g) for g in ("l4", "l40s", "a100-80g-sxm"))
    assert l4 is not None and l40s is not None and a100 is not None
    assert (l4.nvenc, l40s.nvenc, a100.nvenc, a100.nvdec) == (2, 3, 0, 5)


@pytest.mark.parametrize(
    ("codec", "encoder"), [("h264", "h264_nvenc"), ("hevc", "hevc_nvenc"), ("av1", "av1_nvenc")]
)
def test_the_command_decodes_on_nvdec_and_encodes_on_nvenc(codec: str, encoder: str) -> None:
    cmd = encoding.command(EncodeRequest.model_validate({"codec": codec, "resolution": "720p"}))
    assert "-hwaccel cuda" in cmd and f"-c:v {encoder}" in cmd and "scale_cuda=1280:720" in cmd
