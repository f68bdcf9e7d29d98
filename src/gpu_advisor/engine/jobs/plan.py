"""The plan every non-LLM job family returns: one shape, so every surface renders it once.

Why one shape: a chat card, the CLI's JSON and the HTTP API all show the same things for
an SDXL service, a Whisper backlog or a transcoding farm — the machine to rent, its price,
the figure that decides the job (``metrics``) and what one unit of work costs
(``unit_costs``). Findings carry the reasoning and the pitfalls as stable ids with numbers;
``locales`` words them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.findings import Finding

JobFamily = Literal[
    "image_gen",
    "image_train",
    "video_gen",
    "speech",
    "embedding",
    "vision_train",
    "vision_infer",
    "video_encode",
]


class JobMetric(BaseModel):
    """One number that matters for the job, with its unit as a stable id (``s_per_image``)."""

    model_config = ConfigDict(frozen=True)

    id: str
    value: float
    unit: str


class JobOption(BaseModel):
    """A machine from the catalog that runs the job, with what it achieves and costs."""

    model_config = ConfigDict(frozen=True)

    offer_id: str
    gpu: str
    gpus: int = Field(ge=1)
    machines: int = Field(1, ge=1)
    price_month: float | None = None
    price_hour: float | None = None
    currency: str = "CNY"
    job_cost: float | None = Field(None, description="what the stated job (a backlog, a training run) costs")
    job_hours: float | None = Field(None, description="hours the stated job takes on this option")
    metrics: list[JobMetric] = Field(default_factory=list)
    unit_costs: list[JobMetric] = Field(default_factory=list, description="cost per unit of work")
    memory_gib: float | None = None
    memory_limit_gib: float | None = None
    format: str | None = Field(
        None, description="the weights' format this option runs in (image generation: bf16, fp8, nf4…)"
    )


class JobPlan(BaseModel):
    """A family's answer: the pick, the other options, the findings and the launch command."""

    model_config = ConfigDict(frozen=True)

    family: JobFamily
    model: str | None = None
    sized: bool = True
    pick: JobOption | None = None
    alternatives: list[JobOption] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    assumptions: list[Finding] = Field(default_factory=list)
    command: str | None = None
    tool: str | None = Field(
        None, description="the program the command runs: comfyui, faster-whisper, ffmpeg..."
    )
    cheaper: list[JobOption] = Field(
        default_factory=list,
        description="options that cost less than the pick (the stated job, else a month), the next "
        "step down first: what 'cheaper?' offers, with what each gives up",
    )


def spend(o: JobOption) -> float | None:
    """What an option costs the user: the stated job where it has an end, else a month."""
    return o.job_cost if o.job_cost is not None else o.price_month


def cheaper_than(options: Sequence[JobOption], limit: int = 3) -> list[JobOption]:
    """The options after the first (the pick) that cost less than it in its currency, the
    dearest of them first — the next step down, then the ones below it.

    Why: the pick ranks on the job's own measure (the peak's month, the backlog's cost, one
    image's cost), so a machine that is cheaper to rent but slower per unit sits outside the top
    alternatives; "cheaper?" must still find it and say what it gives up."""
    if not options or (top := spend(options[0])) is None:
        return []
    pick = options[0]
    below = [o for o in options[1:] if o.currency == pick.currency and (spend(o) or top) < top]
    return sorted(below, key=lambda o: -(spend(o) or 0.0))[:limit]
