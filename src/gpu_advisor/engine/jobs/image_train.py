"""Image fine-tuning: LoRA, DreamBooth and full fine-tunes of SD 1.5, SDXL and Flux (kohya-ss
sd-scripts, ai-toolkit, diffusers' training examples) — memory, steps, hours and cost.

**Steps** = ceil(images × repeats ÷ batch) × epochs (kohya's ``num_repeats`` folder prefix;
DreamBooth's prior preservation adds as many class images, doubling each step's samples).

**A step** runs the denoiser forward and backward once per sample at the training resolution
(no guidance in training): forward 1 + backward through the activations 1 (a LoRA's weight
gradients are tiny; a full fine-tune's add 1) + the forward again under gradient
checkpointing. So a LoRA step is 3 passes' work with checkpointing, a full step 4, each at
the pass time of ``engine/jobs/diffusion.py``, times the trainer's measured slowdown
(``training.step_factor`` in ``knowledge/diffusion.yaml``: a batch-1 kohya step runs at a
fifth of the inference rate), plus, for a full fine-tune, the optimizer's sweep over its
states at memory speed.

**Memory** = the frozen base in its format (FP8/NF4 base weights are how a Flux LoRA fits
24 GB: kohya ``--fp8_base``, ai-toolkit ``quantize: true``) + the trainable parameters with
their gradient and optimizer states (AdamW 8 bytes of fp32 moments, AdamW8bit 2, Adafactor
~4; a full fine-tune also keeps an fp32 master copy) + activations (with checkpointing one
saved hidden state per layer plus one layer's working set) + the CUDA context. Text encoder
outputs and VAE latents are cached first, as kohya's ``--cache_latents`` and
``--cache_text_encoder_outputs`` do, so neither sits on the card while training.

A LoRA adapter's parameters: rank × (in + out) for each adapted matrix; attention's four
h×h matrices and the MLP's h×4h pair give 18 · rank · h per block (h the block's width; a
UNet's transformer blocks run at 4× its base width on average: SDXL's 640 and 1280).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.jobs import diffusion as d
from gpu_advisor.engine.jobs import offers
from gpu_advisor.engine.jobs.diffusion_launch import trainer_command
from gpu_advisor.engine.jobs.image import unknown_card, unknown_model
from gpu_advisor.engine.jobs.plan import JobMetric, JobPlan, cheaper_than
from gpu_advisor.engine.rules.diffusion_jobs import DiffusionCheck, pitfalls
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Offer

Method = Literal["lora", "dreambooth", "full"]
Optimizer = Literal["adamw", "adamw8bit", "adafactor"]
TrainTool = Literal["kohya", "ai-toolkit", "diffusers"]
STATE_BYTES: dict[str, float] = {"adamw": 8.0, "adamw8bit": 2.0, "adafactor": 4.0}
DATA_PARALLEL_EFFICIENCY = 0.9  # DDP across a machine's cards: gradients all-reduced every step


class ImageTrainJob(BaseModel):
    """An image fine-tuning job as the JSON contract takes it (``family: image_train``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Literal["image_train"] = "image_train"
    model: str = Field("sdxl", min_length=1, max_length=80)
    method: Method = "lora"
    images: int = Field(20, ge=1, le=10_000_000, description="training images")
    repeats: int = Field(10, ge=1, le=1000)
    epochs: int = Field(10, ge=1, le=10_000)
    batch: int = Field(1, ge=1, le=256)
    resolution: int | None = Field(None, ge=256, le=2048, description="square side; the model's native")
    rank: int = Field(16, ge=1, le=1024, description="LoRA rank")
    base_format: d.WeightFormat | None = Field(None, description="the frozen base's format (fp8/nf4 to fit)")
    optimizer: Optimizer = "adamw8bit"
    gradient_checkpointing: bool = True
    tool: TrainTool = "kohya"
    gpu: str | None = None


def trains_on(spec: d.DiffusionSpec, gpu: GpuSpec) -> bool:
    """A BF16-native model (Flux, SD 3.5) trains only where the card has BF16 (FP16 overflows its
    activations); the FP16 UNets of SD 1.5 and SDXL train on Turing and Volta too."""
    return spec.native_format != "bf16" or bool(gpu.dense_tflops.get("bf16"))


def steps(job: ImageTrainJob) -> int:
    """Optimizer steps: ceil(images × repeats ÷ batch) × epochs."""
    return math.ceil(job.images * job.repeats / job.batch) * job.epochs


def samples(job: ImageTrainJob) -> float:
    """Samples the run pushes through the denoiser (prior preservation doubles DreamBooth's)."""
    return job.images * job.repeats * job.epochs * (2 if job.method == "dreambooth" else 1)


def lora_params_b(spec: d.DiffusionSpec, rank: int) -> float:
    """A LoRA adapter's parameters, billions (18 · rank · width per block)."""
    width = spec.hidden * (4 if spec.denoiser == "unet" else 1)
    return 18 * rank * width * spec.layers / 1e9


def memory_gib(spec: d.DiffusionSpec, job: ImageTrainJob, side: int, fmt: d.WeightFormat) -> float:
    """Peak GiB on the card (see the module docstring)."""
    full = job.method != "lora"
    states = STATE_BYTES[job.optimizer]
    base = spec.params_b * 1e9 * (2.0 if full else d.BYTES[fmt])
    trainable = spec.params_b if full else lora_params_b(spec, job.rank)
    per_trainable = (2.0 + states + 4.0) if full else (4.0 + 4.0 + states)
    n = d.tokens(spec, side, side)
    positions = n * spec.patch**2 if spec.denoiser == "unet" else n
    one_layer = d.ACT_BYTES_PER_TOKEN_HIDDEN * positions * spec.hidden * job.batch
    saved = 2.0 * positions * spec.hidden * job.batch * spec.layers
    act = saved + one_layer if job.gradient_checkpointing else one_layer * spec.layers / 2
    return (base + trainable * 1e9 * per_trainable + act) / d.GIB + d.CUDA_CONTEXT_GIB


def step_seconds(
    book: d.DiffusionBook, spec: d.DiffusionSpec, gpu: GpuSpec, job: ImageTrainJob, side: int
) -> float:
    """One optimizer step on one card: (2 or 3) + checkpointing passes per sample, the optimizer sweep."""
    passes = (2 if job.method == "lora" else 3) + (1 if job.gradient_checkpointing else 0)
    per_sample = 2 if job.method == "dreambooth" else 1
    work = d.pass_tflop(spec, d.tokens(spec, side, side)) * passes * job.batch * per_sample
    compute = book.training.step_factor * d.pass_seconds(
        book.fits[spec.denoiser], work, d.peak_tflops(gpu, "bf16"), gpu
    )
    sweep = spec.params_b * 1e9 * 32 / (gpu.bandwidth_gbs * 1e9) if job.method != "lora" else 0.0
    return compute + sweep


def plan(job: ImageTrainJob, kb: Knowledge, book: d.DiffusionBook) -> JobPlan:
    """The priced answer for a fine-tune, or ``sized=False`` with the reason."""
    spec = book.find(job.model)
    if spec is None or spec.kind != "image":
        return unknown_model(job.model, book, "image_train")
    if job.gpu is not None and job.gpu not in kb.gpus:
        return unknown_card(job.gpu, kb, "image_train", spec.name)
    side = job.resolution or max(spec.width, spec.height)
    fmt = job.base_format or spec.native_format
    need = memory_gib(spec, job, side, fmt)
    ranked, not_rented = offers.rank_for(
        kb, _rate(book, spec, job, side, need), units=samples(job), gpu=job.gpu
    )
    card = kb.gpus[job.gpu] if job.gpu else (ranked[0].gpu if ranked else None)
    options = [
        offers.option(p, _metrics(book, spec, job, side, p), [_per_run(p, job), _per_step(p, job)])
        for p in ranked
    ]
    run = d.Run(width=side, height=side, steps=steps(job), batch=job.batch, format=fmt)
    check = DiffusionCheck(
        spec=spec,
        run=run,
        gpu=card,
        need_gib=need,
        card_gib=card.usable_gib if card else None,
        fp8_gib=memory_gib(spec, job, side, "fp8"),
        offload_gib=memory_gib(spec, job, side, "nf4"),
    )
    return JobPlan(
        family="image_train",
        model=spec.name,
        pick=options[0] if options else None,
        alternatives=options[1:4],
        cheaper=cheaper_than(options),
        findings=[*not_rented, *why(book, spec, job, side, fmt, card, need), *pitfalls(check)],
        assumptions=_assumptions(job, side, fmt),
        command=trainer_command(spec, job.tool, job.method),
        tool=job.tool,
    )


def _rate(
    book: d.DiffusionBook, spec: d.DiffusionSpec, job: ImageTrainJob, side: int, need: float
) -> offers.Rate:
    def rate(offer: Offer, gpu: GpuSpec, memory_gib: float) -> offers.Fit | None:
        if need > memory_gib or not trains_on(spec, gpu):
            return None
        per_card = 3600.0 * job.batch / step_seconds(book, spec, gpu, job, side)
        scale = (
            offer.count * (DATA_PARALLEL_EFFICIENCY if offer.count > 1 else 1.0) * offers.compute_share(offer)
        )
        return offers.Fit(units_per_hour=per_card * scale, memory_gib=need, cards=offer.count)

    return rate


def _metrics(
    book: d.DiffusionBook, spec: d.DiffusionSpec, job: ImageTrainJob, side: int, p: offers.Priced
) -> list[JobMetric]:
    step_s = step_seconds(book, spec, p.gpu, job, side)
    return [
        JobMetric(id="s_per_step", value=round(step_s, 3), unit="s"),
        JobMetric(id="steps", value=steps(job), unit="step"),
        JobMetric(id="train_hours", value=round(p.job_hours or 0.0, 3), unit="h"),
    ]


def _per_run(p: offers.Priced, job: ImageTrainJob) -> JobMetric:
    """The whole run's card time at the hourly rate: what one more run of this size adds once
    the machine is rented (the billed month is ``job_cost``); the unit a renter compares first."""
    return offers.unit_cost(p, samples(job), "per_run")


def _per_step(p: offers.Priced, job: ImageTrainJob) -> JobMetric:
    return offers.unit_cost(p, job.batch * (2 if job.method == "dreambooth" else 1) * 1000, "per_1000_steps")


def why(
    book: d.DiffusionBook,
    spec: d.DiffusionSpec,
    job: ImageTrainJob,
    side: int,
    fmt: d.WeightFormat,
    card: GpuSpec | None,
    need: float,
) -> list[Finding]:
    """The arithmetic ``/why`` shows: steps from the data set, memory, one step's seconds."""
    out = [
        finding(
            "train_steps",
            images=job.images,
            repeats=job.repeats,
            epochs=job.epochs,
            batch=job.batch,
            steps=steps(job),
        ),
        finding(
            "train_memory",
            model=spec.name,
            method=job.method,
            base_format=fmt,
            lora_params_m=lora_params_b(spec, job.rank) * 1000 if job.method == "lora" else None,
            optimizer=job.optimizer,
            resolution=side,
            total_gib=need,
        ),
    ]
    if card is not None:
        step_s = step_seconds(book, spec, card, job, side)
        out.append(
            finding("train_seconds", gpu=card.name, s_per_step=step_s, hours=steps(job) * step_s / 3600)
        )
    return out


def _assumptions(job: ImageTrainJob, side: int, fmt: d.WeightFormat) -> list[Finding]:
    out = [finding("assumed_cached_latents", value=True)]
    if job.resolution is None:
        out.append(finding("assumed_resolution", width=side, height=side))
    if job.base_format is None:
        out.append(finding("assumed_weight_format", value=fmt))
    return out
