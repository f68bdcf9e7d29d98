"""Speech synthesis (text to speech) is its own speech job: audio made, never transcribed (issue 43).

CosyVoice 2 and F5-TTS are sized from their runtimes' published tables, both on one L20
(864 GB/s): CosyVoice's Triton + TensorRT-LLM README measures CosyVoice2-0.5B at RTF 0.0891,
0.0657 and 0.0610 with 1, 2 and 4 concurrent requests; F5-TTS's at RTF 0.0402 (TRT-LLM,
batch 1), 0.0394 (client-server, concurrency 2) and 0.1467 (PyTorch). 1 / RTF is the audio
seconds the card makes each second, all requests together. Concurrency 2 of each is held out.
The phrasings are our own, in Simplified and Traditional Chinese and English.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.engine.jobs import speech
from gpu_advisor.engine.jobs.speech import SpeechRequest
from gpu_advisor.engine.jobs.speeds import JobKnowledge, error_summary, find_model, holdout_errors
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.job_speeds import load_jobs
from gpu_advisor.reading.message import read_message
from tests.engine.jobs_helpers import catalog_of, offer


@pytest.fixture(scope="module")
def jobs() -> JobKnowledge:
    return load_jobs()


def _x(jobs: JobKnowledge, kb: Knowledge, model: str, runtime: str, gpu: str) -> float:
    m = find_model(jobs.speech.models, model)
    assert m is not None
    return speech.x_realtime(jobs, kb, m, runtime, gpu)


def test_cosyvoice2_on_an_l20_makes_16_4_seconds_of_audio_a_second(jobs: JobKnowledge, kb: Knowledge) -> None:
    # CosyVoice triton_trtllm README: 4 concurrent requests, RTF 0.0610 → 1 / 0.0610 = 16.39 s/s
    assert _x(jobs, kb, "cosyvoice", "cosyvoice-trtllm", "l20") == pytest.approx(16.39, abs=0.01)


def test_cosyvoice2_on_a_t4_is_scaled_by_memory_bandwidth(jobs: JobKnowledge, kb: Knowledge) -> None:
    # 16.39 s/s on an L20's 864 GB/s, scaled to a T4's 320 GB/s: 16.39 × 320 / 864 = 6.07
    assert _x(jobs, kb, "cosyvoice2", "cosyvoice-trtllm", "t4") == pytest.approx(6.07, abs=0.01)


def test_held_out_concurrency_two_rows_land_within_eleven_percent(jobs: JobKnowledge, kb: Knowledge) -> None:
    # CosyVoice at concurrency 2 (RTF 0.0657, 15.22 s/s) is predicted log-linearly between the
    # fitted 1 and 4: √(11.22 × 16.39) = 13.56, −10.9 %. F5-TTS client-server at concurrency 2
    # (RTF 0.0394, 25.38 s/s) from its fitted batch-1 row (24.88 s/s): −2.0 %.
    rows = [r for r in jobs.speech.measurements if r.model in ("cosyvoice2-0.5b", "f5-tts")]
    errors = holdout_errors(rows, lambda r: speech.predict_row(jobs, kb, r))
    assert errors == {
        "cosyvoice2-trtllm-c2": pytest.approx(-0.109, abs=0.002),
        "f5-tts-trtllm-c2": pytest.approx(-0.020, abs=0.002),
    }
    assert error_summary(errors)[1] == 1.0  # both within ±25 %


def test_a_card_holds_as_many_live_synthesis_streams_as_times_real_time(kb: Knowledge) -> None:
    # each live stream needs 1 s of audio a second: an L20 at 16.39 × real time holds 16 streams,
    # so 20 concurrent streams take two L20s
    only_l20 = catalog_of(kb, offer("l20", 3000))
    plan = speech.plan(SpeechRequest(model="cosyvoice", live_streams=20), only_l20, load_jobs())
    assert plan.pick is not None
    metrics = {m.id: m.value for m in plan.pick.metrics}
    assert metrics["streams_per_card"] == 16
    assert metrics["live_streams"] == 32


def test_a_synthesis_backlog_is_audio_hours_made_per_card_hour(kb: Knowledge) -> None:
    # 1,000 h of audio at 16.39 h an hour on one L20 is 61.0 card-hours
    only_l20 = catalog_of(kb, offer("l20", 3000))
    plan = speech.plan(SpeechRequest(model="cosyvoice", audio_hours=1000), only_l20, load_jobs())
    assert plan.pick is not None and plan.pick.machines == 1
    assert plan.pick.job_hours == pytest.approx(1000 / 16.39, rel=0.005)


def test_synthesis_speed_is_audio_synthesised_never_audio_transcribed(kb: Knowledge) -> None:
    plan = speech.plan(SpeechRequest(model="f5-tts", audio_hours=100), kb, load_jobs())
    assert plan.pick is not None
    ids = {m.id for m in plan.pick.metrics}
    assert "synth_hours_per_hour" in ids and "audio_hours_per_hour" not in ids
    assert {f.id for f in plan.findings} >= {"synthesis_arithmetic"}
    assert "backlog_is_audio" not in {f.id for f in plan.findings}  # its words say "transcribes"


def test_a_transcription_runtime_for_a_synthesis_model_is_refused(kb: Knowledge) -> None:
    plan = speech.plan(
        SpeechRequest(model="cosyvoice", runtime="faster-whisper", audio_hours=10), kb, load_jobs()
    )
    assert not plan.sized and plan.pick is None
    assert [f.id for f in plan.findings] == ["synthesis_runtime_mismatch"]


def test_no_launch_command_is_given_for_a_synthesis_server_whose_flags_are_not_pinned(kb: Knowledge) -> None:
    plan = speech.plan(SpeechRequest(model="cosyvoice", live_streams=4), kb, load_jobs())
    assert plan.sized and not plan.command


def test_cosyvoice_with_twenty_concurrent_streams_is_sized_as_synthesis(dialog: Dialog) -> None:
    reply, state = dialog.handle(ConversationState(), "CosyVoice 语音合成部署，要并发20路，要什么卡")
    assert reply.job is not None and reply.job.sized and reply.job.model == "cosyvoice2-0.5b"
    assert reply.job.pick is not None
    assert sum(m.value for m in reply.job.pick.metrics if m.id == "live_streams") >= 20
    why, _ = dialog.handle(state, "/why")
    assert "合成" in why.as_text() and "转写" not in why.as_text()


def test_tts_said_without_a_model_is_sized_as_cosyvoice2(dialog: Dialog) -> None:
    reply, _ = dialog.handle(
        ConversationState(), "we need a TTS server for 10 concurrent streams, which GPU?"
    )
    assert reply.job is not None and reply.job.model == "cosyvoice2-0.5b" and reply.job.sized
    assert "CosyVoice2-0.5B" in reply.lead[0]


def test_a_traditional_chinese_f5_tts_backlog_is_read_as_audio_to_synthesise(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "用 F5-TTS 做有聲書，要合成 200 小時音頻，租什麼卡")
    assert reply.job is not None and reply.job.model == "f5-tts" and reply.job.pick is not None
    assert reply.job.pick.job_hours is not None  # 200 h of audio, a backlog with an end
    assert "合成" in reply.as_text() and "转写" not in reply.as_text() and "轉寫" not in reply.as_text()


def test_a_named_synthesis_model_without_measurements_stays_unsized(dialog: Dialog) -> None:
    msg = read_message("用 XTTS 做语音合成，并发 10 路", dialog.vocab)
    assert msg.job == "speech"
    reply, _ = dialog.handle(ConversationState(), "用 XTTS 做语音合成，并发 10 路")
    assert reply.job is not None and not reply.job.sized and reply.job.model == "XTTS"


def test_a_synthesis_runtime_for_a_transcription_model_is_refused(kb: Knowledge) -> None:
    plan = speech.plan(
        SpeechRequest(model="whisper-large-v3", runtime="cosyvoice-trtllm", audio_hours=10), kb, load_jobs()
    )
    assert not plan.sized and [f.id for f in plan.findings] == ["synthesis_runtime_mismatch"]


def test_a_synthesis_model_on_its_own_measured_runtime_is_sized(kb: Knowledge) -> None:
    plan = speech.plan(SpeechRequest(model="f5-tts", runtime="f5-tts", audio_hours=10), kb, load_jobs())
    # the PyTorch row (RTF 0.1467, 6.82 s/s on an L20) is F5-TTS's own runtime, not Whisper's
    assert plan.sized and plan.tool == "f5-tts"


def test_a_chinese_text_backlog_is_read_aloud_at_240_characters_a_minute(kb: Knowledge) -> None:
    # speech.yaml: 240 字/分钟, CCTV news pace: 1,000,000 字 ÷ 240 ÷ 60 = 69.44 h of audio, which one
    # L20 at 16.39 × real time makes in 69.44 ÷ 16.39 = 4.24 h
    only_l20 = catalog_of(kb, offer("l20", 3000))
    plan = speech.plan(SpeechRequest(model="cosyvoice", text_chars=1_000_000), only_l20, load_jobs())
    said = next(f for f in plan.findings if f.id == "text_chars_to_audio")
    assert said.values["audio_hours"] == pytest.approx(69.444, abs=0.001)
    assert plan.pick is not None and plan.pick.job_hours == pytest.approx(69.444 / 16.39, rel=0.005)


def test_an_english_text_backlog_is_read_aloud_at_150_words_a_minute(kb: Knowledge) -> None:
    # speech.yaml: 150 words a minute, the audiobook pace: 90,000 words ÷ 150 ÷ 60 = 10 h of audio
    plan = speech.plan(SpeechRequest(model="f5-tts", text_words=90_000), kb, load_jobs())
    said = next(f for f in plan.findings if f.id == "text_words_to_audio")
    assert said.values["audio_hours"] == pytest.approx(10.0)


@pytest.mark.parametrize(
    ("text", "slot", "amount"),
    [
        ("用 CosyVoice 把一部 100 万字的小说合成有声书，租什么卡", "text_chars", 1_000_000),
        ("有聲書字數 30 萬，用 F5-TTS 合成要什麼卡", "text_chars", 300_000),
        ("TTS for a 90,000-word book, which GPU?", "text_words", 90_000),
    ],
)
def test_a_text_backlog_to_synthesise_is_read_as_characters_or_words(
    dialog: Dialog, text: str, slot: str, amount: int
) -> None:
    msg = read_message(text, dialog.vocab)
    assert msg.job == "speech" and msg.job_slots.get(slot) == amount


def test_concurrent_tts_streams_said_in_english_are_live_streams(dialog: Dialog) -> None:
    msg = read_message("we need 50 concurrent TTS streams with F5-TTS, what GPU?", dialog.vocab)
    assert msg.job == "speech" and msg.job_slots.get("streams") == 50
