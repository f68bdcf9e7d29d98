"""A hosted speech API's per-minute price against renting a card for the same audio (issue 44).

"语音转写 API 每分钟 ¥0.015，每月 2000 小时音频，还是租 4090 跑 Whisper" is 2,000 h × 60 min ×
¥0.015 = ¥1,800 for the API against the speech family's plan (``engine.jobs.speech.plan``) for
the same 2,000 audio hours on the named card, or the cheapest card when none is named: its
hours at its real-time factor, billed as the catalog bills them (a month at the least). The
rent is converted into the API's currency at the catalog's dated rates.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gpu_advisor.engine.cost import to_currency
from gpu_advisor.engine.jobs.speech import SpeechRequest, plan
from gpu_advisor.engine.jobs.speeds import JobKnowledge
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge


class SpeechApiVsRent(BaseModel):
    """The API's cost and the rental's for ``audio_hours``, both in the API's currency."""

    model_config = ConfigDict(frozen=True)

    per_minute: Money
    audio_hours: float
    api: Money
    gpu: str
    gpus: int
    gpu_hours: float
    rent_own: Money
    rent: Money
    cheaper: Literal["api", "rent"]
    saving: Money
    model: str
    fx_date: dt.date | None = None


def speech_api_vs_rent(
    per_minute: Money, audio_hours: float, kb: Knowledge, jobs: JobKnowledge, gpu: str | None = None
) -> SpeechApiVsRent | None:
    """None when the speech plan rents nothing for the audio or the currencies have no rate."""
    if per_minute.amount <= 0 or audio_hours <= 0:
        return None
    p = plan(SpeechRequest(audio_hours=audio_hours, gpu=gpu), kb, jobs)
    pick = p.pick
    if pick is None or pick.job_cost is None or pick.job_hours is None:
        return None
    rent = to_currency(pick.job_cost, pick.currency, per_minute.currency, kb.catalog.fx_to_cny)
    if rent is None:
        return None
    api = per_minute.amount * audio_hours * 60
    cur = per_minute.currency
    return SpeechApiVsRent(
        per_minute=per_minute,
        audio_hours=audio_hours,
        api=Money(amount=round(api, 2), currency=cur),
        gpu=pick.gpu,
        gpus=pick.gpus * pick.machines,
        gpu_hours=pick.job_hours,
        rent_own=Money(amount=round(pick.job_cost, 2), currency=pick.currency),
        rent=Money(amount=round(rent, 2), currency=cur),
        cheaper="api" if api < rent else "rent",
        saving=Money(amount=round(abs(api - rent), 2), currency=cur),
        model=p.model or "",
        fx_date=kb.catalog.fx_date if pick.currency != cur else None,
    )
