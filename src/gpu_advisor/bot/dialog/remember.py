"""What a conversation keeps from a message that was answered directly, and what a new
request starts from.

After a direct answer (a verdict, a concept, a myth, a price) the slots the question
carried stay — the model, the card, the task — so "7×24" or "并发10" next goes on from
there instead of asking "train or serve?" again. But a new, complete request (it states
a task and a model other than the one held) is a new workload: it does not inherit the
card, the count or the load of the question before. Only what describes the user rather
than the job carries over — the cards they own, the cards they rule out, their budget —
and the reply says so ("沿用：…").
"""

from __future__ import annotations

from typing import Any

from gpu_advisor.bot.dialog.merge import merge
from gpu_advisor.bot.dialog.slots import loose
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.reading.message import Message

CARRIED = ("exclude_gpus", "exclude_segments", "only_vendor", "domestic_only", "budget")
MODEL_SLOTS = ("model", "params_b", "hf_config")


def remember(state: ConversationState, msg: Message) -> ConversationState:
    """``state`` plus the slots of a directly answered question (not echoed, nothing asked)."""
    new = fresh_if_new_request(state, msg)[0]
    if not new.lang_locked:
        new.lang = msg.lang
    merge(new, msg, None)
    new.pending = None
    new.turns += 1
    return new


def is_new_request(state: ConversationState, msg: Message) -> bool:
    """A message that states a task and a model other than the conversation's is a new job."""
    slots = msg.ext.slots
    said_task = "task" in slots and "task" not in msg.ext.implied
    said_model = next((k for k in MODEL_SLOTS if k in slots), None)
    if not said_task or said_model is None:
        return False
    held = {k: loose(state.slots)[k] for k in MODEL_SLOTS if k in state.slots}
    return bool(held) and held.get(said_model) != slots[said_model]


def fresh_if_new_request(state: ConversationState, msg: Message) -> tuple[ConversationState, dict[str, Any]]:
    """A copy of ``state`` — emptied of the old job when ``msg`` is a new request — and what carried."""
    if not is_new_request(state, msg):
        return state.model_copy(deep=True), {}
    fresh = state.reset()
    fresh.turns = state.turns
    carried = {k: loose(state.slots)[k] for k in CARRIED if k in state.slots and k not in msg.ext.slots}
    if state.gpu_owned and "gpu" in state.slots and "gpu" not in msg.ext.slots:
        carried.update({k: loose(state.slots)[k] for k in ("gpu", "gpu_count") if k in state.slots})
        fresh.gpu_owned = True
    loose(fresh.slots).update(carried)
    return fresh, carried
