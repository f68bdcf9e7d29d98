"""A non-LLM job said back as read, never sized as a chatbot.

"每天要出 5000 张 SDXL 图" used to fall through to "train or serve?" — the language-model
flow's first question. Such a job is sized by ``job_answer`` with the engine's job
families; when its numbers are ones the job contract refuses (500 sampling steps), the
reply here says what was understood (``msg.job``, ``msg.job_slots``), that it is not a
language-model job, and which numbers were read, so nothing is silently dropped or misused.
"""

from __future__ import annotations

from typing import get_args

from gpu_advisor import locales
from gpu_advisor.bot.dialog.reply import Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.engine.jobs.plan import JobFamily
from gpu_advisor.locales.numbers import number
from gpu_advisor.reading.message import Message

NOT_LLM = frozenset(get_args(JobFamily))
_LLM_SLOTS = ("model", "params_b", "task")


def heard_answer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The job and its numbers said back, or None for a language-model job (or none named)."""
    if msg.job not in NOT_LLM or any(k in state.slots for k in _LLM_SLOTS):
        return None
    lang = msg.lang if not state.lang_locked else state.lang
    items = [
        locales.t(lang, f"heard.slot.{slot}", value=_said(lang, value))
        for slot, value in msg.job_slots.items()
    ]
    separator = "，" if lang == "zh" else "; "
    job = locales.t(lang, f"heard.job.{msg.job}")
    line = locales.t(lang, "heard.line", job=job, items=(separator + separator.join(items)) if items else "")
    new = state.model_copy(update={"lang": lang})
    unplaced = [locales.t(lang, "issue.number_unused", value=value) for value in msg.unplaced]
    content = Content(title=line, summary=[*unplaced, locales.t(lang, "heard.not_llm")])
    return flow.reply(new, "info", content), new


def _said(lang: str, value: object) -> str:
    return number(lang, value) if isinstance(value, int | float) else str(value)
