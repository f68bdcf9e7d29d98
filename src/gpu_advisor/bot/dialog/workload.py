"""Conversation slots → the engine's Workload, with the dialog's own defaults.

Slots use Workload field names already; the only translation is that a context length
said during a training conversation is the training sequence length, and that a
serving conversation which never said "one-off" runs 24×7.
"""

from __future__ import annotations

from typing import Any

from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.requirements.result import Edit

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


NUMERIC_SLOTS = ("budget", "concurrency", "qps", "train_tokens", "duration_hours", "params_b", "gpu_count")
"""Slots a relative edit ("再少一半", "make it 2000 instead") may change, in the order
a message's own numbers claim them as the last-mentioned one."""
INTEGER_SLOTS = frozenset({"concurrency", "gpu_count", "context_len"})
NAMED_ONLY_SLOTS = frozenset({"context_len"})
"""Slots an edit may set only when the message names them ("上下文改成 32k"): a bare
"改成 2000" never means the context."""


def last_number(said: dict[str, Any]) -> str | None:
    """The slot of the last number a message gave (what a later "改成 2000" refers to)."""
    named = [k for k in NUMERIC_SLOTS if said.get(k) is not None]
    return named[-1] if named else None


def apply_edit(slots: dict[str, Any], edit: Edit, fallback: str | None) -> str | None:
    """Apply one relative edit to ``slots`` in place; the slot changed, or None if nothing could be.

    ``scale`` multiplies what is there (a budget's amount, keeping currency and period);
    ``set`` replaces it. Integer slots round, never below 1. A scale needs a value to
    scale, so an edit of a slot never given changes nothing (the caller says so).
    """
    slot = edit.slot or fallback
    named = edit.slot is not None and edit.op == "set" and slot in NAMED_ONLY_SLOTS
    if slot is None or (slot not in NUMERIC_SLOTS and not named):
        return None
    current = slots.get(slot)
    if edit.op == "scale":
        if current is None or edit.factor is None:
            return None
        amount = current["amount"] if slot == "budget" else float(current)
        value = amount * edit.factor
    elif edit.value is not None:
        value = float(edit.value)
    else:
        return None
    if slot in INTEGER_SLOTS:
        value = max(1, round(value))
    if slot == "budget":
        slots["budget"] = {**(current or {"currency": "CNY", "per": "month"}), "amount": value}
    else:
        slots[slot] = value
    if slot == "duration_hours":
        slots.pop("always_on", None)
    return slot
