"""The questions the bot may ask, and which one is the most useful next.

Two things are required before any answer: the task (learn or answer?) and the model
(name or size). After that, at most two refining questions per task, chosen because
they move the answer most (seed 000 §5.1's decision tree): for training the method
and the amount of data; for serving the traffic and whether it runs 24×7. A
conversation never asks more than ``MAX_QUESTIONS`` before answering; whatever is
still open takes a documented default and the answer says so.

A serving request that states its own load ("serve Mistral-7B to about 50 concurrent
users, what should I rent?") is answered at once: the card it needs does not hang on
whether it runs 24/7 (only the bill's unit does), so the schedule takes its 24/7 default
and the confirmation line says so (``defaults_said``) instead of asking first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpu_advisor import locales
from gpu_advisor.bot.dialog.slots import Slots, loose
from gpu_advisor.bot.dialog.state import ConversationState

MAX_QUESTIONS = 3


@dataclass(frozen=True)
class Choice:
    label_key: str
    slots: dict[str, Any]


@dataclass(frozen=True)
class Question:
    id: str
    fills: tuple[str, ...]
    choices: tuple[Choice, ...]
    required: bool = False


QUESTIONS: dict[str, Question] = {
    q.id: q
    for q in (
        Question(
            "task",
            ("task",),
            (
                Choice("choice.task_train", {"task": "train"}),
                Choice("choice.task_infer", {"task": "infer"}),
                Choice("choice.task_both", {"task": "both"}),
            ),
            required=True,
        ),
        Question(
            "model",
            ("model", "params_b", "hf_config"),
            (
                Choice("choice.size_7b", {"params_b": 7.0}),
                Choice("choice.size_13b", {"params_b": 13.0}),
                Choice("choice.size_34b", {"params_b": 34.0}),
                Choice("choice.size_70b", {"params_b": 70.0}),
                Choice("choice.size_405b", {"params_b": 405.0}),
            ),
            required=True,
        ),
        Question(
            "method",
            ("method",),
            (
                Choice("choice.method_full", {"method": "full"}),
                Choice("choice.method_lora", {"method": "lora"}),
                Choice("choice.method_qlora", {"method": "qlora"}),
            ),
        ),
        Question(
            "data",
            ("train_tokens", "duration_hours"),
            (
                Choice("choice.data_1e7", {"train_tokens": 1e7}),
                Choice("choice.data_1e8", {"train_tokens": 1e8}),
                Choice("choice.data_1e9", {"train_tokens": 1e9}),
                Choice("choice.data_1e10", {"train_tokens": 1e10}),
            ),
        ),
        Question(
            "traffic",
            ("concurrency", "qps"),
            (
                Choice("choice.traffic_few", {"concurrency": 4}),
                Choice("choice.traffic_dozens", {"concurrency": 16}),
                Choice("choice.traffic_hundreds", {"concurrency": 64}),
                Choice("choice.traffic_qps20", {"qps": 20.0}),
            ),
        ),
        Question(
            "schedule",
            ("always_on", "duration_hours"),
            (
                Choice("choice.schedule_always", {"always_on": True}),
                Choice("choice.schedule_days", {"duration_hours": 72.0}),
                Choice("choice.schedule_month", {"duration_hours": 720.0}),
            ),
        ),
    )
}

EXPECTS = {
    "task": "task",
    "model": "params_b",
    "method": "method",
    "data": "train_tokens",
    "traffic": "concurrency",
    "schedule": "duration_hours",
}
"""The slot a bare answer fills after each question ("1亿" after the data question is
tokens, not a model size): passed to the reader as ``expecting``."""

REFINING = {"train": ("method", "data"), "infer": ("traffic", "schedule"), "both": ("method", "traffic")}


def is_answered(q: Question, slots: dict[str, Any]) -> bool:
    return any(slots.get(f) is not None for f in q.fills)


def next_question(state: ConversationState) -> Question | None:
    """The single most useful open question, or None when it is time to answer."""
    slots = state.slots
    for qid in ("task", "model"):
        if not is_answered(QUESTIONS[qid], loose(slots)) and qid not in state.skipped:
            return QUESTIONS[qid]
    if state.answered or len(state.asked) >= MAX_QUESTIONS or states_its_load(state):
        return None
    for qid in REFINING[slots.get("task", "infer")]:
        q = QUESTIONS[qid]
        if not is_answered(q, loose(slots)) and qid not in state.asked and qid not in state.skipped:
            return q
    return None


def states_its_load(state: ConversationState) -> bool:
    """A serving request that gave its traffic before any question: enough to answer."""
    slots = loose(state.slots)
    return not state.asked and slots.get("task") == "infer" and is_answered(QUESTIONS["traffic"], slots)


def defaults_said(lang: str, slots: Slots) -> list[str]:
    """The schedule a serving answer assumed because nobody said it ("假设 7×24 运行")."""
    if slots.get("task") not in ("infer", "both"):
        return []
    if slots.get("always_on") is not None or slots.get("duration_hours") is not None:
        return []
    return [locales.t(lang, "ack.assumed_always_on")]


def missing(state: ConversationState) -> list[str]:
    """Question ids still open (for the ``missing`` field of one-shot answers)."""
    task = state.slots.get("task")
    ids = ["task", "model", *(REFINING[task] if task else ())]
    return [q for q in ids if not is_answered(QUESTIONS[q], loose(state.slots))]
