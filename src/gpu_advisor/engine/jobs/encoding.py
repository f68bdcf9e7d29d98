"""Video encoding and transcoding on NVENC/NVDEC, the cards' fixed-function video engines.

The encoder is a separate block from the tensor cores: what decides a transcoding job is
whether the card has one (A100, H100, H200 and B200 have decoders but no NVENC), how many
(an L4 has 2, an L40S 3), whether it encodes AV1 (Ada and newer), and on GeForce cards the
driver's cap on concurrent encode sessions per machine (8 since January 2024), which sets a
floor on machines: ⌈streams ÷ 8⌉. All from NVIDIA's Video Encode and Decode GPU Support
Matrix (``knowledge/video_codec.yaml``).

Streams per card come from NVIDIA's per-engine 1080p encode rates (the NVENC Application
Note's performance table, by architecture, codec, preset and tuning):

    streams per card = ⌊NVENC engines × engine fps × (1920·1080 ÷ width·height) ÷ stream fps⌋

capped on a GeForce machine by the session cap. The engine rate scales inversely with the
pixels of a frame (the table is at 1080p only; a pixel-rate encoder, which NVENC is, makes
4K about a quarter of it). Presets between the table's P1/P3/P7 fit rows are interpolated
(``CodecKnowledge.fps_per_engine``; its error on the held-out P5 rows is reported by the
tests). NVIDIA measured each generation on a GeForce card at its highest video clock, so a
data-centre card with a slower video clock does proportionally less: the plan calls the
figure a ceiling to measure against. A transcode also decodes its input on NVDEC: the
card holds the smaller of the encoders' count and ⌊NVDEC engines × the decoder's 1080p rate
for the input codec × 1080p's pixels ÷ the input's ÷ fps⌋ (NVDEC Application Note, read as
published). A card the matrix or the tables do not carry is left out, never assumed to
encode (a Turing card does not decode AV1).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine import cost
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.jobs import offers
from gpu_advisor.engine.jobs.offers import Fit, Priced
from gpu_advisor.engine.jobs.plan import JobMetric, JobPlan
from gpu_advisor.engine.jobs.speeds import CodecKnowledge, JobKnowledge
from gpu_advisor.engine.rules import jobs as job_rules
from gpu_advisor.engine.rules.jobs import JobContext
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Offer

Codec = Literal["h264", "hevc", "av1"]
RESOLUTIONS = {
    "480p": (854, 480),
    "720p": (1280, 720),
    "1080p": (1920, 1080),
    "1440p": (2560, 1440),
    "4k": (3840, 2160),
}
FFMPEG_ENCODER = {"h264": "h264_nvenc", "hevc": "hevc_nvenc", "av1": "av1_nvenc"}
TABLE_PIXELS = 1920 * 1080  # the resolution NVIDIA's per-engine rates are measured at
Preset = Literal["p1", "p2", "p3", "p4", "p5", "p6", "p7"]
Resolution = Literal["480p", "720p", "1080p", "1440p", "4k"]
MAX_STREAMS = 1_000_000  # contract bound: a national IPTV head-end is a few thousand channels
SESSION_MEMORY_GIB = 0.5  # one encode session's surfaces at 1080p, well under a GiB (floor, not a fit)


class EncodeRequest(BaseModel):
    """Encode ``streams`` concurrent streams with ``codec`` at ``resolution`` and ``fps``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Literal["video_encode"] = "video_encode"
    codec: Codec = "h264"
    resolution: Resolution = "1080p"
    fps: float = Field(30, ge=1, le=240, description="frames a second of each output stream")
    streams: int | None = Field(None, ge=1, le=MAX_STREAMS, description="concurrent streams to encode")
    preset: Preset = Field(
        "p4", description="NVENC preset, p1 fastest to p7 best quality (ffmpeg's default p4)"
    )
    tuning: Literal["hq", "ll"] = Field(
        "hq", description="hq: VBR, high-quality tuning (files, VOD); ll: CBR, low-latency tuning (live)"
    )
    source_codec: Codec | None = Field(
        "h264",
        description="the input's codec, decoded on NVDEC; null when frames arrive raw (capture, render)",
    )
    source_resolution: Resolution | None = Field(None, description="the input's size; the output's if absent")
    gpu: str | None = Field(None, max_length=40, description="a card id to size the job on")


def can_encode(codec_kb: CodecKnowledge, gpu: str, codec: Codec) -> bool:
    """The card has an NVENC that encodes ``codec`` (AV1 only on Ada and newer)."""
    card = codec_kb.card(gpu)
    return card is not None and card.nvenc > 0 and (codec != "av1" or card.av1_encode)


def engine_fps(jobs: JobKnowledge, card: GpuSpec, req: EncodeRequest) -> float | None:
    """One NVENC engine's 1080p rate on the card's architecture for the request's codec and preset."""
    return jobs.codec.fps_per_engine(card.architecture, req.codec, int(req.preset[1:]), req.tuning)


def pixel_scale(resolution: Resolution) -> float:
    """A frame against the tables' 1080p one: 4K takes four times the work."""
    width, height = RESOLUTIONS[resolution]
    return TABLE_PIXELS / (width * height)


def encode_streams(jobs: JobKnowledge, card: GpuSpec, req: EncodeRequest) -> int:
    """Real-time streams the card's encoders hold (0 where the table has no rate)."""
    codec_card = jobs.codec.card(card.id)
    fps = engine_fps(jobs, card, req)
    if codec_card is None or fps is None:
        return 0
    return math.floor(codec_card.nvenc * fps * pixel_scale(req.resolution) / req.fps + 1e-9)


def decode_streams(jobs: JobKnowledge, card: GpuSpec, req: EncodeRequest) -> int | None:
    """Real-time input streams the card's decoders hold; None when the input arrives raw."""
    if req.source_codec is None:
        return None
    codec_card = jobs.codec.card(card.id)
    fps = jobs.codec.decode_fps_per_engine(card.architecture, req.source_codec)
    if codec_card is None or fps is None:
        return 0
    scale = pixel_scale(req.source_resolution or req.resolution)
    return math.floor(codec_card.nvdec * fps * scale / req.fps + 1e-9)


def streams_per_card(jobs: JobKnowledge, card: GpuSpec, req: EncodeRequest) -> int:
    """Real-time streams one card transcodes: the fewer of what its encoders and decoders hold."""
    encoded = encode_streams(jobs, card, req)
    decoded = decode_streams(jobs, card, req)
    return encoded if decoded is None else min(encoded, decoded)


def plan(req: EncodeRequest, kb: Knowledge, jobs: JobKnowledge) -> JobPlan:
    """The cheapest catalog machines that encode the streams in real time, GeForce capped by sessions."""
    if (no := job_rules.refused("video_encode", req, kb, jobs, req.codec)) is not None:
        return no
    cap = jobs.codec.session_cap_geforce

    def rate(offer: Offer, card: GpuSpec, memory_gib: float) -> Fit | None:
        if offer.is_slice or not can_encode(jobs.codec, card.id, req.codec):
            return None
        per_card = streams_per_card(jobs, card, req)
        if per_card < 1:
            return None
        per_machine = per_card * offer.count
        if _geforce(jobs, card.id):
            per_machine = min(per_machine, cap)
        return Fit(units_per_hour=float(per_machine), memory_gib=SESSION_MEMORY_GIB, cards=offer.count)

    ranked, not_rented = offers.rank_for(kb, rate, per_hour=req.streams or 1, gpu=req.gpu)  # no count: one
    options = [offers.option(p, _metrics(p, jobs, req), _unit_costs(p)) for p in ranked]
    ctx = JobContext("video_encode", req, kb, jobs, ranked, req.codec)
    return job_rules.light_plan(
        ctx,
        req.codec,
        options,
        not_rented,
        command=command(req),
        tool="ffmpeg",
        extra=_streams(ranked, jobs, req),
        explained=False,  # the streams' arithmetic is the finding ``_streams`` adds
    )


def _unit_costs(p: Priced) -> list[JobMetric]:
    """A stream's month first (a live channel is rented by the month), then its hour."""
    return [
        offers.unit_cost(p, cost.HOURS_PER_MONTH, "per_stream_month"),
        offers.unit_cost(p, 1.0, "per_stream_hour"),
    ]


def _geforce(jobs: JobKnowledge, gpu: str) -> bool:
    card = jobs.codec.card(gpu)
    return card is not None and card.geforce


def _streams(ranked: list[Priced], jobs: JobKnowledge, req: EncodeRequest) -> list[Finding]:
    """The arithmetic of the pick's streams per card, for /why."""
    if not ranked:
        return []
    pick = ranked[0]
    card = jobs.codec.card(pick.gpu.id)
    fps = engine_fps(jobs, pick.gpu, req)
    if card is None or fps is None:
        return []
    return [
        finding(
            "encode_streams",
            gpu=pick.gpu.name,
            nvenc=card.nvenc,
            engine_fps=fps,
            codec=req.codec,
            preset=req.preset,
            tuning=req.tuning,
            resolution=req.resolution,
            scale=pixel_scale(req.resolution),
            fps=req.fps,
            encoded=encode_streams(jobs, pick.gpu, req),
            nvdec=card.nvdec,
            source_codec=req.source_codec,
            decode_fps=jobs.codec.decode_fps_per_engine(pick.gpu.architecture, req.source_codec or ""),
            decoded=decode_streams(jobs, pick.gpu, req),
            streams=streams_per_card(jobs, pick.gpu, req),
        )
    ]


def _metrics(p: Priced, jobs: JobKnowledge, req: EncodeRequest) -> list[JobMetric]:
    card = jobs.codec.card(p.offer.gpu)
    assert card is not None
    out = [
        JobMetric(id="streams_per_card", value=float(streams_per_card(jobs, p.gpu, req)), unit="streams"),
        JobMetric(id="streams_per_machine", value=p.fit.units_per_hour, unit="streams"),
        JobMetric(id="engine_fps_1080p", value=round(engine_fps(jobs, p.gpu, req) or 0.0, 1), unit="fps"),
        JobMetric(id="nvenc_per_card", value=float(card.nvenc), unit="engines"),
        JobMetric(id="nvdec_per_card", value=float(card.nvdec), unit="engines"),
    ]
    if card.geforce:
        out.append(
            JobMetric(
                id="session_cap", value=float(jobs.codec.session_cap_geforce), unit="sessions_per_machine"
            )
        )
    return out


def command(req: EncodeRequest) -> str:
    """ffmpeg decoding on NVDEC (``-hwaccel cuda``), scaling on the GPU and encoding on NVENC; raw
    input (no ``source_codec``) is uploaded to the GPU instead of decoded."""
    width, height = RESOLUTIONS[req.resolution]
    if req.source_codec is None:
        reading = "ffmpeg -i input.y4m -vf hwupload_cuda,"
    else:
        reading = "ffmpeg -hwaccel cuda -hwaccel_output_format cuda -i input.mp4 -vf "
    low_latency = " -rc cbr" if req.tuning == "ll" else ""
    return (
        f"{reading}scale_cuda={width}:{height} -r {req.fps:g} -c:v {FFMPEG_ENCODER[req.codec]} "
        f"-preset {req.preset} -tune {req.tuning}{low_latency} -b:v 5M -c:a copy output.mp4"
    )
