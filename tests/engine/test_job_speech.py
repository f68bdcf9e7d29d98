"""Speech jobs: real-time factor per card, a backlog of audio hours, live streams, the pick."""

from __future__ import annotations

import pytest

from gpu_advisor.engine.jobs import speech
from gpu_advisor.engine.jobs.speech import SpeechRequest
from gpu_advisor.engine.jobs.speeds import JobKnowledge, find_model
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.job_speeds import load_jobs
from tests.engine.jobs_helpers import catalog_of, offer


@pytest.fixture(scope="module")
def jobs() -> JobKnowledge:
    return load_jobs()


def _x(jobs: JobKnowledge, kb: Knowledge, model: str, runtime: str, gpu: str) -> float:
    m = find_model(jobs.speech.models, model)
    assert m is not None
    return speech.x_realtime(jobs, kb, m, runtime, gpu)


def test_batched_faster_whisper_large_v3_on_a_t4_is_about_24_times_real_time(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    # faster-whisper README: batch_size=8 fp16 transcribes 13 min in 17 s on an RTX 3070 Ti
    # (608 GB/s) = 45.9x; scaled by bandwidth to a T4's 320 GB/s: 45.9 × 320 / 608 = 24.1x.
    assert _x(jobs, kb, "large-v3", "faster-whisper-batched", "t4") == pytest.approx(24.15, abs=0.05)


def test_int8_rows_held_out_of_the_fit_land_within_ten_percent(jobs: JobKnowledge, kb: Knowledge) -> None:
    # faster-whisper README: int8 beam 5 in 59 s (13.2x) and batched int8 in 16 s (48.8x).
    assert _x(jobs, kb, "large-v2", "faster-whisper", "rtx3070ti") == pytest.approx(13.22, rel=0.10)
    assert _x(jobs, kb, "large-v2", "faster-whisper-batched", "rtx3070ti") == pytest.approx(48.75, rel=0.10)


def test_turbo_is_eight_times_large_in_openai_whisper_but_about_twice_in_faster_whisper(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    # openai/whisper README: turbo ~8x large. speaches issue #169 (RTX 3090, faster-whisper, 1 h):
    # turbo 82.75 s against large-v2's 169.75 s, 2.05x; its encoder is large's.
    def ratio(runtime: str) -> float:
        return _x(jobs, kb, "turbo", runtime, "l4") / _x(jobs, kb, "large-v3", runtime, "l4")

    assert ratio("openai-whisper") == pytest.approx(8.0)
    assert 1.5 < ratio("faster-whisper") < 3.0


def test_large_v2_on_an_rtx_3090_held_out_lands_within_a_ninth_of_the_measurement(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    # speaches issue #169: large-v2 on an RTX 3090, no batch: 1 h of audio in 169.75 s (21.2x)
    assert _x(jobs, kb, "large-v2", "faster-whisper", "rtx3090") == pytest.approx(21.21, rel=0.11)


def test_a_backlog_of_1000_audio_hours_takes_its_hours_divided_by_the_speed(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    plan = speech.plan(SpeechRequest(audio_hours=1000), kb, jobs)
    assert plan.pick is not None and plan.pick.gpu == "t4"
    assert plan.pick.job_hours == pytest.approx(1000 / 24.15, rel=0.01)  # about 41 h of one T4
    assert plan.pick.job_cost == 900  # a monthly-only offer bills its month for a 41-hour job


def test_a_backlog_stated_in_hours_is_audio_not_a_rental_period(jobs: JobKnowledge, kb: Knowledge) -> None:
    plan = speech.plan(SpeechRequest(audio_hours=1000), kb, jobs)
    found = next(f for f in plan.findings if f.id == "backlog_is_audio")
    assert found.values["audio_hours"] == 1000 and float(str(found.values["card_hours"])) < 100


def test_whisper_is_light_so_a_t4_beats_renting_an_a100(jobs: JobKnowledge, kb: Knowledge) -> None:
    plan = speech.plan(SpeechRequest(audio_hours=1000), kb, jobs)
    waste = next(f for f in plan.findings if f.id == "light_job_on_training_card")
    assert plan.pick is not None and plan.pick.gpu == "t4"
    assert waste.values["cost_ratio"] == pytest.approx(2800 / 900, rel=0.01)


def test_live_streams_are_whole_streams_per_card(jobs: JobKnowledge, kb: Knowledge) -> None:
    # sequential faster-whisper large-v3 on a T4: 12.4 × 320 / 608 = 6.5x, so 6 live streams a card
    only_t4 = catalog_of(kb, offer("t4", 900))
    plan = speech.plan(SpeechRequest(live_streams=20), only_t4, jobs)
    assert plan.pick is not None and plan.pick.machines == 4  # ⌈20 / 6⌉


def test_a_mig_slice_transcribes_at_its_share_of_the_card(jobs: JobKnowledge, kb: Knowledge) -> None:
    slice_kb = catalog_of(
        kb,
        offer("a100-80g-sxm", 500, id="slice", mig_profile="3g.40gb", slice_memory_gib=39.5),
        offer("a100-80g-sxm", 3000, id="whole"),
    )
    plan = speech.plan(SpeechRequest(model="turbo", audio_hours=100), slice_kb, jobs)
    hours = {o.offer_id: o.job_hours or 0.0 for o in [plan.pick, *plan.alternatives] if o is not None}
    assert hours["slice"] == pytest.approx(hours["whole"] * 7 / 3, rel=0.01)  # 3 of the 7 compute slices


def test_sensevoice_runs_on_funasr_and_is_refused_on_a_whisper_runtime(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    plan = speech.plan(SpeechRequest(model="SenseVoice", audio_hours=100), kb, jobs)
    assert plan.tool == "funasr" and plan.command is not None and "SenseVoiceSmall" in plan.command
    wrong = speech.plan(SpeechRequest(model="SenseVoice", runtime="faster-whisper", audio_hours=1), kb, jobs)
    assert not wrong.sized and [f.id for f in wrong.findings] == ["speech_runtime_mismatch"]


def test_an_unknown_speech_model_is_not_sized_and_never_becomes_an_llm(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    plan = speech.plan(SpeechRequest(model="whisper-xxl", audio_hours=10), kb, jobs)
    assert not plan.sized and plan.pick is None
    assert [f.id for f in plan.findings] == ["job_model_unknown"]


def test_the_backlog_command_is_batched_faster_whisper(jobs: JobKnowledge, kb: Knowledge) -> None:
    plan = speech.plan(SpeechRequest(audio_hours=10), kb, jobs)
    assert (
        plan.command is not None and "BatchedInferencePipeline" in plan.command and "large-v3" in plan.command
    )


def test_an_unknown_card_is_answered_with_a_finding_not_an_error(jobs: JobKnowledge, kb: Knowledge) -> None:
    plan = speech.plan(SpeechRequest(audio_hours=10, gpu="gtx-9999"), kb, jobs)
    assert not plan.sized and [f.id for f in plan.findings] == ["job_gpu_unknown"]


def test_a_known_card_the_catalog_does_not_rent_is_priced_on_the_nearest_it_rents(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    plan = speech.plan(SpeechRequest(audio_hours=10, gpu="l4"), kb, jobs)
    assert "l4" not in {o.gpu for o in kb.catalog.offers}  # the premise: the shipped catalog has no L4
    assert plan.pick is not None and any(f.id == "job_card_not_rented" for f in plan.findings)


def test_a_rented_card_the_model_does_not_fit_says_there_is_nothing_to_price(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    # the A100 is rented here only as a 5 GB MIG slice; Whisper large-v3 needs about 10 GB
    sliced = catalog_of(kb, offer("a100-40g-sxm", 300, mig_profile="1g.5gb", slice_memory_gib=4.75))
    plan = speech.plan(SpeechRequest(audio_hours=10, gpu="a100-40g-sxm"), sliced, jobs)
    assert not plan.sized and any(f.id == "job_nothing_offered" for f in plan.findings)
