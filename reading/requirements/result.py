"""What understanding a message produces: slots, flags and issues, never prose.

Like the engine's findings, an :class:`Issue` is an id plus values; ``locales`` turns it
into a sentence in the user's language. Issue ids emitted by this package:

- ``params_out_of_range`` (field ``params_b``; values ``value``, ``max``)
- ``number_too_large`` (any numeric field; values ``value``, ``max``)
- ``negative_number`` (any numeric field; value ``value``)
- ``number_not_positive`` (a zero where only a positive number makes sense; ``value``)
- ``currency_assumed`` (field ``budget``; value ``currency``): no ¥/元/$/USD word given
- ``period_assumed`` (field ``budget``; value ``per``): no 每月/per hour/总 word given
- ``budget_period_converted`` (field ``budget``; values ``from``, ``amount``): a per-day,
  per-week or per-year budget restated per month
- ``unknown_model`` (field ``model``; values ``name``, ``closest``): looks like a model
  name of a known family, or a mixture-of-experts shape such as 16x3b, but is not in the
  vocabulary; ``closest`` is the known model id most like it
- ``unknown_gpu`` (field ``gpu``; values ``name``, ``closest``): written like a card
  (H300, RTX 5080, 昇腾910C) but not one we know; ``closest`` is the nearest card id
- ``model_from_shape`` (field ``model``; values ``name``, ``model``): a shape such as
  235b-a22b or 8x7b read as the library model it names
- ``model_config_read`` / ``model_config_unreadable`` (field ``hf_config``; ``limit``):
  a pasted config.json was taken as the model, or could not be
- ``conflicting_values`` (any field; values ``kept``, ``ignored``): the message gives two
  different values; the first one is kept
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from reading.normalize import Lang


class Issue(BaseModel):
    """A problem in the message, rendered later by locales from ``id`` and ``values``."""

    id: str
    field: str | None = None
    values: dict[str, str | float | int] = Field(default_factory=dict)


class Extraction(BaseModel):
    """Everything one message said, as Workload field names plus dialog flags."""

    lang: Lang
    slots: dict[str, Any] = Field(default_factory=dict)
    gpu_owned: bool = False
    skip: bool = False
    issues: list[Issue] = Field(default_factory=list)
    matched: list[str] = Field(default_factory=list)  # in normalized spelling: "8xh100", "预算一万"
