"""``POST /api/quote`` and ``gpu-advisor quote``: one request shape, one call, for every surface.

A request carries the workload and either the quote as pasted text (read by
``reading.quote``) or as structured prices (``engine.billing.VendorQuote``); the answer is
``engine.quote.QuoteVerdict``. The call runs where chat turns run (``bot.execution``),
with their deadline. Text that names no card or no price is refused naming ``text``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from gpu_advisor.engine.billing import VendorQuote
from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.quote import QuoteVerdict, judge
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.quote import MAX_TEXT, read

if TYPE_CHECKING:
    from gpu_advisor.bot.turn import Conversations


class QuoteRequest(BaseModel):
    """A vendor's quote for a workload: pasted ``text`` or structured ``quote``, not both."""

    model_config = ConfigDict(extra="forbid")

    workload: Workload
    text: str | None = Field(None, max_length=MAX_TEXT, description="the quote as pasted: 4090 ¥1.6/卡时")
    quote: VendorQuote | None = None
    hours: float | None = Field(
        None, gt=0, le=87_600, description="hours of use a month (a service) or in all (a training job)"
    )
    currency: str | None = Field(
        None, pattern=r"^[A-Z]{3}$", description="say the cheapest bill in this currency"
    )

    @model_validator(mode="after")
    def _one_quote(self) -> QuoteRequest:
        if (self.text is None) == (self.quote is None):
            raise PydanticCustomError("text_or_quote", "send exactly one of 'text' or 'quote'")
        return self


def answer(req: QuoteRequest, kb: Knowledge) -> QuoteVerdict:
    """The verdict on the request's quote; EngineError(no_quote, text) when the text holds none."""
    if req.quote is not None:
        return judge(req.quote, req.workload, kb, req.hours, req.currency)
    reading = read(req.text or "", kb)
    quote = reading.quote()
    if quote is None:
        raise EngineError(
            "no_quote", "text", name="name a card and a price with its period, e.g. 4090 ¥1.6/卡时"
        )
    hours = req.hours or reading.hours_per_month
    if hours is not None and req.workload.task == "infer":
        hours = min(hours, HOURS_PER_MONTH)
    return judge(quote, req.workload, kb, hours, req.currency or reading.currency)


@dataclass(frozen=True)
class JudgeQuote:
    """The call the HTTP handler sends to the executor."""

    request: QuoteRequest

    def run(self, host: Conversations) -> QuoteVerdict:
        return answer(self.request, host.dialog.kb)
