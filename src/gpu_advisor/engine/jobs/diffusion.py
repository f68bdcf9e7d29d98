"""What every diffusion job shares: the pipeline's parts, its latent tokens, a denoiser pass's
work and time on a card, and the memory the parts take in the format they run.

**Tokens.** A VAE compresses each side of the image ``spatial`` times (8 for SD/SDXL/Flux/
Wan, 16 for Wan2.2 TI2V, 32 for LTX-Video) and a clip's frames ``temporal`` times (4 for
Wan/HunyuanVideo/CogVideoX, 8 for LTX): latent frames = 1 + (frames − 1) / temporal (the
causal VAEs keep the first frame). A DiT cuts the latent into ``patch``² squares:

    tokens = latent_frames × (H / spatial / patch) × (W / spatial / patch)

A UNet has no patches; most of its parameters sit at a quarter of the latent's side (SDXL's
10-layer transformer blocks at 32×32 of a 128×128 latent), so its work is counted over
tokens at ``patch`` 4 — an effective stride, written in each UNet's spec.

**Work of one pass** (a forward of the denoiser), in FLOPs:

    2 · P · n  +  4 · layers · (n + text)² · hidden

— the weights' multiply-adds once per token, plus attention's QKᵀ and AV over the joint
image+text sequence (MMDiT and Flux attend jointly; a UNet's cross-attention is small and
its term is left out). Classifier-free guidance runs the pass twice a step (SD 1.5, SDXL,
SD 3.5, Wan, CogVideoX); Flux dev and HunyuanVideo have guidance distilled in, schnell
and turbo models drop it.

**Time of one pass** on a card whose dense FP16/BF16 tensor peak is ``peak`` TFLOPS:

    t = overhead + work / (k · peak^γ · x^β)

``x`` is the card's board power ÷ 300 W (or its memory bandwidth in TB/s; the fit chooses):
a 70 W T4 or a 150 W A10 cannot hold its tensor clocks, and the norms, softmax and rotary
embeddings between the GEMMs run at memory speed, so achieved throughput is not the peak's
share alone; ``overhead`` is the per-pass launch cost that dominates small UNets.
(overhead, k, γ, β, the feature) are fitted per denoiser class on the *fit* rows of
``knowledge/diffusion.yaml`` only (``bench/diffusion_fit.py``); the held-out rows measure
the error. The fits chose power for both classes; with the peak alone (no ``x``) the UNet's
held-out RTX 4090 row was 3× slow.

**Memory** = each part's parameters × the bytes of its format (BF16/FP16 2, FP8 1, Q8 GGUF
1.06, NF4/Q4 GGUF 0.56: 4.5 bits with block scales) + activations (24 bytes per token and
hidden unit: the dozen live hidden-width tensors of one block in BF16, × the CFG batch ×
the batch) + the VAE decode's workspace + the CUDA context. CPU offload keeps only the
largest part on the card (diffusers' ``enable_model_cpu_offload``, ComfyUI's lowvram) and
pays a PCIe copy of the parts per image or clip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt

from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.specs import GpuSpec

Denoiser = Literal["unet", "dit"]
Guidance = Literal["cfg", "distilled", "none"]
WeightFormat = Literal["bf16", "fp16", "fp8", "gguf_q8", "nf4", "gguf_q4"]
Offload = Literal["none", "model", "sequential"]
Feature = Literal["bandwidth", "power"]

BYTES: dict[str, float] = {
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "gguf_q8": 1.0625,
    "nf4": 0.5625,
    "gguf_q4": 0.5625,
}
ACT_BYTES_PER_TOKEN_HIDDEN = 24.0
CUDA_CONTEXT_GIB = 0.6  # the CUDA context and PyTorch's allocator slack on an idle card
PCIE_GBS = 20.0  # what a Gen4 ×16 link moves in practice host→device (pinned ~25, pageable ~12)
GIB = 1024**3


class TextEncoder(BaseModel):
    """One text encoder of a pipeline (CLIP-L, OpenCLIP-bigG, T5-XXL, ChatGLM3, umT5...)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    params_b: PositiveFloat


class DiffusionSpec(BaseModel):
    """A diffusion model as its repository and config.json describe it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    repo: str = Field(description="the Hugging Face repository the launch command loads")
    name: str
    aliases: list[str] = Field(default_factory=list)
    kind: Literal["image", "video"]
    denoiser: Denoiser
    params_b: PositiveFloat = Field(description="the denoiser's parameters, billions")
    resident_params_b: PositiveFloat | None = Field(
        None, description="parameters held at once when larger (Wan2.2 A14B keeps two 14B experts)"
    )
    layers: PositiveInt
    hidden: PositiveInt
    patch: PositiveInt
    patch_t: PositiveInt = 1
    text_tokens: int = Field(ge=0)
    text_encoders: list[TextEncoder]
    vae_params_b: PositiveFloat
    spatial: PositiveInt = 8
    temporal: PositiveInt = 1
    guidance: Guidance
    steps: PositiveInt
    width: PositiveInt
    height: PositiveInt
    frames: PositiveInt = 1
    fps: PositiveInt | None = None
    native_format: WeightFormat = "bf16"
    tools: list[str] = Field(default_factory=list)
    source: str = Field(min_length=8)


class SpeedRow(BaseModel):
    """One published timing: a model on a card at a resolution, steps and frames."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    gpu: str
    width: PositiveInt
    height: PositiveInt
    frames: PositiveInt = 1
    steps: PositiveInt
    seconds: PositiveFloat
    gpus: PositiveInt = 1
    format: WeightFormat = "fp16"
    offload: Offload = "none"
    split: Literal["fit", "holdout"]
    note: str = ""
    source: str = Field(min_length=8)


class MemoryRow(BaseModel):
    """One published peak memory of a model at a size (GB as the repository prints it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    width: PositiveInt
    height: PositiveInt
    frames: PositiveInt = 1
    gb: PositiveFloat
    format: WeightFormat = "bf16"
    offload: Offload = "none"
    source: str = Field(min_length=8)


class ClassFit(BaseModel):
    """The fitted pass-time constants of one denoiser class (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    overhead_ms: float = Field(ge=0.0)
    k: PositiveFloat
    gamma: float = Field(ge=0.0, le=1.5)
    beta: float = Field(0.0, ge=0.0, le=1.5, description="exponent of the second feature")
    feature: Feature = Field(
        "bandwidth", description="memory bandwidth in TB/s, or board power in units of 300 W"
    )
    source: str = Field(min_length=8)


class SequenceParallel(BaseModel):
    """Published speed-ups of multi-GPU sequence parallelism (xDiT USP) by GPU count."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    speedup: dict[int, PositiveFloat]
    source: str = Field(min_length=8)


class VaeDecode(BaseModel):
    """A VAE decode's measured time per megapixel on a reference card, and its workspace."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seconds_per_mp: PositiveFloat
    reference_tflops: PositiveFloat
    workspace_gib_per_mp: PositiveFloat
    source: str = Field(min_length=8)


class TrainRow(BaseModel):
    """One published fine-tuning speed: seconds per optimizer step at a resolution and batch."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    gpu: str
    method: Literal["lora", "dreambooth", "full"] = "lora"
    resolution: PositiveInt
    batch: PositiveInt = 1
    gradient_checkpointing: bool = True
    seconds_per_step: PositiveFloat
    split: Literal["fit", "holdout"]
    note: str = ""
    source: str = Field(min_length=8)


class Training(BaseModel):
    """How much slower a trainer's step runs than its passes' work at the inference rate.

    A kohya step at batch 1 is far from the GEMM rate: fp32 adapter matmuls beside the bf16
    base, the backward's many small kernels, the optimizer and the data loader between steps.
    ``step_factor`` is the measured over the modelled step time on the fit rows.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    step_factor: PositiveFloat
    rows: list[TrainRow]
    source: str = Field(min_length=8)


class FormatQuality(BaseModel):
    """What running the weights in a lower format costs in images, as its sources describe it:
    ``near`` (8-bit: close to the 16-bit output, small detail differences) or ``lossy``
    (4-bit: detail loss to check on one's own prompts)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tier: Literal["near", "lossy"]
    source: str = Field(min_length=8)


SEARCHED_FORMATS: tuple[WeightFormat, ...] = ("fp8", "nf4")
"""The lower formats a job that names none may run in where its own does not fit: FP8 (ComfyUI's
and diffusers' 8-bit path) and NF4 (Forge's and diffusers' bitsandbytes 4-bit path). GGUF Q8/Q4
take the same or more memory than these and run no faster on the cards the catalog rents."""


def format_ladder(native: WeightFormat) -> tuple[WeightFormat, ...]:
    """The model's own format, then each searched format that holds fewer bytes, best first."""
    return (native, *(f for f in SEARCHED_FORMATS if BYTES[f] < BYTES[native]))


class DiffusionBook(BaseModel):
    """``knowledge/diffusion.yaml``: model specs, measured speeds and the fitted constants."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: dict[str, DiffusionSpec]
    format_quality: dict[WeightFormat, FormatQuality] = Field(default_factory=dict)
    speeds: list[SpeedRow]
    memory: list[MemoryRow] = Field(default_factory=list)
    fits: dict[Denoiser, ClassFit]
    sequence_parallel: SequenceParallel
    vae_decode: VaeDecode
    training: Training

    def find(self, name: str) -> DiffusionSpec | None:
        """The model named by id, name or alias, spelled loosely ("SDXL", "flux-dev", "Wan2.1 14B")."""
        key = squash(name)
        for spec in self.models.values():
            if key in {squash(spec.id), squash(spec.name), *(squash(a) for a in spec.aliases)}:
                return spec
        return None


def squash(text: str) -> str:
    """A name reduced to lower-case letters and digits, so "Wan2.1-T2V-14B" meets "wan 2.1 t2v 14b"."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def latent_frames(spec: DiffusionSpec, frames: int) -> int:
    """Latent frames after the VAE's temporal compression (the first frame kept alone), then
    the denoiser's temporal patch (CogVideoX1.5 pairs latent frames)."""
    if spec.temporal == 1:
        return 1
    return math.ceil((1 + math.ceil((frames - 1) / spec.temporal)) / spec.patch_t)


def tokens(spec: DiffusionSpec, width: int, height: int, frames: int = 1) -> int:
    """Image (or space-time) tokens the denoiser sees at this size."""
    side = spec.spatial * spec.patch
    return latent_frames(spec, frames) * math.ceil(width / side) * math.ceil(height / side)


def pass_tflop(spec: DiffusionSpec, n: int) -> float:
    """One denoiser forward over ``n`` tokens, TFLOP (weights plus joint attention for a DiT)."""
    linear = 2.0 * spec.params_b * 1e9 * n
    joint = n + spec.text_tokens
    attention = 4.0 * spec.layers * joint**2 * spec.hidden if spec.denoiser == "dit" else 0.0
    return (linear + attention) / 1e12


def passes_per_step(spec: DiffusionSpec, guidance: bool | None = None) -> int:
    """2 where classifier-free guidance runs a second pass, else 1."""
    cfg = spec.guidance == "cfg" if guidance is None else guidance
    return 2 if cfg else 1


def peak_tflops(gpu: GpuSpec, fmt: WeightFormat) -> float:
    """The card's dense tensor peak for the format run: FP8 where the card has FP8 cores."""
    rates = gpu.dense_tflops
    half = rates.get("bf16") or rates.get("fp16") or rates.get("fp32", 1.0)
    if fmt == "fp8" and rates.get("fp8"):
        return rates["fp8"]
    return half


def pass_seconds(fit: ClassFit, work_tflop: float, peak: float, gpu: GpuSpec) -> float:
    """Seconds one denoiser pass takes: launch overhead + work at the achieved rate k·peak^γ·x^β,
    x the card's memory bandwidth (TB/s) or its board power (÷ 300 W: a 70 W T4 or a 150 W A10
    cannot hold its tensor clocks), whichever the fit rows chose."""
    x = gpu.bandwidth_gbs / 1000.0 if fit.feature == "bandwidth" else gpu.tdp_w / 300.0
    rate: float = fit.k * math.pow(peak, fit.gamma) * math.pow(x, fit.beta)
    return fit.overhead_ms / 1000.0 + work_tflop / rate


def vae_seconds(vae: VaeDecode, megapixels: float, peak: float) -> float:
    """The VAE decode's seconds, scaled from the reference card by tensor peak."""
    return vae.seconds_per_mp * megapixels * vae.reference_tflops / peak


def resident_gib(spec: DiffusionSpec, fmt: WeightFormat) -> dict[str, float]:
    """GiB of each part in the format run; text encoders run at no less than one byte a weight
    (T5-XXL ships as FP8 beside NF4/GGUF denoisers in ComfyUI and Forge), the VAE in BF16."""
    denoiser = (spec.resident_params_b or spec.params_b) * 1e9 * BYTES[fmt] / GIB
    text_bytes = max(BYTES[fmt], 1.0)
    encoders = sum(e.params_b for e in spec.text_encoders) * 1e9 * text_bytes / GIB
    return {"denoiser": denoiser, "text_encoders": encoders, "vae": spec.vae_params_b * 1e9 * 2.0 / GIB}


def activation_gib(spec: DiffusionSpec, n: int, batch: int, cfg_batch: int) -> float:
    """Live activations of one block over the whole batch (CFG runs the two passes as a batch of 2);
    a UNet's widest activations are at the full latent (``n`` × patch² positions × base width)."""
    positions = n * spec.patch**2 if spec.denoiser == "unet" else n
    return ACT_BYTES_PER_TOKEN_HIDDEN * positions * spec.hidden * batch * cfg_batch / GIB


def offload_seconds(parts: dict[str, float], offload: Offload, passes: int) -> float:
    """PCIe time an offloaded pipeline pays: every part once per image (model offload), the
    denoiser once per pass besides (sequential offload)."""
    if offload == "none":
        return 0.0
    once = sum(parts.values()) * GIB / (PCIE_GBS * 1e9)
    if offload == "model":
        return once
    return once + passes * parts["denoiser"] * GIB / (PCIE_GBS * 1e9)


def on_card_gib(parts: dict[str, float], offload: Offload) -> float:
    """Weights held on the card at the peak: all parts, the largest alone, or one block's worth."""
    if offload == "none":
        return sum(parts.values())
    if offload == "model":
        return max(parts.values())
    return max(parts["vae"], parts["denoiser"] / 20.0)


@dataclass(frozen=True, slots=True)
class Timing:
    """Where one image's (or clip's) seconds go on one card: the arithmetic ``/why`` shows."""

    tokens: int
    passes: int
    pass_tflop: float
    pass_s: float
    denoise_s: float
    vae_s: float
    offload_s: float

    @property
    def total_s(self) -> float:
        return self.denoise_s + self.vae_s + self.offload_s


@dataclass(frozen=True, slots=True)
class Run:
    """How the pipeline is run: size, steps, batch, format, offload and guidance."""

    width: int
    height: int
    steps: int
    frames: int = 1
    batch: int = 1
    format: WeightFormat = "bf16"
    offload: Offload = "none"
    guidance: bool | None = None


def timing(
    book: DiffusionBook, spec: DiffusionSpec, gpu: GpuSpec, run: Run, fit: ClassFit | None = None
) -> Timing:
    """Seconds per image (or clip) on one card: steps × passes × pass time, the VAE decode and
    any offload copies, per item of the batch (a batch shares each pass's launch overhead)."""
    n = tokens(spec, run.width, run.height, run.frames)
    per_step = passes_per_step(spec, run.guidance)
    peak = peak_tflops(gpu, run.format)
    work = pass_tflop(spec, n)
    pass_s = pass_seconds(fit or book.fits[spec.denoiser], work * run.batch, peak, gpu) / run.batch
    passes = run.steps * per_step
    megapixels = run.width * run.height / 1e6 * run.frames
    parts = resident_gib(spec, run.format)
    return Timing(
        tokens=n,
        passes=passes,
        pass_tflop=work,
        pass_s=pass_s,
        denoise_s=passes * pass_s,
        vae_s=vae_seconds(book.vae_decode, megapixels, peak),
        offload_s=offload_seconds(parts, run.offload, passes) / run.batch,
    )


def sp_speedup(sp: SequenceParallel, gpus: int) -> float:
    """The published xDiT USP speed-up for ``gpus`` cards, interpolated between measured counts."""
    known = sorted(sp.speedup.items())
    if gpus <= known[0][0]:
        return known[0][1]
    for (g0, s0), (g1, s1) in pairwise(known):
        if g0 <= gpus <= g1:
            return s0 + (s1 - s0) * (gpus - g0) / (g1 - g0)
    g_last, s_last = known[-1]
    return s_last * gpus / g_last  # past the table: the last measured efficiency held


def memory_finding(spec: DiffusionSpec, run: Run, total_gib: float) -> Finding:
    """The pipeline's memory as ``/why`` shows it: each part in the format run, and the total
    a card must hold (``memory_gib``, or a clip's sharded need), for image and video alike."""
    parts = resident_gib(spec, run.format)
    return finding(
        "diffusion_memory",
        model=spec.name,
        format=run.format,
        denoiser_gib=parts["denoiser"],
        text_encoders_gib=parts["text_encoders"],
        vae_gib=parts["vae"],
        total_gib=total_gib,
        width=run.width,
        height=run.height,
        batch=run.batch,
    )


def memory_gib(book: DiffusionBook, spec: DiffusionSpec, run: Run, gpus: int = 1) -> float:
    """Peak GiB on each card: resident weights (sharded by FSDP across ``gpus`` for the DiT and
    text encoder, as Wan's ``--dit_fsdp --t5_fsdp``), activations split by sequence parallelism,
    the VAE decode's workspace (a video VAE decodes four frames at a time) and the CUDA context."""
    parts = resident_gib(spec, run.format)
    if gpus > 1 and run.offload == "none":
        sharded = {"denoiser": parts["denoiser"] / gpus, "text_encoders": parts["text_encoders"] / gpus}
        parts = {**parts, **sharded}
    n = tokens(spec, run.width, run.height, run.frames)
    cfg_batch = passes_per_step(spec, run.guidance)
    act = activation_gib(spec, n, run.batch, cfg_batch) / gpus
    frames_at_once = min(run.frames, 4)
    vae = book.vae_decode.workspace_gib_per_mp * run.width * run.height / 1e6 * frames_at_once * run.batch
    return on_card_gib(parts, run.offload) + max(act, vae) + CUDA_CONTEXT_GIB
