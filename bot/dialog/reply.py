"""What the dialog core returns: text, quick-reply buttons and the data behind them.

Surfaces render these; they never compose text themselves. ``payload`` is what a
button sends back (≤ 64 bytes, ASCII, so Telegram callback_data and Discord custom_id
both hold it). ``detail`` is an optional long form a surface may attach; the core leaves it empty
(surfaces ask for ``/why`` instead, which reuses the cached plan).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from engine.results import Plan

ReplyKind = Literal["question", "answer", "info", "error", "help", "card"]
MAX_PAYLOAD_BYTES = 64


class Button(BaseModel):
    label: str
    payload: str = Field(max_length=MAX_PAYLOAD_BYTES)


class Reply(BaseModel):
    kind: ReplyKind
    text: str
    lang: str
    buttons: list[Button] = Field(default_factory=list)
    requirements: dict[str, Any] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    assumed: list[str] = Field(default_factory=list)
    plan: Plan | None = None
    detail: str | None = None
    chart: str | None = None
