"""The non-LLM job contract at the surfaces' edge: parse a job request, answer it as JSON.

Shared by ``gpu-advisor job`` and ``POST /api/job`` so both refuse bad input the same way
(the JSON error body of ``bot.errors`` naming the field: ``invalid_json``, ``invalid_input``
with the pydantic path such as ``image_gen.steps``, ``unknown_family`` listing the families)
and answer with the same body: the family's ``JobPlan`` and, when a language is asked, each
finding's sentence in it (``locales``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from gpu_advisor import locales
from gpu_advisor.bot.contract import validation_payload
from gpu_advisor.bot.dialog.job_cards import unit_cost_words
from gpu_advisor.bot.errors import InputError, error_body, read_json_object
from gpu_advisor.engine.jobs.plan import JobPlan
from gpu_advisor.engine.jobs.request import JobRequest, families, parse_job, plan_job
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.jobs import books


class JobRequestBody(RootModel[JobRequest]):
    """The request body of ``POST /api/job``: one family's request, chosen by ``family``."""


class UnitPrice(BaseModel):
    """What one unit of the job's work costs on the pick, the figure a renter compares first."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(
        description="per_1000_images, per_clip, per_audio_hour, per_million_tokens, per_stream_month…"
    )
    value: float
    currency: str
    text: str | None = Field(None, description='the price in words in ``lang`` ("¥4.18 per 1,000 images")')


class JobAnswer(BaseModel):
    """A job's answer: the request as understood (defaults filled), the plan, its sentences."""

    model_config = ConfigDict(frozen=True)

    request: JobRequest
    plan: JobPlan
    lang: str | None = None
    text: list[str] = Field(default_factory=list, description="each finding's sentence in ``lang``")
    unit_price: UnitPrice | None = Field(
        None, description="the pick's first cost per unit of work (``plan.pick.unit_costs[0]``), None unsized"
    )


def read_job(text: str) -> JobRequest:
    """A job request from JSON text; ``InputError`` naming the field when it is refused."""
    return job_from(read_json_object(text))


def job_from(data: dict[str, Any]) -> JobRequest:
    """A job request from a decoded JSON object (``family`` picks its model)."""
    family = data.get("family")
    if family not in families():
        known = ", ".join(families())
        raise InputError.of(
            error_body("unknown_family", f"family must be one of: {known}", "family", families=families())
        )
    try:
        return parse_job(data)
    except ValidationError as exc:
        raise InputError.of(validation_payload(exc)) from exc


def answer(request: JobRequest, kb: Knowledge, lang: str | None = None) -> JobAnswer:
    """The plan, with ``text`` (the findings' sentences) in ``lang`` when one is asked."""
    plan = plan_job(request, kb, books())
    return JobAnswer(
        request=request,
        plan=plan,
        lang=lang,
        text=sentences(plan, lang) if lang else [],
        unit_price=unit_price(plan, lang),
    )


def unit_price(plan: JobPlan, lang: str | None) -> UnitPrice | None:
    """The pick's headline unit cost, worded in ``lang`` when one is asked."""
    pick = plan.pick
    if pick is None or not pick.unit_costs:
        return None
    first = pick.unit_costs[0]
    text = unit_cost_words(lang, first, pick.currency) if lang else None
    return UnitPrice(id=first.id, value=first.value, currency=pick.currency, text=text)


def sentences(plan: JobPlan, lang: str) -> list[str]:
    """Every finding and assumption of the plan as a sentence in ``lang``."""
    return [locales.render_finding(lang, f.id, f.values) for f in [*plan.findings, *plan.assumptions]]
