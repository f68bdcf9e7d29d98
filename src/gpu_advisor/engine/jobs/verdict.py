"""Can *this* card do the job? The yes/no a fit question ("一张 3090 能跑 SD3.5 Large 吗",
"will an L40S handle Whisper for 10 live streams?") asks before any priced pick.

The family's own planner answers it, so the verdict and the card's arithmetic never
disagree: the request is planned against a catalog that holds nothing but the user's
card(s), as an owned machine that costs nothing (the catalog's prices do not bear on
whether a card can do a job). What the planner makes of that one machine is the verdict:

- no option: the job does not run there — the memory it needs beyond what the card holds
  (``diffusion_exceeds_card``'s figures), or a reason the family's findings give;
- one machine: it runs, with the memory one card needs and holds;
- more machines than one: it runs, but a stated rate (images a day, live streams, streams,
  images a second) takes that many of the card — one does not keep up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpu_advisor.engine.jobs.plan import JobOption, JobPlan
from gpu_advisor.engine.jobs.request import JobBooks, JobRequest, plan_job
from gpu_advisor.engine.specs import Knowledge, Offer

RATES = ("images_per_day", "live_streams", "streams", "images_per_s")
"""Request fields that state a rate the card has to keep up with."""


@dataclass(frozen=True, slots=True)
class CardVerdict:
    """The answer for the named card: does it run, the memory it needs and has, how many for the rate."""

    gpu: str
    count: int
    runs: bool
    need_gib: float | None
    card_gib: float | None
    machines: int
    rate_stated: bool
    option: JobOption | None
    fp8_gib: float | None = None
    """Where it does not fit in the model's own format: its memory in FP8 (how diffusion fits a card)."""

    @property
    def keeps_up(self) -> bool:
        """Whether the named card(s) meet the stated rate on their own."""
        return self.runs and self.machines == 1


def own_card(kb: Knowledge, gpu: str, count: int = 1) -> Knowledge:
    """The knowledge with a catalog of one machine: the user's ``count`` × ``gpu``, costing nothing."""
    link = "none" if count == 1 else "pcie"
    offer = Offer(
        id=f"own-{gpu}-{count}x",
        gpu=gpu,
        count=count,
        interconnect=link,
        owned=True,
        currency=kb.catalog.currency,
        source="the card the user asked about: judged, not priced",
    )
    return kb.model_copy(update={"catalog": kb.catalog.model_copy(update={"offers": [offer]})})


def on_card(request: JobRequest, kb: Knowledge, books: JobBooks, gpu: str, count: int = 1) -> CardVerdict:
    """The verdict for ``count`` × ``gpu`` (a card ``kb.gpus`` knows) on the job ``request`` asks."""
    job = request.model_copy(update={"gpu": gpu, **_own_format(request)})
    plan = plan_job(job, own_card(kb, gpu, count), books)
    pick = plan.pick if plan.sized else None
    fields: dict[str, Any] = job.model_dump()
    rate = any(fields.get(name) for name in RATES)
    if pick is not None:
        return CardVerdict(
            gpu, count, True, pick.memory_gib, pick.memory_limit_gib, pick.machines, rate, pick
        )
    need, card, fp8 = _exceeds(plan)
    if fp8 is not None and not _runs_in_fp8(job, kb, books, gpu, count):
        fp8 = None  # FP8 weights would fit, but the card still cannot do the job (Flux training on a T4)
    return CardVerdict(gpu, count, False, need, card or kb.gpus[gpu].usable_gib, 0, rate, None, fp8)


def _own_format(request: JobRequest) -> dict[str, Any]:
    """A fit question is judged in the model's own format (the FP8 figure is said beside a no):
    an image request's format search is turned off."""
    return {"format_search": False} if "format_search" in type(request).model_fields else {}


FORMAT_FIELDS = ("format", "base_format")
"""The request fields that set a diffusion model's weight format (image_gen's, image_train's)."""


def _runs_in_fp8(job: JobRequest, kb: Knowledge, books: JobBooks, gpu: str, count: int) -> bool:
    """Whether the job runs on the card with its weights in FP8 (only where the request can say so)."""
    field = next((f for f in FORMAT_FIELDS if f in type(job).model_fields), None)
    if field is None:
        return False
    plan = plan_job(job.model_copy(update={field: "fp8"}), own_card(kb, gpu, count), books)
    return plan.sized and plan.pick is not None


def _exceeds(plan: JobPlan) -> tuple[float | None, float | None, float | None]:
    """The memory the job needs, the card holds and FP8 would need, where the plan says it does not fit."""
    for f in plan.findings:
        need, card, fp8 = f.values.get("need_gib"), f.values.get("card_gib"), f.values.get("fp8_gib")
        if isinstance(need, int | float) and isinstance(card, int | float):
            return float(need), float(card), float(fp8) if isinstance(fp8, int | float) else None
    return None, None, None
