"""The base of every knowledge record: unknown fields are refused, and a record never changes.

A typo in a YAML key (``bandwith_gbs``) must be a load error naming the field, not a
silently ignored line; and records are shared by every plan of a process, so nothing may
mutate one after it is loaded.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
