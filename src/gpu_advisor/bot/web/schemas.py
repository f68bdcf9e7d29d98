"""The web API's own request and response bodies; the OpenAPI document is built from these.

Workload, Estimate, Plan, Catalog and SheetAnalysis are the engine's models, reused as
they are (each plan option carries its offer's ``order_url``, where the rental site takes
the order). Error bodies are ``bot.errors.ErrorResponse``, the CLI's own.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from gpu_advisor.bot.dialog.reply import MAX_PAYLOAD_BYTES, Button, ChartKind, Section
from gpu_advisor.bot.errors import ErrorResponse
from gpu_advisor.engine.jobs.plan import JobPlan
from gpu_advisor.engine.results import Plan

__all__ = ["AnalyzeRequest", "CatalogUploaded", "ChatRequest", "ChatResponse", "ErrorResponse"]

SESSION_ID = r"^[A-Za-z0-9_-]{16,64}$"
MESSAGE_ID = r"^[A-Za-z0-9_-]{8,64}$"


class ChatRequest(BaseModel):
    """One chat turn: either what the user typed or the payload of the button they pressed."""

    model_config = ConfigDict(extra="forbid")

    session_id: str | None = Field(None, pattern=SESSION_ID, description="omit to start a conversation")
    text: str | None = None
    button: str | None = Field(None, max_length=MAX_PAYLOAD_BYTES)
    lang: Literal["zh", "en"] | None = Field(None, description="the site's language, used on the first turn")
    message_id: str | None = Field(
        None,
        pattern=MESSAGE_ID,
        description="the client's key for this message: a repeat of it (a resend after a reload or "
        "a 429/503) gets the first send's reply instead of a second turn (409 duplicate where this "
        "server process never saw that reply)",
    )

    @model_validator(mode="after")
    def _one_input(self) -> ChatRequest:
        if (self.text is None) == (self.button is None):
            raise PydanticCustomError("text_or_button", "send exactly one of 'text' or 'button'")
        return self


class ChatResponse(BaseModel):
    """One reply: ``text`` is all of it as plain lines; the parts below are the same words as a card."""

    session_id: str
    kind: str
    text: str
    buttons: list[Button]
    lang: str
    requirements: dict[str, Any]
    plan: Plan | None
    lead: list[str] = Field(default_factory=list, description="lines before the title (what was understood)")
    title: str | None = Field(None, description="the pick and its price, the question, or the card's name")
    summary: list[str] = Field(default_factory=list, description="the short answer under the title")
    sections: list[Section] = Field(default_factory=list, description="details: reasoning, pitfalls…")
    footer: list[str] = Field(default_factory=list, description="lines after the details (hints)")
    chart: ChartKind | None = Field(None, description="a chart of the plan can be drawn (its kind)")
    pick: str | None = Field(None, description="the pick in words, without its price (an answer card)")
    price: str | None = Field(None, description="the pick's price, formatted (an answer card)")
    job: JobPlan | None = Field(
        None,
        description="a non-LLM job's plan (image, video, speech, embeddings, vision, encoding)",
    )


class AnalyzeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="a server configuration sheet, as pasted")


class CatalogUploaded(BaseModel):
    operator: str
    offers: int


class SessionRequest(BaseModel):
    """A widget session asking about itself (its plan's chart, or to be forgotten)."""

    model_config = ConfigDict(extra="forbid")

    session_id: str = Field(pattern=SESSION_ID)
