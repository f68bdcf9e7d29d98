"""Rent GPUs or pay a hosted API, for the user's own volume: "每天 2000 万 token，租卡还是调 API".

A month is thirty days (``engine.billing.DAYS_PER_MONTH``, the 720 h of ``engine.cost``).
For a volume of ``input`` and ``output`` tokens a day and an API's prices per million:

    api month = 30 × (input × input price + output × output price) / 1e6

and the rental month is what the user said or the catalog's pick. The API is cheaper
while its month is below the rent; it costs the same at the break-even volume

    break-even tokens a day = rent / 30 / blended price,
    blended price = (input share × input price + output share × output price) / 1e6.

When the user gives one daily total without the input/output split, a per-token price
that differs between input and output has no single month: the answer is a range (every
token priced as input, every token priced as output), and the verdict is ``depends``
when the rent falls inside it. Reference prices (``knowledge/api_prices.yaml``) carry
their date and source; audio APIs are priced per minute (Whisper). Pure.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat, PositiveFloat, model_validator

from gpu_advisor.engine.billing import DAYS_PER_MONTH
from gpu_advisor.engine.cost import to_currency
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.record import Record
from gpu_advisor.engine.results import Money

Verdict = Literal["api", "rent", "depends"]


class TokenPrice(Record):
    """A hosted model's list price per million tokens, input (cache miss) and output apart."""

    id: str
    provider: str
    api_model: str
    input_per_million: NonNegativeFloat
    output_per_million: PositiveFloat
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    date: dt.date | None = Field(None, description="required of every shipped row (ApiReference)")
    source: str = Field(min_length=8)
    note: str | None = None


class MinutePrice(Record):
    """An audio API's list price per minute of audio."""

    id: str
    provider: str
    api_model: str
    per_minute: PositiveFloat
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    date: dt.date
    source: str = Field(min_length=8)


class ApiReference(Record):
    """The shipped table (``knowledge/api_prices.yaml``)."""

    token_apis: list[TokenPrice] = Field(min_length=1)
    minute_apis: list[MinutePrice] = Field(default_factory=list)

    @model_validator(mode="after")
    def _dated(self) -> ApiReference:
        undated = [p.id for p in self.token_apis if p.date is None]
        if undated:
            raise ValueError(f"every reference price needs its date: {undated}")
        return self


class TokenVolume(BaseModel):
    """Tokens a day: split into input and output, or one ``total`` when the user gave one number."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_day: NonNegativeFloat = 0.0
    output_per_day: NonNegativeFloat = 0.0
    total_per_day: NonNegativeFloat = 0.0

    @property
    def split(self) -> bool:
        return not self.total_per_day

    @property
    def per_day(self) -> float:
        return self.total_per_day or self.input_per_day + self.output_per_day


class ApiMonth(BaseModel):
    """One API priced for the volume, in the answer's currency (``low`` = ``high`` when split)."""

    model_config = ConfigDict(frozen=True)

    id: str
    provider: str
    api_model: str
    input_per_million: float
    output_per_million: float
    low: float
    high: float
    verdict: Verdict
    break_even_tokens_per_day: float | None = Field(None, description="None when the split is unknown")
    price_date: dt.date | None = None
    source: str


class RentVsApi(BaseModel):
    """Every API priced against the rent; ``cheapest`` is the lowest of the APIs and the rent."""

    model_config = ConfigDict(frozen=True)

    currency: str
    days_per_month: float
    tokens_per_day: float
    split: bool
    rent_monthly: float
    apis: list[ApiMonth]
    cheapest: str = Field(description="an API id, or 'rent'")


def rent_vs_api(
    volume: TokenVolume, rent: Money, prices: list[TokenPrice], fx_to_cny: dict[str, float], currency: str
) -> RentVsApi:
    """``prices`` (the user's own, or the reference table's) for ``volume``, against ``rent`` a month."""
    rent_month = _conv(rent.amount, rent.currency, currency, fx_to_cny)
    rows = [_api_month(volume, p, rent_month, fx_to_cny, currency) for p in prices]
    rows.sort(key=lambda r: r.high)
    best = rows[0] if rows else None
    cheapest = best.id if best is not None and best.high < rent_month else "rent"
    return RentVsApi(
        currency=currency,
        days_per_month=DAYS_PER_MONTH,
        tokens_per_day=volume.per_day,
        split=volume.split,
        rent_monthly=round(rent_month, 2),
        apis=rows,
        cheapest=cheapest,
    )


def api_months(
    volume: TokenVolume, prices: list[TokenPrice], fx_to_cny: dict[str, float], currency: str
) -> list[ApiMonth]:
    """Each API's month for ``volume`` when no rent was said (cheapest first; no verdict to give)."""
    rows = [_api_month(volume, p, math.inf, fx_to_cny, currency) for p in prices]
    return sorted(rows, key=lambda r: r.high)


def _api_month(v: TokenVolume, p: TokenPrice, rent: float, fx: dict[str, float], currency: str) -> ApiMonth:
    pin = _conv(p.input_per_million, p.currency, currency, fx)
    pout = _conv(p.output_per_million, p.currency, currency, fx)
    if v.split:
        low = high = DAYS_PER_MONTH * (v.input_per_day * pin + v.output_per_day * pout) / 1e6
        blended = (v.input_per_day * pin + v.output_per_day * pout) / max(v.per_day, 1e-9) / 1e6
        even: float | None = (
            round(rent / DAYS_PER_MONTH / blended) if blended and math.isfinite(rent) else None
        )
    else:
        low, high = (DAYS_PER_MONTH * v.total_per_day * x / 1e6 for x in sorted((pin, pout)))
        # one price for every token: the split cannot move the month, so the break-even is known
        even = (
            round(rent / DAYS_PER_MONTH / pin * 1e6) if pin == pout and pin and math.isfinite(rent) else None
        )
    verdict: Verdict = "api" if high < rent else "rent" if low > rent else "depends"
    return ApiMonth(
        id=p.id,
        provider=p.provider,
        api_model=p.api_model,
        input_per_million=round(pin, 4),
        output_per_million=round(pout, 4),
        low=round(low, 2),
        high=round(high, 2),
        verdict=verdict,
        break_even_tokens_per_day=even,
        price_date=p.date,
        source=p.source,
    )


def user_price(per_million: Money, output_per_million: Money | None = None) -> TokenPrice:
    """The user's own price ("API 每百万 token 8 元"): one price for every token unless output is given."""
    out = output_per_million or per_million
    if out.currency != per_million.currency:
        raise EngineError("mixed_currency", "api_output_per_million", name=out.currency)
    return TokenPrice(
        id="user",
        provider="user",
        api_model="user",
        input_per_million=per_million.amount,
        output_per_million=out.amount,
        currency=per_million.currency,
        source="the price you gave",
    )


def audio_month(minutes_per_day: float, p: MinutePrice, fx: dict[str, float], currency: str) -> Money:
    """A month of ``minutes_per_day`` of audio at ``p`` (Whisper: US$0.006 a minute)."""
    amount = DAYS_PER_MONTH * minutes_per_day * _conv(p.per_minute, p.currency, currency, fx)
    return Money(amount=round(amount, 2), currency=currency)


def _conv(amount: float, src: str, dst: str, fx: dict[str, float]) -> float:
    """``engine.cost.to_currency``, refusing a currency the catalog has no rate for."""
    out = to_currency(amount, src, dst, fx)
    if out is None:
        raise EngineError(
            "unknown_currency", "currency", name=src if src not in fx else dst, known=", ".join(sorted(fx))
        )
    return out
