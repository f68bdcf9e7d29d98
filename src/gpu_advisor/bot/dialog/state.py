"""What a conversation remembers between turns; stored as JSON after every turn.

The plan itself is not stored: it is a pure function of the slots and the catalog and
is recomputed in milliseconds, so a restart or a catalog reload never serves a stale
answer. ``version`` lets the store migrate old rows.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.bot.dialog.job_request import HeldJob
from gpu_advisor.bot.dialog.slots import Slots

STATE_VERSION = 1
Lang = Literal["zh", "en"]


class ConversationState(BaseModel):
    model_config = ConfigDict(extra="ignore")

    version: int = STATE_VERSION
    lang: Lang = "zh"
    lang_locked: bool = False
    # the user writes Traditional characters: replies are converted (bot.dialog.script)
    hant: bool = False
    slots: Slots = Field(default_factory=Slots)
    asked: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    pending: str | None = None
    # the number the user last gave or was asked for: "make it 2000 instead" changes it
    last_slot: str | None = None
    gpu_owned: bool = False
    # a non-LLM job answered (image, video, speech, embedding, vision, encoding): follow-ups
    # change it ("换成 Flux 呢"); None while the conversation is about a language model
    job: HeldJob | None = None
    # each model named so far, catalog display name → the user's spelling ("Llama 3.1 8B" →
    # "llama-3.1-8b", "Stable Diffusion XL 1.0" → "SDXL"): replies say it that way
    # (bot.dialog.spelling); the JSON and the commands keep the ids
    spelled: dict[str, str] = Field(default_factory=dict)
    answered: bool = False
    turns: int = 0

    def reset(self) -> ConversationState:
        """A fresh conversation that keeps the user's language choice."""
        return ConversationState(lang=self.lang, lang_locked=self.lang_locked, hant=self.hant)
