"""Speech recognition: Whisper (openai, faster-whisper, whisper.cpp) and FunASR's SenseVoice and Paraformer.

Speed is audio seconds transcribed per second of compute (``x_realtime``; the real-time
factor RTF is its inverse). Whisper runs an encoder over 30-second windows and decodes a few
tokens per window at a small batch, so reading the decoder's weights bounds it: from card to
card it scales with memory bandwidth. One card's speed is

    x_realtime = k(runtime) × relative_speed(model, runtime) × bandwidth_GB/s / 1000

with ``k`` fitted on the published rows of ``knowledge/speech.yaml`` marked ``fit``
(faster-whisper's README benchmark; SenseVoice's README for FunASR) and ``relative_speed``
from openai/whisper's table (large = 1, turbo ≈ 8), except where a model has fit rows of its
own on the runtime: turbo under faster-whisper is about 2x large, not 8x. Batched
faster-whisper transcribes several windows at once: about 3.7 times its sequential speed.

A backlog is audio, not a rental period: 1,000 hours of audio at 24 × real time is about
41.7 hours of one card. Live streams each need one audio second per second, so a card holds
⌊x_realtime⌋ of them with the sequential runtime (a live stream cannot wait for a batch).
Memory is small (openai's table: 1–10 GB), so throughput per yuan picks the card.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.jobs import offers
from gpu_advisor.engine.jobs.offers import Fit, Priced
from gpu_advisor.engine.jobs.plan import JobMetric, JobPlan
from gpu_advisor.engine.jobs.speeds import (
    JobKnowledge,
    Measurement,
    SpeechModel,
    find_model,
    median_ratio,
)
from gpu_advisor.engine.rules import jobs as job_rules
from gpu_advisor.engine.rules.jobs import JobContext
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Offer
from gpu_advisor.engine.units import GiB

Runtime = Literal["faster-whisper-batched", "faster-whisper", "whisper.cpp", "openai-whisper", "funasr"]
SECONDS_PER_HOUR = 3600.0
MAX_AUDIO_HOURS = 100_000_000.0  # contract bound: ~150x Whisper's 680,000-hour training set
MAX_LIVE_STREAMS = 1_000_000  # contract bound: a national call centre is a few tens of thousands


class SpeechRequest(BaseModel):
    """Transcribe a backlog (``audio_hours``) or serve ``live_streams`` real-time streams."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Literal["speech"] = "speech"
    model: str = Field(
        "whisper-large-v3", min_length=1, max_length=80, description="whisper-large-v3, sensevoice…"
    )
    runtime: Runtime | None = None
    audio_hours: float | None = Field(
        None, gt=0, le=MAX_AUDIO_HOURS, description="a backlog of audio to transcribe once, in hours"
    )
    live_streams: int | None = Field(
        None, ge=1, le=MAX_LIVE_STREAMS, description="real-time streams transcribed at once"
    )
    gpu: str | None = Field(None, max_length=40, description="a card id to size the job on")


def default_runtime(model: SpeechModel, live: bool) -> Runtime:
    """FunASR for its own models; faster-whisper for Whisper (batched for a backlog)."""
    if model.relative_speed is None:
        return "funasr"
    return "faster-whisper" if live else "faster-whisper-batched"


def bandwidth_gbs(jobs: JobKnowledge, kb: Knowledge, gpu: str) -> float:
    """A card's memory bandwidth from gpus.yaml, or from speech.yaml's measured-on cards."""
    if gpu in kb.gpus:
        return kb.gpus[gpu].bandwidth_gbs
    return next(c.bandwidth_gbs for c in jobs.speech.cards if c.id == gpu)


def _reference(jobs: JobKnowledge, model_id: str) -> bool:
    """A model that sets a runtime's constant: Whisper large (relative speed 1) or a FunASR model."""
    model = next(m for m in jobs.speech.models if m.id == model_id)
    return model.relative_speed in (None, 1.0)


def runtime_constant(jobs: JobKnowledge, kb: Knowledge, runtime: str, model_id: str | None = None) -> float:
    """k(runtime), fitted on that runtime's ``fit`` rows of its reference models only.

    A FunASR model (no Whisper relative speed) with fit rows of its own on the runtime keeps its
    own constant: SenseVoice and Paraformer are different networks measured by different
    tables, so neither's rows move the other's speed."""
    rows = [
        r
        for r in jobs.speech.measurements
        if r.split == "fit" and r.runtime == runtime and _reference(jobs, r.model)
    ]
    own = [r for r in rows if r.model == model_id and _funasr(jobs, r.model)]
    return median_ratio(own or rows, lambda r: bandwidth_gbs(jobs, kb, r.gpu) / 1000)


def _funasr(jobs: JobKnowledge, model_id: str) -> bool:
    return next(m for m in jobs.speech.models if m.id == model_id).relative_speed is None


def relative_speed(jobs: JobKnowledge, kb: Knowledge, model: SpeechModel, runtime: str) -> float:
    """The model's speed against large on this runtime.

    Fitted from the model's own ``fit`` rows on the runtime where they exist (turbo under
    faster-whisper is about 2x large: its encoder, as big as large's, dominates once the
    decoder is fast); else openai/whisper's relative speed.
    """
    rows = [
        r
        for r in jobs.speech.measurements
        if r.split == "fit" and r.runtime == runtime and r.model == model.id
    ]
    if rows and not _reference(jobs, model.id):
        k = runtime_constant(jobs, kb, runtime)
        return median_ratio(rows, lambda r: k * bandwidth_gbs(jobs, kb, r.gpu) / 1000)
    return model.relative_speed or 1.0


def x_realtime(jobs: JobKnowledge, kb: Knowledge, model: SpeechModel, runtime: str, gpu: str) -> float:
    """Audio seconds one card transcribes per second."""
    k = runtime_constant(jobs, kb, runtime, model.id)
    return k * relative_speed(jobs, kb, model, runtime) * bandwidth_gbs(jobs, kb, gpu) / 1000


def predict_row(jobs: JobKnowledge, kb: Knowledge, row: Measurement) -> float:
    """The estimate for a published row's own setting (the holdout check)."""
    model = next(m for m in jobs.speech.models if m.id == row.model)
    return x_realtime(jobs, kb, model, row.runtime, row.gpu)


def plan(req: SpeechRequest, kb: Knowledge, jobs: JobKnowledge) -> JobPlan:
    """The cheapest card for the backlog or the live streams, with RTF, hours and cost per audio hour."""
    model = find_model(jobs.speech.models, req.model)
    if model is None:
        return job_rules.unsized("speech", req, kb, jobs)
    if (no := job_rules.refused("speech", req, kb, jobs, model.name)) is not None:
        return no
    runtime = req.runtime or default_runtime(model, live=req.live_streams is not None)

    def rate(offer: Offer, card: GpuSpec, memory_gib: float) -> Fit | None:
        need = model.vram_gb * 1e9 / GiB
        if need > memory_gib:
            return None
        per_card = x_realtime(jobs, kb, model, runtime, card.id) * offers.compute_share(offer)
        if req.live_streams is not None:  # a live stream is whole: a card holds ⌊x_realtime⌋ of them
            per_card = math.floor(per_card)
        return Fit(units_per_hour=per_card * offer.count, memory_gib=need, cards=offer.count)

    ranked, not_rented = offers.rank_for(
        kb, rate, units=req.audio_hours, per_hour=req.live_streams, gpu=req.gpu
    )
    live = req.live_streams is not None
    options = [
        offers.option(p, _metrics(p, live), [offers.unit_cost(p, 1.0, "per_audio_hour")]) for p in ranked
    ]
    ctx = JobContext("speech", req, kb, jobs, ranked, model.name)
    return job_rules.light_plan(
        ctx, model.id, options, not_rented, command=command(model, runtime), tool=_tool(runtime)
    )


def _metrics(p: Priced, live: bool = False) -> list[JobMetric]:
    """Speed, RTF, audio an hour and the live streams held; live streams asked ("50 concurrent
    calls", "并发 20 路") put the streams one card holds and the streams of the whole pick first,
    since that is the question (each stream needs one audio second a second on its own)."""
    per_card = p.fit.units_per_hour / p.fit.cards
    streams = float(math.floor(per_card) * p.fit.cards * p.machines)
    speed = [
        JobMetric(id="x_realtime", value=round(per_card, 2), unit="audio_s_per_s"),
        JobMetric(id="rtf", value=round(1 / per_card, 4), unit="compute_s_per_audio_s"),
        JobMetric(id="audio_hours_per_hour", value=round(p.units_per_hour, 2), unit="audio_h_per_h"),
    ]
    if live:
        per = JobMetric(id="streams_per_card", value=float(math.floor(per_card)), unit="streams")
        return [per, JobMetric(id="live_streams", value=streams, unit="streams"), *speed]
    return [*speed, JobMetric(id="live_streams", value=streams, unit="streams")]


def _tool(runtime: str) -> str:
    return {"faster-whisper-batched": "faster-whisper"}.get(runtime, runtime)


_FUNASR_NAMES = {"sensevoice-small": "iic/SenseVoiceSmall", "paraformer-large": "paraformer-zh"}
"""FunASR AutoModel names (FunASR README: 'paraformer-zh', 'iic/SenseVoiceSmall')."""


def command(model: SpeechModel, runtime: str) -> str:
    """The launch line people run for this model and runtime."""
    name = model.id.removeprefix("whisper-")
    if runtime == "funasr":
        funasr_name = _FUNASR_NAMES.get(model.id, "iic/SenseVoiceSmall")
        return (
            'python -c "from funasr import AutoModel; '
            f"m = AutoModel(model='{funasr_name}', device='cuda:0'); "
            "print(m.generate(input='audio.wav'))\""
        )
    if runtime == "openai-whisper":
        return f"whisper audio.wav --model {name} --device cuda"
    if runtime == "whisper.cpp":  # its download script names turbo by its full name
        ggml = {"turbo": "large-v3-turbo"}.get(name, name)
        return f"./build/bin/whisper-cli -m models/ggml-{ggml}.bin -f audio.wav"
    if runtime == "faster-whisper":
        return (
            'python -c "from faster_whisper import WhisperModel; '
            f"m = WhisperModel('{name}', device='cuda', compute_type='float16'); "
            "segments, _ = m.transcribe('audio.wav', beam_size=5); "
            "print(''.join(s.text for s in segments))\""
        )
    return (
        'python -c "from faster_whisper import WhisperModel, BatchedInferencePipeline; '
        f"m = BatchedInferencePipeline(model=WhisperModel('{name}', device='cuda', compute_type='float16')); "
        "segments, _ = m.transcribe('audio.wav', batch_size=16); "
        "print(''.join(s.text for s in segments))\""
    )
