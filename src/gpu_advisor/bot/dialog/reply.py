"""What the dialog core returns: the reply in parts, its plain text, quick-reply buttons and the plan.

A reply is laid out as a card, top to bottom: ``lead`` (what came before the point:
what was understood, what went wrong), the ``title`` (the pick and its price, the
question, the card's name; an answer also carries ``pick`` and ``price`` apart, so a
surface can show the price large), the ``summary`` (the short answer), the detail
``sections`` (reasoning, pitfalls, alternatives…, each a heading and bulleted lines)
and the ``footer`` (hints, what was understood for the record). ``text`` is all of it
as plain lines, in that order (``as_text``) — what the JSON contracts carry and what a surface
without formatting prints. Surfaces style the parts (a bold title, an embed title)
instead of guessing that the first line is the title. A reply made of plain text
alone (``Reply(kind=…, text=…)``) has no parts and is shown as it is.

``payload`` is what a button sends back (≤ 64 bytes, ASCII, so Telegram callback_data
and Discord custom_id both hold it). ``chart`` names the picture a surface may attach
(a ``bot.charts`` kind); the core never draws it. ``detail`` is an optional long form a
surface may attach; the core leaves it empty (surfaces ask for ``/why`` instead).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gpu_advisor.engine.jobs.plan import JobPlan
from gpu_advisor.engine.results import Plan

ReplyKind = Literal["question", "answer", "info", "error", "help", "card"]
ChartKind = Literal["memory", "cost", "speed", "all"]
MAX_PAYLOAD_BYTES = 64


class Button(BaseModel):
    """A quick reply; with ``url`` a link button (surfaces that cannot open links send ``payload``)."""

    label: str
    payload: str = Field(max_length=MAX_PAYLOAD_BYTES)
    url: str | None = None


class Section(BaseModel):
    """One block of details: an optional heading, then one bulleted line per item."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="what the block holds: reasoning, pitfalls, alternatives, whatifs…")
    heading: str | None = None
    bullet: str = "•"
    lines: list[str]
    code: bool = Field(False, description="lines to copy verbatim (commands, config files): monospace")

    def text_lines(self) -> list[str]:
        body = [f"{self.bullet} {line}" if self.bullet else line for line in self.lines]
        return [self.heading, *body] if self.heading is not None else body


class Content(BaseModel):
    """A reply's words in card order; ``as_text()`` joins them into the plain text."""

    lead: list[str] = Field(default_factory=list)
    title: str | None = None
    pick: str | None = Field(None, description="an answer's pick in words (also in the title): 1 张 RTX 3090")
    price: str | None = Field(None, description="an answer's price with its unit, for surfaces to show large")
    summary: list[str] = Field(default_factory=list)
    sections: list[Section] = Field(default_factory=list)
    footer: list[str] = Field(default_factory=list)

    def body_lines(self) -> list[str]:
        """Every line but the title, in order (a surface that shows the title apart shows these under it)."""
        return [*self.lead, *self.summary, *self._details(), *self.footer]

    def as_text(self) -> str:
        title = [self.title] if self.title is not None else []
        return "\n".join([*self.lead, *title, *self.summary, *self._details(), *self.footer])

    def _details(self) -> list[str]:
        return [line for s in self.sections if s.lines for line in s.text_lines()]

    def parts(self) -> Content:
        """Only the words (a Reply is Content plus what surfaces act on)."""
        return Content(
            lead=self.lead,
            title=self.title,
            pick=self.pick,
            price=self.price,
            summary=self.summary,
            sections=self.sections,
            footer=self.footer,
        )

    def around(self, lead: list[str] | None = None, footer: list[str] | None = None) -> Content:
        """The same card with lines added before the title and after the details."""
        return self.model_copy(
            update={"lead": [*(lead or []), *self.lead], "footer": [*self.footer, *(footer or [])]}
        )


class Reply(Content):
    kind: ReplyKind
    text: str = ""
    lang: str
    buttons: list[Button] = Field(default_factory=list)
    requirements: dict[str, Any] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    assumed: list[str] = Field(default_factory=list)
    plan: Plan | None = None
    job: JobPlan | None = Field(None, description="a non-LLM job's plan (image, video, speech…)")
    detail: str | None = None
    chart: ChartKind | None = None

    @model_validator(mode="after")
    def _text_from_parts(self) -> Reply:
        """A reply built from parts gets its plain text from them, so the two cannot disagree."""
        if not self.text:
            self.text = self.as_text()
        elif self.structured and self.text != self.as_text():
            raise ValueError("text disagrees with the reply's parts; give one or the other")
        return self

    @property
    def structured(self) -> bool:
        return self.title is not None or bool(self.lead or self.summary or self.sections or self.footer)

    def body(self) -> str:
        """What goes under the title: every other line, or the whole text of a plain reply."""
        return "\n".join(self.body_lines()) if self.structured else self.text

    def card_json(self) -> dict[str, Any]:
        """The parts for the JSON contracts, beside ``text`` (added fields; ``text`` stays)."""
        return {
            **self.parts().model_dump(mode="json"),
            "chart": self.chart,
            "job": self.job.model_dump(mode="json") if self.job is not None else None,
        }
