"""Video encoding and transcoding on NVENC/NVDEC, the cards' fixed-function video engines.

The encoder is a separate block from the tensor cores: what decides a transcoding job is
whether the card has one (A100, H100, H200 and B200 have decoders but no NVENC), how many
(an L4 has 2, an L40S 3), whether it encodes AV1 (Ada and newer), and on GeForce cards the
driver's cap on concurrent encode sessions per machine (8 since January 2024), which sets a
floor on machines: ⌈streams ÷ 8⌉. All from NVIDIA's Video Encode and Decode GPU Support
Matrix (``knowledge/video_codec.yaml``).

Streams per card at a resolution are not estimated: NVIDIA prints its per-engine frame
rates only as an image in the NVENC Application Note, and the project holds no table of
them; the plan says so (``encode_rate_unpublished``) instead of guessing. A card the matrix
table does not carry is left out, never assumed to encode.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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
MAX_STREAMS = 1_000_000  # contract bound: a national IPTV head-end is a few thousand channels
SESSION_MEMORY_GIB = 0.5  # one encode session's surfaces at 1080p, well under a GiB (floor, not a fit)


class EncodeRequest(BaseModel):
    """Encode ``streams`` concurrent streams with ``codec`` at ``resolution`` and ``fps``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Literal["video_encode"] = "video_encode"
    codec: Codec = "h264"
    resolution: Literal["480p", "720p", "1080p", "1440p", "4k"] = "1080p"
    fps: float = Field(30, ge=1, le=240, description="frames a second of each output stream")
    streams: int | None = Field(None, ge=1, le=MAX_STREAMS, description="concurrent streams to encode")
    gpu: str | None = Field(None, max_length=40, description="a card id to size the job on")


def can_encode(codec_kb: CodecKnowledge, gpu: str, codec: Codec) -> bool:
    """The card has an NVENC that encodes ``codec`` (AV1 only on Ada and newer)."""
    card = codec_kb.card(gpu)
    return card is not None and card.nvenc > 0 and (codec != "av1" or card.av1_encode)


def plan(req: EncodeRequest, kb: Knowledge, jobs: JobKnowledge) -> JobPlan:
    """The cheapest catalog machine whose card encodes the codec; GeForce machines for the session cap."""
    if (no := job_rules.refused("video_encode", req, kb, jobs, req.codec)) is not None:
        return no
    cap = jobs.codec.session_cap_geforce

    def rate(offer: Offer, card: GpuSpec, memory_gib: float) -> Fit | None:
        if offer.is_slice or not can_encode(jobs.codec, card.id, req.codec):
            return None
        sessions = cap * offer.count if _geforce(jobs, card.id) else math.inf
        return Fit(units_per_hour=min(sessions, 1e9), memory_gib=SESSION_MEMORY_GIB, cards=offer.count)

    ranked, not_rented = offers.rank_for(kb, rate, per_hour=req.streams or 1, gpu=req.gpu)  # no count: one
    options = [offers.option(p, _metrics(p, jobs)) for p in ranked]
    return JobPlan(
        family="video_encode",
        model=req.codec,
        sized=bool(options),
        pick=options[0] if options else None,
        alternatives=options[1:4],
        findings=[
            *not_rented,
            *job_rules.findings(JobContext("video_encode", req, kb, jobs, ranked, req.codec)),
        ],
        command=command(req),
        tool="ffmpeg",
    )


def _geforce(jobs: JobKnowledge, gpu: str) -> bool:
    card = jobs.codec.card(gpu)
    return card is not None and card.geforce


def _metrics(p: Priced, jobs: JobKnowledge) -> list[JobMetric]:
    card = jobs.codec.card(p.offer.gpu)
    assert card is not None
    out = [
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
    """ffmpeg decoding on NVDEC (``-hwaccel cuda``), scaling on the GPU and encoding on NVENC."""
    width, height = RESOLUTIONS[req.resolution]
    return (
        "ffmpeg -hwaccel cuda -hwaccel_output_format cuda -i input.mp4 "
        f"-vf scale_cuda={width}:{height} -r {req.fps:g} -c:v {FFMPEG_ENCODER[req.codec]} -preset p4 "
        "-b:v 5M -c:a copy output.mp4"
    )
