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

A daily load ("每天 500 小时录音", "500 hours of calls a day") is a rate, not a backlog: the
cards must get through a day's audio within the day (``hours_per_day``, 24 unless said), so
they are sized for ``audio_hours_per_day ÷ hours_per_day`` audio hours an hour, and no
"the whole job takes 20.7 hours" is said of it.

Synthesis (text to speech: CosyVoice 2, F5-TTS) is the same arithmetic the other way round:
``x_realtime`` is audio seconds *made* per second, fitted per model and runtime on its own
``fit`` rows (one table each, both on an L20) and scaled to other cards by bandwidth as
Whisper is (CosyVoice 2's LLM writes speech tokens one by one). The published rows are
aggregate speeds at a concurrency (1 / RTF over all requests at once); a card is sized at its
highest measured concurrency, and a held-out concurrency is predicted log-linearly between
the fitted ones. A live stream needs one audio second a second, so a card holds
⌊x_realtime⌋ streams: an assumption past the measured concurrency (4 for CosyVoice 2), said
in the plan.
"""

from __future__ import annotations

import math
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.findings import Finding, finding
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

Runtime = Literal[
    "faster-whisper-batched",
    "faster-whisper",
    "whisper.cpp",
    "openai-whisper",
    "funasr",
    "cosyvoice-trtllm",
    "f5-tts-trtllm",
    "f5-tts",
]
SYNTHESIS_RUNTIMES = frozenset({"cosyvoice-trtllm", "f5-tts-trtllm", "f5-tts"})
"""Runtimes that synthesise speech; a recognition model never runs on them, nor the reverse."""
SECONDS_PER_HOUR = 3600.0
MAX_AUDIO_HOURS = 100_000_000.0  # contract bound: ~150x Whisper's 680,000-hour training set
MAX_TEXT = 100_000_000_000  # contract bound: a national library's books, about 10^11 characters
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
    audio_hours_per_day: float | None = Field(
        None, gt=0, le=MAX_AUDIO_HOURS, description="audio arriving every day, done within hours_per_day"
    )
    text_chars: int | None = Field(
        None, ge=1, le=MAX_TEXT, description="Chinese characters to synthesise (a backlog of text)"
    )
    text_words: int | None = Field(None, ge=1, le=MAX_TEXT, description="English words to synthesise")
    hours_per_day: float = Field(
        24.0, gt=0, le=24, description="hours a day the cards may work on a daily load"
    )
    live_streams: int | None = Field(
        None, ge=1, le=MAX_LIVE_STREAMS, description="real-time streams transcribed or synthesised at once"
    )
    gpu: str | None = Field(None, max_length=40, description="a card id to size the job on")


def default_runtime(model: SpeechModel, live: bool) -> str:
    """A synthesis model's own measured runtime; FunASR for its own models; faster-whisper for
    Whisper (batched for a backlog)."""
    if model.runtime is not None:
        return model.runtime
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


def synthesis_runtimes(jobs: JobKnowledge, model: SpeechModel) -> list[str]:
    """The runtimes a synthesis model has fit rows on (the ones it can be sized on)."""
    return sorted({r.runtime for r in jobs.speech.measurements if r.split == "fit" and r.model == model.id})


def synthesis_x(
    jobs: JobKnowledge, kb: Knowledge, model: SpeechModel, runtime: str, gpu: str, batch: int | None = None
) -> float:
    """Audio seconds one card synthesises per second, all concurrent requests together.

    Each fitted concurrency keeps its own constant (audio s/s per TB/s); ``batch`` None is the
    highest fitted one (what a card sized for throughput runs at). A concurrency between two
    fitted ones is interpolated log-linearly in the concurrency (CosyVoice 2: 1 and 4 fitted,
    2 predicted); outside them, the nearest."""
    rows = [
        r
        for r in jobs.speech.measurements
        if r.split == "fit" and r.model == model.id and r.runtime == runtime
    ]
    per_tb: dict[int, float] = {}
    for b in sorted({r.batch for r in rows}):
        per_tb[b] = median_ratio(
            [r for r in rows if r.batch == b], lambda r: bandwidth_gbs(jobs, kb, r.gpu) / 1000
        )
    fitted = sorted(per_tb)
    at = fitted[-1] if batch is None else batch
    below, above = [b for b in fitted if b <= at], [b for b in fitted if b >= at]
    if not below or not above:
        k = per_tb[(below or above)[-1 if below else 0]]
    elif below[-1] == above[0]:
        k = per_tb[at]
    else:
        lo, hi = below[-1], above[0]
        share = (math.log(at) - math.log(lo)) / (math.log(hi) - math.log(lo))
        k = math.exp(math.log(per_tb[lo]) + share * (math.log(per_tb[hi]) - math.log(per_tb[lo])))
    return k * bandwidth_gbs(jobs, kb, gpu) / 1000


def x_realtime(jobs: JobKnowledge, kb: Knowledge, model: SpeechModel, runtime: str, gpu: str) -> float:
    """Audio seconds one card transcribes (or, for a synthesis model, synthesises) per second."""
    if model.task == "synthesis":
        return synthesis_x(jobs, kb, model, runtime, gpu)
    k = runtime_constant(jobs, kb, runtime, model.id)
    return k * relative_speed(jobs, kb, model, runtime) * bandwidth_gbs(jobs, kb, gpu) / 1000


def predict_row(jobs: JobKnowledge, kb: Knowledge, row: Measurement) -> float:
    """The estimate for a published row's own setting (the holdout check)."""
    model = next(m for m in jobs.speech.models if m.id == row.model)
    if model.task == "synthesis":
        return synthesis_x(jobs, kb, model, row.runtime, row.gpu, row.batch)
    return x_realtime(jobs, kb, model, row.runtime, row.gpu)


def plan(req: SpeechRequest, kb: Knowledge, jobs: JobKnowledge) -> JobPlan:
    """The cheapest card for the backlog, the daily load or the live streams, with RTF, hours
    and cost per audio hour."""
    model = find_model(jobs.speech.models, req.model)
    if model is None:
        return job_rules.unsized("speech", req, kb, jobs)
    synth = model.task == "synthesis"
    runs = (
        synthesis_runtimes(jobs, model)
        if synth
        else [r for r in get_args(Runtime) if r not in SYNTHESIS_RUNTIMES]
    )
    if req.runtime is not None and req.runtime not in runs:  # CosyVoice on faster-whisper, Whisper on F5-TTS
        said = finding(
            "synthesis_runtime_mismatch",
            "high",
            model=model.name,
            runtime=req.runtime,
            runtimes=", ".join(runs),
        )
        return JobPlan(family="speech", model=model.id, sized=False, findings=[said])
    # the transcription rules judge a runtime by Whisper's and FunASR's names: a synthesis
    # model's own runtime, checked above, is not theirs to refuse
    checked = req.model_copy(update={"runtime": None}) if synth else req
    if (no := job_rules.refused("speech", checked, kb, jobs, model.name)) is not None:
        return no
    runtime = req.runtime or default_runtime(model, live=req.live_streams is not None)
    live = req.live_streams is not None
    daily = None if live or req.audio_hours_per_day is None else req.audio_hours_per_day / req.hours_per_day

    def rate(offer: Offer, card: GpuSpec, memory_gib: float) -> Fit | None:
        need = model.vram_gb * 1e9 / GiB
        if need > memory_gib:
            return None
        per_card = x_realtime(jobs, kb, model, runtime, card.id) * offers.compute_share(offer)
        if live:  # a live stream is whole: a card holds ⌊x_realtime⌋ of them
            per_card = math.floor(per_card)
        return Fit(units_per_hour=per_card * offer.count, memory_gib=need, cards=offer.count)

    backlog = (
        None if live or daily is not None else req.audio_hours or (text_hours(req, jobs) if synth else None)
    )
    ranked, not_rented = offers.rank_for(
        kb, rate, units=backlog, per_hour=req.live_streams if live else daily, gpu=req.gpu
    )
    window = req.hours_per_day if daily is not None else None
    options = [
        offers.option(p, _metrics(p, live, synth, window), [offers.unit_cost(p, 1.0, "per_audio_hour")])
        for p in ranked
    ]
    # The transcription rules (backlog_is_audio, speech_arithmetic, runtime names) speak of
    # transcribing: a synthesis plan and a daily load say their own arithmetic instead.
    own = synth or daily is not None
    seen = req.model_copy(update={"audio_hours": None, "runtime": None}) if own else req
    ctx = JobContext("speech", seen, kb, jobs, ranked, model.name)
    extra = _own_findings(req, model, runtime, ranked, kb, jobs, daily, backlog) if own else []
    planned = job_rules.light_plan(
        ctx,
        model.id,
        options,
        not_rented,
        command=command(model, runtime),
        tool=_tool(runtime),
        extra=extra,
        explained=not own,
    )
    # a synthesis server's flags are not pinned (knowledge/job_flags.yaml): no command, not ""
    return planned if planned.command else planned.model_copy(update={"command": None})


def _own_findings(
    req: SpeechRequest,
    model: SpeechModel,
    runtime: str,
    ranked: list[Priced],
    kb: Knowledge,
    jobs: JobKnowledge,
    daily: float | None,
    backlog: float | None,
) -> list[Finding]:
    """A synthesis plan's arithmetic (measured row, bandwidth, streams per card and the
    assumption behind them) and a daily load's (a day's audio within the hours allowed)."""
    if not ranked:
        return []
    pick = ranked[0]
    per_card = x_realtime(jobs, kb, model, runtime, pick.gpu.id) * offers.compute_share(pick.offer)
    out: list[Finding] = []
    if backlog is not None and req.audio_hours is None:  # the text said, read aloud
        unit = "chars" if req.text_chars is not None else "words"
        out.append(
            finding(
                f"text_{unit}_to_audio",
                amount=req.text_chars if req.text_chars is not None else req.text_words,
                per_minute=jobs.speech.per_minute(unit),
                audio_hours=backlog,
            )
        )
    if model.task == "synthesis":
        rows = [
            r
            for r in jobs.speech.measurements
            if r.model == model.id and r.runtime == runtime and r.split == "fit"
        ]
        top = max(rows, key=lambda r: r.batch)
        out.append(
            finding(
                "synthesis_arithmetic",
                model=model.name,
                runtime=runtime,
                measured_gpu=_card_name(kb, jobs, top.gpu),
                measured_x=top.value,
                measured_rtf=f"{1 / top.value:.4f}",  # as the README prints it (0.0610)
                concurrency=top.batch,
                measured_bandwidth_gbs=bandwidth_gbs(jobs, kb, top.gpu),
                gpu=_pick_name(pick),
                bandwidth_gbs=pick.gpu.bandwidth_gbs,
                x_realtime=per_card,
                streams_per_card=math.floor(per_card),
                audio_hours=backlog,
                card_hours=pick.job_hours,
                cards=pick.fit.cards * pick.machines,
            )
        )
    if daily is not None and req.audio_hours_per_day is not None:
        capacity = pick.units_per_hour * req.hours_per_day
        out.append(
            finding(
                "daily_audio_load",
                audio_hours_per_day=req.audio_hours_per_day,
                hours_per_day=req.hours_per_day,
                audio_per_hour=daily,
                gpu=_pick_name(pick),
                cards=pick.fit.cards * pick.machines,
                x_realtime=per_card,
                capacity_per_day=capacity,
                synthesis=model.task == "synthesis",
            )
        )
    return out


def text_hours(req: SpeechRequest, jobs: JobKnowledge) -> float | None:
    """Hours of audio a text backlog makes when read at ``speech.yaml``'s pace (240 Chinese
    characters or 150 English words a minute): 1,000,000 字 ÷ 240 ÷ 60 = 69.4 h."""
    for amount, unit in ((req.text_chars, "chars"), (req.text_words, "words")):
        rate = jobs.speech.per_minute(unit)
        if amount is not None and rate is not None:
            return amount / rate / 60
    return None


def _pick_name(pick: Priced) -> str:
    """The pick's card, with its MIG slice where it is one (its speed is the slice's share)."""
    profile = pick.offer.mig_profile
    return f"{pick.gpu.name} MIG {profile}" if profile else pick.gpu.name


def _card_name(kb: Knowledge, jobs: JobKnowledge, gpu: str) -> str:
    if gpu in kb.gpus:
        return kb.gpus[gpu].name
    return next(c.name for c in jobs.speech.cards if c.id == gpu)


def _metrics(
    p: Priced, live: bool = False, synth: bool = False, window: float | None = None
) -> list[JobMetric]:
    """Speed, RTF, audio an hour and the live streams held; live streams asked ("50 concurrent
    calls", "并发 20 路") put the streams one card holds and the streams of the whole pick first,
    since that is the question (each stream needs one audio second a second on its own). A
    synthesis model's audio an hour is audio made (``synth_hours_per_hour``), never transcribed;
    a daily load adds the audio the pick gets through in the day's working hours."""
    per_card = p.fit.units_per_hour / p.fit.cards
    streams = float(math.floor(per_card) * p.fit.cards * p.machines)
    hourly_id = "synth_hours_per_hour" if synth else "audio_hours_per_hour"
    speed = [
        JobMetric(id="x_realtime", value=round(per_card, 2), unit="audio_s_per_s"),
        JobMetric(id="rtf", value=round(1 / per_card, 4), unit="compute_s_per_audio_s"),
        JobMetric(id=hourly_id, value=round(p.units_per_hour, 2), unit="audio_h_per_h"),
    ]
    if window is not None:
        day = JobMetric(
            id="audio_hours_per_day", value=round(p.units_per_hour * window, 1), unit="audio_h_per_day"
        )
        speed = [day, *speed]
    if live:
        per = JobMetric(id="streams_per_card", value=float(math.floor(per_card)), unit="streams")
        return [per, JobMetric(id="live_streams", value=streams, unit="streams"), *speed]
    return [*speed, JobMetric(id="live_streams", value=streams, unit="streams")]


def _tool(runtime: str) -> str:
    return {"faster-whisper-batched": "faster-whisper"}.get(runtime, runtime)


_FUNASR_NAMES = {"sensevoice-small": "iic/SenseVoiceSmall", "paraformer-large": "paraformer-zh"}
"""FunASR AutoModel names (FunASR README: 'paraformer-zh', 'iic/SenseVoiceSmall')."""


def command(model: SpeechModel, runtime: str) -> str:
    """The launch line people run for this model and runtime; none ("") for a synthesis model,
    whose servers (CosyVoice's Triton stages, F5-TTS's) are not pinned in ``job_flags.yaml``."""
    if model.task == "synthesis":
        return ""
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
