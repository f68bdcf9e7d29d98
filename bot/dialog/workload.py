"""Conversation slots → the engine's Workload, with the dialog's own defaults.

Slots use Workload field names already; the only translation is that a context length
said during a training conversation is the training sequence length, and that a
serving conversation which never said "one-off" runs 24×7.
"""

from __future__ import annotations

from typing import Any

from engine.workload import Workload

SLOT_FIELDS = set(Workload.model_fields)


def workload_fields(slots: dict[str, Any]) -> dict[str, Any]:
    """The Workload-shaped dict the slots stand for (the ``requirements`` of a reply)."""
    out = {k: v for k, v in slots.items() if k in SLOT_FIELDS and v is not None}
    task = out.get("task")
    if task == "train" and "context_len" in out and "seq_len" not in out:
        out["seq_len"] = out.pop("context_len")
    if task in ("infer", "both") and out.get("duration_hours") is None and out.get("always_on") is None:
        out["always_on"] = True
    return out


def to_workload(slots: dict[str, Any], gpu_owned: bool = False) -> Workload:
    fields = workload_fields(slots)
    if gpu_owned and "gpu" in fields:
        fields["gpu_owned"] = True
    return Workload.model_validate(fields)
