"""Video generation: memory at a resolution and frame count, minutes per clip on one card, how
xDiT sequence parallelism across several cards shortens it, and the cost per clip (Wan2.1/2.2,
HunyuanVideo, CogVideoX, LTX-Video).

A clip is one DiT over space-time tokens (``engine/jobs/diffusion.py``): Wan2.1 14B at
1280×720 and 81 frames sees 21 × 45 × 80 = 75,600 tokens, so attention dominates and one
pass is ~7 PFLOP. Several cards on one clip (Wan's ``--ulysses_size``, HunyuanVideo's
``--ulysses-degree``) divide the denoising by the speed-up xDiT measured (5.64× on 8 GPUs),
not by the card count, while FSDP shards the weights across them. Without a stated card
count the plan uses the fewest cards per clip that hold it, which makes the most clips per
machine; a machine runs ``count // cards_per_clip`` clips side by side.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.jobs import diffusion as d
from gpu_advisor.engine.jobs import offers
from gpu_advisor.engine.jobs.diffusion_launch import diffusion_command
from gpu_advisor.engine.jobs.image import unknown_card, unknown_model
from gpu_advisor.engine.jobs.plan import JobMetric, JobPlan, cheaper_than
from gpu_advisor.engine.rules.diffusion_jobs import DiffusionCheck, pitfalls
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Offer

VideoTool = Literal["comfyui", "diffusers", "wan", "hunyuanvideo"]
SP_COUNTS = (1, 2, 4, 8)


class VideoGenJob(BaseModel):
    """A video-generation job as the JSON contract takes it (``family: video_gen``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Literal["video_gen"] = "video_gen"
    model: str = Field("wan21-t2v-14b", min_length=1, max_length=80)
    width: int | None = Field(None, ge=64, le=4096)
    height: int | None = Field(None, ge=64, le=4096)
    frames: int | None = Field(None, ge=1, le=1025, description="frames per clip; or seconds × fps")
    seconds: float | None = Field(None, gt=0, le=120, description="clip length; frames = seconds × fps + 1")
    steps: int | None = Field(None, ge=1, le=200)
    format: d.WeightFormat | None = None
    offload: d.Offload = "none"
    guidance: bool | None = None
    gpus: int | None = Field(None, ge=1, le=8, description="cards on one clip (sequence parallel)")
    clips_per_day: float | None = Field(None, gt=0, le=1e7)
    clips: float | None = Field(None, gt=0, le=1e8, description="a backlog of clips to render once")
    tool: VideoTool = "comfyui"
    gpu: str | None = None


def run_of(job: VideoGenJob, spec: d.DiffusionSpec) -> d.Run:
    """The run the request describes; frames from seconds at the model's frame rate."""
    frames = job.frames or (round(job.seconds * (spec.fps or 16)) + 1 if job.seconds else spec.frames)
    return d.Run(
        width=job.width or spec.width,
        height=job.height or spec.height,
        steps=job.steps or spec.steps,
        frames=frames,
        format=job.format or spec.native_format,
        offload=job.offload,
        guidance=job.guidance,
    )


def clip_seconds(book: d.DiffusionBook, spec: d.DiffusionSpec, gpu: GpuSpec, run: d.Run, gpus: int) -> float:
    """One clip's seconds on ``gpus`` cards: denoising ÷ the USP speed-up, then decode and copies."""
    t = d.timing(book, spec, gpu, run)
    return t.denoise_s / d.sp_speedup(book.sequence_parallel, gpus) + t.vae_s + t.offload_s


def plan(job: VideoGenJob, kb: Knowledge, book: d.DiffusionBook) -> JobPlan:
    """The priced answer for a video job, or ``sized=False`` with the reason."""
    spec = book.find(job.model)
    if spec is None or spec.kind != "video":
        return unknown_model(job.model, book, "video_gen")
    if job.gpu is not None and job.gpu not in kb.gpus:
        return unknown_card(job.gpu, kb, "video_gen", spec.name)
    run = run_of(job, spec)
    per_hour = job.clips_per_day / 24.0 / 0.8 if job.clips_per_day else None
    ranked, not_rented = offers.rank_for(
        kb, _rate(book, spec, run, job.gpus), per_hour=per_hour, units=job.clips, gpu=job.gpu
    )
    card = kb.gpus[job.gpu] if job.gpu else (ranked[0].gpu if ranked else None)
    sp = _cards_per_clip(ranked[0]) if ranked and not job.gpu else (job.gpus or 1)
    options = [offers.option(p, _metrics(book, spec, run, p), [_per_clip(p)]) for p in ranked]
    need = d.memory_gib(book, spec, run)
    check = DiffusionCheck(
        spec=spec,
        run=run,
        gpu=card,
        need_gib=d.memory_gib(book, spec, run, sp),
        card_gib=card.usable_gib if card else None,
        fp8_gib=d.memory_gib(book, spec, replace(run, format="fp8"), sp),
        offload_gib=d.memory_gib(book, spec, replace(run, offload="model")),
        gpus=sp,
        speedup=d.sp_speedup(book.sequence_parallel, sp),
    )
    tool = own_tool(spec, job.tool, sp)
    return JobPlan(
        family="video_gen",
        model=spec.name,
        pick=options[0] if options else None,
        alternatives=options[1:4],
        cheaper=cheaper_than(options),
        findings=[*not_rented, *why(book, spec, run, card, sp, need), *pitfalls(check)],
        assumptions=assumptions(job, run),
        command=diffusion_command(spec, run, tool, sp),
        tool=tool,
    )


def _rate(book: d.DiffusionBook, spec: d.DiffusionSpec, run: d.Run, asked: int | None) -> offers.Rate:
    def rate(offer: Offer, gpu: GpuSpec, memory_gib: float) -> offers.Fit | None:
        counts = [asked] if asked else [g for g in SP_COUNTS if g <= offer.count]
        for g in counts:
            if g > offer.count or offer.count % g:
                continue
            need = d.memory_gib(book, spec, run, g)
            if need <= memory_gib:
                side_by_side = offer.count // g
                share = offers.compute_share(offer)
                per_hour = side_by_side * share * 3600.0 / clip_seconds(book, spec, gpu, run, g)
                return offers.Fit(units_per_hour=per_hour, memory_gib=need, cards=g)
        return None

    return rate


def own_tool(spec: d.DiffusionSpec, asked: str, gpus: int) -> str:
    """The model's own repository when a clip spans several cards (ComfyUI runs one card a clip),
    or when the tool asked for is another model's repository (Wan's generate.py cannot load
    HunyuanVideo)."""
    own = next((t for t in ("wan", "hunyuanvideo") if t in spec.tools), "diffusers")
    if gpus > 1 and asked == "comfyui":
        return own
    if asked in ("wan", "hunyuanvideo") and asked not in spec.tools:
        return own
    return asked


def _cards_per_clip(p: offers.Priced) -> int:
    return p.fit.cards


def _metrics(book: d.DiffusionBook, spec: d.DiffusionSpec, run: d.Run, p: offers.Priced) -> list[JobMetric]:
    seconds = clip_seconds(book, spec, p.gpu, run, p.fit.cards)
    return [
        JobMetric(id="minutes_per_clip", value=round(seconds / 60, 2), unit="min"),
        JobMetric(id="cards_per_clip", value=p.fit.cards, unit="gpu"),
        JobMetric(id="clips_per_hour_per_machine", value=round(p.fit.units_per_hour, 2), unit="clip/h"),
    ]


def _per_clip(p: offers.Priced) -> JobMetric:
    return offers.unit_cost(p, 1, "per_clip")


def why(
    book: d.DiffusionBook, spec: d.DiffusionSpec, run: d.Run, card: GpuSpec | None, gpus: int, need: float
) -> list[Finding]:
    """The arithmetic ``/why`` shows: the tokens, memory, one pass, one clip, the parallel speed-up."""
    out = [d.memory_finding(spec, run, need)]
    if card is None:
        return out
    t = d.timing(book, spec, card, run)
    one = clip_seconds(book, spec, card, run, 1)
    out.append(
        finding(
            "video_seconds",
            gpu=card.name,
            frames=run.frames,
            latent_frames=d.latent_frames(spec, run.frames),
            tokens=t.tokens,
            passes=t.passes,
            pass_tflop=t.pass_tflop,
            pass_s=t.pass_s,
            vae_s=t.vae_s,
            minutes_one_card=one / 60,
            gpus=gpus,
            minutes=clip_seconds(book, spec, card, run, gpus) / 60,
        )
    )
    return out


def assumptions(job: VideoGenJob, run: d.Run) -> list[Finding]:
    """Defaults the answer took because the request left them out."""
    out = []
    if job.width is None or job.height is None:
        out.append(finding("assumed_resolution", width=run.width, height=run.height))
    if job.frames is None and job.seconds is None:
        out.append(finding("assumed_frames", value=run.frames))
    if job.steps is None:
        out.append(finding("assumed_steps", value=run.steps))
    if job.clips_per_day is not None:
        out.append(finding("assumed_video_utilisation", value=0.8))
    return out
