"""Structured statements the engine makes: a stable id plus the numbers behind it.

The engine never writes prose. ``locales`` turns ``Finding(id=<a rule's id>,
values={"kv_gib": 21.3, ...})`` into a Chinese or English sentence, so every surface
says the same thing in the user's language, and tests can assert on numbers.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

Value = str | int | float | bool | None | list[str]


class Finding(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    values: dict[str, Value] = Field(default_factory=dict)
    severity: str = "info"


def finding(id_: str, severity: str = "info", /, **values: Value) -> Finding:
    """Build a Finding, rounding floats so JSON output stays readable and stable."""
    clean = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in values.items()}
    return Finding(id=id_, values=clean, severity=severity)
