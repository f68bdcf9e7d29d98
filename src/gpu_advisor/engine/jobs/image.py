"""Image generation: seconds per image, images per hour and day, cards for a daily volume, cost
per 1,000 images (SD 1.5, SDXL, SD 3.5, Flux.1, Kolors, Hunyuan-DiT; ComfyUI, diffusers, Forge).

One image costs steps × passes × one denoiser pass at its latent size, plus the VAE decode
(``engine/jobs/diffusion.py`` for the arithmetic and the fitted constants). Every card of a
machine runs its own pipeline, so a machine makes ``cards × 3600 / s_per_image`` images an
hour. A service is sized by its peak hour, not its average: with ``images_per_day`` and the
share of the day's images that arrive in the busiest hour (``peak_share``, 10 % unless told:
2.4× the average hour), the fleet must make ``images_per_day × peak_share / utilisation``
images an hour, utilisation the share of an hour a card is kept busy (0.8: queueing keeps
the rest). Cost per 1,000 images is the machine's hourly price ÷ its images an hour × 1,000.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine import cost
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.jobs import diffusion as d
from gpu_advisor.engine.jobs import offers
from gpu_advisor.engine.jobs.diffusion_launch import diffusion_command
from gpu_advisor.engine.jobs.plan import JobFamily, JobMetric, JobOption, JobPlan, cheaper_than
from gpu_advisor.engine.rules.diffusion_jobs import DiffusionCheck, pitfalls
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Offer

ImageTool = Literal["comfyui", "diffusers", "forge"]
PEAK_SHARE = 0.10
UTILISATION = 0.8


class ImageGenJob(BaseModel):
    """An image-generation job as the JSON contract takes it (``family: image_gen``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Literal["image_gen"] = "image_gen"
    model: str = Field("sdxl", min_length=1, max_length=80, description="sdxl, flux1-dev, sd15, sd35-large…")
    width: int | None = Field(None, ge=64, le=4096, description="pixels; the model's native size if absent")
    height: int | None = Field(None, ge=64, le=4096)
    steps: int | None = Field(None, ge=1, le=200, description="sampling steps; the model's default if absent")
    batch: int = Field(1, ge=1, le=64, description="images per pass")
    format: d.WeightFormat | None = Field(None, description="bf16, fp16, fp8, gguf_q8, nf4, gguf_q4")
    format_search: bool = Field(
        True,
        description="with no format given: a card that cannot hold the model's own format runs it in "
        "FP8 or NF4 (the quality cost is said); false keeps every card to the model's own format",
    )
    offload: d.Offload = "none"
    guidance: bool | None = Field(None, description="force classifier-free guidance on or off")
    images_per_day: float | None = Field(None, gt=0, le=1e9)
    peak_share: float | None = Field(
        None, gt=0, le=1, description="share of a day's images in the busiest hour"
    )
    utilisation: float = Field(UTILISATION, gt=0, le=1)
    tool: ImageTool = "comfyui"
    gpu: str | None = Field(None, description="a card id (rtx4090, a100-40g-sxm…) to size the job on")


def run_of(job: ImageGenJob, spec: d.DiffusionSpec) -> d.Run:
    """The run the request describes, the model's defaults filling what it leaves out."""
    return d.Run(
        width=job.width or spec.width,
        height=job.height or spec.height,
        steps=job.steps or spec.steps,
        batch=job.batch,
        format=job.format or spec.native_format,
        offload=job.offload,
        guidance=job.guidance,
    )


def plan(job: ImageGenJob, kb: Knowledge, book: d.DiffusionBook) -> JobPlan:
    """The priced answer for an image job, or ``sized=False`` with the reason.

    With no format asked, each offer runs the best format its card holds (:func:`ladder`):
    the model's own where it fits, else FP8, else NF4 — so "Flux dev, 3,000 a day" can land on
    24 GB cards in FP8 when that costs less than 40 GB cards in BF16, as the LLM path weighs a
    quantised build. A lower format is never taken where the higher one fits (its speed figure
    is always at the best quality the card holds), and the plan says what it gives up
    (``diffusion_lower_format``)."""
    spec = book.find(job.model)
    if spec is None or spec.kind != "image":
        return unknown_model(job.model, book, "image_gen")
    if job.gpu is not None and job.gpu not in kb.gpus:
        return unknown_card(job.gpu, kb, "image_gen", spec.name)
    run = run_of(job, spec)
    runs = ladder(job, spec, run)
    rate = _rate(book, spec, runs)
    ranked, not_rented = offers.rank_for(kb, rate, per_hour=per_hour_needed(job), gpu=job.gpu)
    card = kb.gpus[job.gpu] if job.gpu else (ranked[0].gpu if ranked else None)
    card_run = (_fitting(book, spec, runs, card.usable_gib) if card else None) or run
    per_image = offers.rank(kb, rate)
    check = checked(book, spec, card_run, card, per_image)
    if card_run.format != run.format:
        check = _lowered(check, book, spec, run, ranked or per_image, kb)
    options = [_option(book, spec, runs, p, kb) for p in ranked]
    return JobPlan(
        family="image_gen",
        model=spec.name,
        pick=options[0] if options else None,
        alternatives=options[1:4],
        findings=[*not_rented, *why(book, spec, card_run, card, job), *pitfalls(check)],
        assumptions=assumptions(job, spec, card_run),
        command=diffusion_command(spec, card_run, job.tool),
        tool=job.tool,
        cheaper=cheaper_than(options),
    )


def ladder(job: ImageGenJob, spec: d.DiffusionSpec, run: d.Run) -> list[d.Run]:
    """The runs an offer may take, best quality first: the one asked, or the model's own format
    then the searched lower ones (``diffusion.format_ladder``)."""
    if job.format is not None or not job.format_search:
        return [run]
    return [replace(run, format=f) for f in d.format_ladder(run.format)]


def _fitting(book: d.DiffusionBook, spec: d.DiffusionSpec, runs: list[d.Run], gib: float) -> d.Run | None:
    """The best-quality run whose memory a card of ``gib`` holds, None where none does."""
    return next((r for r in runs if d.memory_gib(book, spec, r) <= gib), None)


def _option(
    book: d.DiffusionBook, spec: d.DiffusionSpec, runs: list[d.Run], p: offers.Priced, kb: Knowledge
) -> JobOption:
    run = _fitting(book, spec, runs, offers.card_memory_gib(kb, p.offer)) or runs[0]
    option = offers.option(p, _metrics(book, spec, run, p.gpu), _unit_costs(p))
    return option.model_copy(update={"format": run.format})


def _lowered(
    check: DiffusionCheck,
    book: d.DiffusionBook,
    spec: d.DiffusionSpec,
    native: d.Run,
    ranked: list[offers.Priced],
    kb: Knowledge,
) -> DiffusionCheck:
    """The check of a card run below the model's own format, told the format's quality tier,
    the native need, and the cheapest ranked option that runs the native format."""
    need = d.memory_gib(book, spec, native)
    at_native = next((p for p in ranked if need <= offers.card_memory_gib(kb, p.offer)), None)
    quality = book.format_quality.get(check.run.format)
    fx = kb.catalog.fx_to_cny
    return replace(
        check,
        native_format=native.format,
        native_gib=need,
        quality=quality.tier if quality else None,
        native_gpu=at_native.gpu.name if at_native else None,
        native_machines=at_native.machines * at_native.fit.cards if at_native else None,
        native_month=cost.in_cny(at_native.month, fx) if at_native else None,
        pick_month=cost.in_cny(ranked[0].month, fx) if ranked else None,
    )


def per_hour_needed(job: ImageGenJob) -> float | None:
    """Images an hour the fleet must make at the peak, busy ``utilisation`` of each hour."""
    if job.images_per_day is None:
        return None
    return job.images_per_day * (job.peak_share or PEAK_SHARE) / job.utilisation


def _rate(book: d.DiffusionBook, spec: d.DiffusionSpec, runs: list[d.Run]) -> offers.Rate:
    """Each offer at the best run its card holds (``runs`` best first)."""

    def rate(offer: Offer, gpu: GpuSpec, memory_gib: float) -> offers.Fit | None:
        run = _fitting(book, spec, runs, memory_gib)
        if run is None:
            return None
        need = d.memory_gib(book, spec, run)
        seconds = d.timing(book, spec, gpu, run).total_s
        per_hour = 3600.0 / seconds * offer.count * offers.compute_share(offer)
        return offers.Fit(units_per_hour=per_hour, memory_gib=need, cards=offer.count)

    return rate


def _metrics(book: d.DiffusionBook, spec: d.DiffusionSpec, run: d.Run, gpu: GpuSpec) -> list[JobMetric]:
    seconds = d.timing(book, spec, gpu, run).total_s
    return [
        JobMetric(id="s_per_image", value=round(seconds, 3), unit="s"),
        JobMetric(id="images_per_hour_per_card", value=round(3600 / seconds, 1), unit="image/h"),
        JobMetric(id="images_per_day_per_card", value=round(86400 / seconds), unit="image/day"),
    ]


def _unit_costs(p: offers.Priced) -> list[JobMetric]:
    return [offers.unit_cost(p, 1000, "per_1000_images")]


def why(
    book: d.DiffusionBook, spec: d.DiffusionSpec, run: d.Run, card: GpuSpec | None, job: ImageGenJob
) -> list[Finding]:
    """The arithmetic ``/why`` shows: the parts' memory, one image's seconds, the fleet."""
    out = [d.memory_finding(spec, run, d.memory_gib(book, spec, run))]
    if card is not None:
        t = d.timing(book, spec, card, run)
        out.append(
            finding(
                "image_seconds",
                gpu=card.name,
                steps=run.steps,
                per_step=t.passes // run.steps,
                passes=t.passes,
                tokens=t.tokens,
                pass_tflop=t.pass_tflop,
                pass_s=t.pass_s,
                vae_s=t.vae_s,
                offload_s=t.offload_s,
                s_per_image=t.total_s,
                images_per_hour=3600 / t.total_s,
            )
        )
        if job.images_per_day is not None:
            out.append(fleet(job, 3600 / t.total_s, card))
    return out


def fleet(job: ImageGenJob, per_card_hour: float, card: GpuSpec) -> Finding:
    """Cards a daily volume needs at its peak hour on ``card``."""
    need = per_hour_needed(job) or 0.0
    return finding(
        "image_fleet",
        images_per_day=job.images_per_day,
        peak_share=job.peak_share or PEAK_SHARE,
        peak_per_hour=(job.images_per_day or 0.0) * (job.peak_share or PEAK_SHARE),
        utilisation=job.utilisation,
        per_card_hour=per_card_hour,
        gpu=card.name,
        cards=max(1, math.ceil(need / per_card_hour - 1e-9)),
    )


def checked(
    book: d.DiffusionBook,
    spec: d.DiffusionSpec,
    run: d.Run,
    card: GpuSpec | None,
    per_image: list[offers.Priced],
) -> DiffusionCheck:
    """What the pitfall rules read for this run on ``card``; ``per_image`` ranks every offer by
    its cost per image (no volume), so the card's and the cheapest consumer card's can be set
    side by side."""
    need = d.memory_gib(book, spec, run)
    fp8 = d.memory_gib(book, spec, replace(run, format="fp8"))
    further: d.Offload = "sequential" if run.offload != "none" else "model"
    offload = d.memory_gib(book, spec, replace(run, offload=further))
    offload_s = d.timing(book, spec, card, run).offload_s if card else 0.0
    return DiffusionCheck(
        spec=spec,
        run=run,
        gpu=card,
        need_gib=need,
        card_gib=card.usable_gib if card else None,
        fp8_gib=fp8,
        offload_gib=offload,
        offload_s=offload_s,
        card_per_1000=_per_1000(p for p in per_image if card is not None and p.gpu.id == card.id),
        consumer_per_1000=_per_1000(p for p in per_image if p.gpu.segment == "consumer"),
        consumer_gpu=next((p.gpu.name for p in per_image if p.gpu.segment == "consumer"), None),
    )


def _per_1000(ranked: Iterable[offers.Priced]) -> float | None:
    """The first (cheapest) offer's cost per 1,000 images in CNY, None when there is none."""
    first = next(iter(ranked), None)
    return first.rank_cny * 1000 if first is not None else None


def assumptions(job: ImageGenJob, spec: d.DiffusionSpec, run: d.Run) -> list[Finding]:
    """Defaults the answer took because the request left them out."""
    out = []
    if job.width is None or job.height is None:
        out.append(finding("assumed_resolution", width=run.width, height=run.height))
    if job.steps is None:
        out.append(finding("assumed_steps", value=run.steps))
    if job.format is None:
        out.append(finding("assumed_weight_format", value=run.format))
    if job.images_per_day is not None and job.peak_share is None:
        out.append(finding("assumed_peak_share", value=PEAK_SHARE))
    out.append(finding("assumed_guidance", value=spec.guidance))
    return out


def unknown_model(name: str, book: d.DiffusionBook, family: JobFamily) -> JobPlan:
    """A model the family cannot size: say so, list what it knows, never fall back to an LLM."""
    kind = "video" if family == "video_gen" else "image"
    known = sorted(s.name for s in book.models.values() if s.kind == kind)
    return JobPlan(
        family=family,
        model=name,
        sized=False,
        findings=[finding("diffusion_model_unknown", "warning", model=name, known=known)],
    )


def unknown_card(gpu: str, kb: Knowledge, family: JobFamily, model: str) -> JobPlan:
    """A card id the knowledge base does not hold."""
    return JobPlan(
        family=family,
        model=model,
        sized=False,
        findings=[finding("diffusion_card_unknown", "warning", gpu=gpu, known=sorted(kb.gpus)[:40])],
    )
