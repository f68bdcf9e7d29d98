"""What one message changes in the conversation's requirements.

Later messages correct earlier ones, slot by slot; beyond that:

- a task named again adds to what is held only where it must not lose a half: a
  "train then serve" conversation stays both when a later message talks about serving
  alone, while a correction ("不对，是推理不是训练", ``replace=["task"]``) replaces the
  task and drops the other task's settings, so no LoRA rank leaks into a serving plan;
- relative edits ("预算再少一半", "并发翻个倍", "make it 2000 instead") apply to the
  held values (``bot.dialog.workload.apply_edit``); one that names no slot changes the
  number last given or asked about;
- card exclusions ("不要 3090", "no consumer cards", "只用国产卡") accumulate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpu_advisor.bot.dialog.slots import loose
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.workload import apply_edit, last_number
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.requirements import Extraction

TRAIN_ONLY = (
    "method",
    "train_tokens",
    "lora_rank",
    "seq_len",
    "zero_stage",
    "gpus",
    "batch_size",
    "optimizer",
)
SERVE_ONLY = (
    "concurrency",
    "qps",
    "prompt_tokens",
    "output_tokens",
    "ttft_ms_max",
    "ttft_ms_p99",
    "tpot_ms_p99",
    "always_on",
)
EXCLUSIVE = (
    ("model", "params_b"),
    ("params_b", "model"),
    ("always_on", "duration_hours"),
    ("duration_hours", "always_on"),
)


@dataclass
class Merged:
    """What the message changed: slots to echo back, and edits it could not apply."""

    said: dict[str, Any] = field(default_factory=dict)
    unapplied: list[str] = field(default_factory=list)

    @property
    def understood(self) -> bool:
        return bool(self.said)


def merge(state: ConversationState, msg: Message, expecting: str | None) -> Merged:
    """Copy what the message said into ``state`` (in place); see the module docstring."""
    ext = msg.ext
    slots = dict(ext.slots)
    _settle_task(state, slots, ext.replace, "also" in msg.heard)
    for new, old in EXCLUSIVE:
        if new in slots:
            loose(state.slots).pop(old, None)
    loose(state.slots).update(slots)
    out = Merged(said=slots)
    out.said.update(_constraints(state, ext))
    _edits(state, ext, expecting, out)
    claims = list(msg.claims)
    if claims:
        state.slots["claims"] = sorted({*state.slots.get("claims", []), *claims})
        out.said.setdefault("claims", claims)
    if msg.free_platform:
        state.slots["free_platform"] = True
    if ext.gpu_owned:
        state.gpu_owned = True
    state.last_slot = last_number(slots) or state.last_slot
    return out


def _settle_task(state: ConversationState, slots: dict[str, Any], replace: list[str], also: bool) -> None:
    """Keep "both" unless corrected; a task switched (corrected, or "那训练呢" after a serving
    plan) drops the other task's settings, so a training plan does not echo serving users."""
    held, said = state.slots.get("task"), slots.get("task")
    if said is None or said == held or held is None:
        return
    if "task" not in replace and (held == "both" or also):
        slots["task"] = "both"  # "now I also want to fine-tune it": serving stays, training joins
        return
    for key in TRAIN_ONLY if said == "infer" else SERVE_ONLY if said == "train" else ():
        loose(state.slots).pop(key, None)


def _constraints(state: ConversationState, ext: Extraction) -> dict[str, Any]:
    """Card exclusions added to what the conversation already rules out."""
    c = ext.constraints
    said: dict[str, Any] = {}
    for key, values in (("exclude_gpus", c.exclude_gpus), ("exclude_segments", c.exclude_segments)):
        if values:
            loose(state.slots)[key] = sorted({*loose(state.slots).get(key, []), *values})
            said[key] = values
    if c.only_vendor:
        state.slots["only_vendor"] = said["only_vendor"] = c.only_vendor
    if c.domestic_only:
        state.slots["domestic_only"] = said["domestic_only"] = True
    return said


def _holding(slots: dict[str, Any], value: float) -> str | None:
    """The numeric slot whose value is ``value`` (a budget by its amount), when exactly one is."""
    found = [
        name
        for name, held in slots.items()
        if (held.get("amount") if isinstance(held, dict) else held) == value and not isinstance(held, bool)
    ]
    return found[0] if len(found) == 1 else None


def _edits(state: ConversationState, ext: Extraction, expecting: str | None, out: Merged) -> None:
    fallback = expecting or state.last_slot
    for edit in ext.edits:
        held = _holding(loose(state.slots), edit.was) if edit.was is not None else None
        slot = apply_edit(loose(state.slots), edit, held or fallback)
        if slot is None:
            out.unapplied.append(edit.slot or fallback or "")
        else:
            out.said[slot] = loose(state.slots)[slot]
            state.last_slot = slot
