"""Plan rules of the diffusion jobs (image generation, image fine-tuning, video generation).

Each check reads one :class:`DiffusionCheck` — the model, how it is run, the card the answer
is about (the user's, else the pick) and the memory figures the planner computed — and
returns a finding or nothing. Scenarios are job requests as the JSON contract takes them
(``engine/jobs/request.py``). Layout: see ``engine/rules/__init__.py``.

Why these: a consumer card is the cheapest place for SD 1.5/SDXL (compute-bound, small
models) so a data-centre training card is overkill; Flux dev in BF16 needs ~33 GB with its
T5-XXL, so a 16–24 GB card needs FP8/NF4 or offload; a 14B video model at 720p holds 60 GB+
and needs an 80 GB card or offload; xDiT sequence parallelism speeds a clip up sub-linearly
(HunyuanVideo's README: 5.64× on 8 GPUs); FP8 weights save memory everywhere but speed up
only on cards with FP8 tensor cores (Ada, Hopper, Blackwell).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.jobs.diffusion import DiffusionSpec, Run
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.specs import GpuSpec

CONSUMER_ENOUGH_GIB = 22.0  # what a 24 GB consumer card holds once the desktop and context take theirs
VIDEO_CARD_CLASS_GIB = 48.0  # the largest common non-80 GB card (L40S, L20, A6000, 4090 48G)


@dataclass(frozen=True, slots=True)
class DiffusionCheck:
    """What the diffusion rules read: the model, the run, the card and the memory figures."""

    spec: DiffusionSpec
    run: Run
    gpu: GpuSpec | None
    need_gib: float
    card_gib: float | None
    fp8_gib: float
    offload_gib: float
    gpus: int = 1
    speedup: float = 1.0
    offload_s: float = 0.0
    card_per_1000: float | None = None  # the card's cheapest offer: cost per 1,000 images (CNY)
    consumer_per_1000: float | None = None  # the cheapest consumer-card offer's
    consumer_gpu: str | None = None
    native_format: str | None = None  # set where the card runs the model below its own format
    native_gib: float | None = None  # the memory in the model's own format
    quality: str | None = None  # the lower format's quality tier (diffusion.yaml format_quality)
    native_gpu: str | None = None  # the cheapest option in the model's own format, its card
    native_machines: int | None = None  # and its cards
    native_month: float | None = None  # and what they cost a month (CNY)
    pick_month: float | None = None  # what the pick costs a month (CNY)


def exceeds_card(c: DiffusionCheck) -> Finding | None:
    """The card the answer is about cannot hold the pipeline in the format asked."""
    if c.gpu is None or c.card_gib is None or c.need_gib <= c.card_gib:
        return None
    return finding(
        "diffusion_exceeds_card",
        "warning",
        model=c.spec.name,
        gpu=c.gpu.name,
        need_gib=c.need_gib,
        card_gib=c.card_gib,
        fp8_gib=c.fp8_gib,
        offload_gib=c.offload_gib,
    )


def datacenter_overkill(c: DiffusionCheck) -> Finding | None:
    """A training-class card for an image model a 24 GB consumer card holds, where the catalog's
    consumer card makes each image for less."""
    if (
        c.gpu is None
        or c.spec.kind != "image"
        or c.gpu.role != "training"
        or c.need_gib > CONSUMER_ENOUGH_GIB
    ):
        return None
    if c.card_per_1000 is None or c.consumer_per_1000 is None or c.consumer_per_1000 >= c.card_per_1000:
        return None
    return finding(
        "diffusion_datacenter_overkill",
        "info",
        model=c.spec.name,
        gpu=c.gpu.name,
        need_gib=c.need_gib,
        consumer_gpu=c.consumer_gpu,
        card_per_1000=c.card_per_1000,
        consumer_per_1000=c.consumer_per_1000,
    )


def fp8_without_fp8_cores(c: DiffusionCheck) -> Finding | None:
    """FP8 weights on a card without FP8 tensor cores: memory saved, no speed gained."""
    if c.gpu is None or c.run.format != "fp8" or c.gpu.dense_tflops.get("fp8"):
        return None
    return finding("diffusion_fp8_without_fp8_cores", "info", gpu=c.gpu.name, architecture=c.gpu.architecture)


def video_needs_big_card(c: DiffusionCheck) -> Finding | None:
    """A video model at this size outgrows every card below the 80 GB class without offload."""
    if c.spec.kind != "video" or c.run.offload != "none" or c.gpus > 1 or c.need_gib <= VIDEO_CARD_CLASS_GIB:
        return None
    return finding(
        "video_needs_80gb_or_offload",
        "warning",
        model=c.spec.name,
        need_gib=c.need_gib,
        offload_gib=c.offload_gib,
        width=c.run.width,
        height=c.run.height,
        frames=c.run.frames,
    )


def sequence_parallel_sublinear(c: DiffusionCheck) -> Finding | None:
    """Several cards on one clip: the speed-up xDiT's USP measured, below the card count."""
    if c.gpus <= 1:
        return None
    return finding(
        "video_sequence_parallel_sublinear",
        "info",
        gpus=c.gpus,
        speedup=c.speedup,
        efficiency=c.speedup / c.gpus,
    )


def offload_costs_time(c: DiffusionCheck) -> Finding | None:
    """CPU offload fits the pipeline by copying parts over PCIe every image or clip."""
    if c.run.offload == "none":
        return None
    return finding("diffusion_offload_costs_time", "info", offload=c.run.offload, offload_s=c.offload_s)


LOWER_FORMAT = "diffusion_lower_format"
"""The finding of a card run below the model's own format; "cheaper?" repeats it when the pick is
already the cheapest (``bot.dialog.job_answer``)."""


def lower_format(c: DiffusionCheck) -> Finding | None:
    """The card runs the model below its own format (the search took FP8 or NF4 where BF16 does
    not fit): what the format saves, what it costs in images, and the native-format option."""
    if c.gpu is None or c.native_format is None or c.native_format == c.run.format:
        return None
    return finding(
        LOWER_FORMAT,
        "warn",
        model=c.spec.name,
        format=c.run.format,
        native_format=c.native_format,
        gpu=c.gpu.name,
        need_gib=c.need_gib,
        native_gib=c.native_gib,
        card_gib=c.card_gib,
        quality=f"quality_{c.quality or 'unknown'}",
        native_gpu=c.native_gpu,
        native_cards=c.native_machines,
        native_month=c.native_month,
        pick_month=c.pick_month,
    )


def _job(**values: object) -> dict[str, object]:
    return values


RULES: tuple[Rule[object], ...] = (
    Rule(
        id=LOWER_FORMAT,
        check=lower_format,
        scenarios=(Scenario(workload=_job(family="image_gen", model="flux1-dev", images_per_day=3000.0)),),
        rank=0,
    ),
    Rule(
        id="diffusion_exceeds_card",
        check=exceeds_card,
        scenarios=(Scenario(workload=_job(family="image_gen", model="flux1-dev", format="bf16", gpu="t4")),),
        rank=1,
    ),
    Rule(
        id="video_needs_80gb_or_offload",
        check=video_needs_big_card,
        scenarios=(
            Scenario(
                workload=_job(family="video_gen", model="wan21-t2v-14b", width=1280, height=720, gpu="l40s")
            ),
        ),
        rank=2,
    ),
    Rule(
        id="diffusion_datacenter_overkill",
        check=datacenter_overkill,
        scenarios=(Scenario(workload=_job(family="image_gen", model="sdxl", gpu="a100-40g-sxm")),),
        rank=3,
    ),
    Rule(
        id="diffusion_fp8_without_fp8_cores",
        check=fp8_without_fp8_cores,
        scenarios=(
            Scenario(workload=_job(family="image_gen", model="flux1-dev", format="fp8", gpu="rtx3090")),
        ),
        rank=4,
    ),
    Rule(
        id="video_sequence_parallel_sublinear",
        check=sequence_parallel_sublinear,
        scenarios=(Scenario(workload=_job(family="video_gen", model="hunyuanvideo", gpus=8)),),
        rank=5,
    ),
    Rule(
        id="diffusion_offload_costs_time",
        check=offload_costs_time,
        scenarios=(
            Scenario(workload=_job(family="image_gen", model="flux1-dev", offload="model", gpu="rtx3090")),
        ),
        rank=6,
    ),
)


def pitfalls(c: DiffusionCheck) -> list[Finding]:
    """Every rule's finding for the check, in rank order."""
    out = []
    for rule in sorted(RULES, key=lambda r: r.rank):
        check = rule.check
        assert callable(check)
        hit = check(c)
        if isinstance(hit, Finding):
            out.append(hit)
    return out


WARNINGS: frozenset[str] = frozenset(
    {LOWER_FORMAT, "diffusion_datacenter_overkill", "video_sequence_parallel_sublinear"}
)
"""The rules above that warn rather than add up: a card shows them under "watch out", not
beside the arithmetic (``bot.dialog.job_cards``)."""
