"""The requirement flow: a message that describes the job is merged, then the dialog asks
the next question or answers.

This is the last answerer (``answerers.py``): every question form has had its turn.
What the message said is merged slot by slot (``merge.py``), what could not be used is
said back in words (never an internal id, ``issues.py``), and the conversation either
asks the next question or answers with a plan.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.ack import ack_line
from gpu_advisor.bot.dialog.issues import issue_lines
from gpu_advisor.bot.dialog.labels import label_slot
from gpu_advisor.bot.dialog.limits import has_words
from gpu_advisor.bot.dialog.merge import merge
from gpu_advisor.bot.dialog.questions import EXPECTS
from gpu_advisor.bot.dialog.remember import fresh_if_new_request
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.requirements import MAX_INPUT_CHARS

SOFT_ISSUES = {"currency_assumed", "period_assumed", "budget_period_converted", "number_unused"}


def requirements_answer(flow: Tools, state: ConversationState, msg: Message) -> Answer:
    """Merge what the message said; then the next question, or the answer."""
    ext = msg.ext
    expecting = EXPECTS.get(state.pending or "")
    new, carried = fresh_if_new_request(state, msg)
    if not new.lang_locked and has_words(msg.text):
        new.lang = msg.lang
    notes = [locales.t(new.lang, "dialog.cut", limit=MAX_INPUT_CHARS)] if msg.cut else []
    if carried:
        items = " · ".join(label_slot(new.lang, k, v) for k, v in flow.named(carried).items())
        notes.append(locales.t(new.lang, "dialog.carried", items=items))
    hard = [i for i in ext.issues if i.id not in SOFT_ISSUES]
    merged = merge(new, msg, expecting)
    notes += issue_lines(flow, new.lang, ext.issues)
    notes += [_unapplied(new.lang, slot) for slot in merged.unapplied]
    understood = merged.understood
    if not understood and not ext.skip and new.pending is None and not new.answered:
        key = "dialog.bad_value" if hard else "dialog.not_understood"
        return flow.advance(new, [*notes, locales.t(new.lang, key)])
    if not understood and not (ext.skip and state.pending):
        key = "dialog.bad_value" if hard else "dialog.not_understood"
        return flow.repeat_question(new, key, notes), state.model_copy(update={"lang": new.lang})
    if ext.skip and new.pending and new.pending not in new.skipped:
        new.skipped.append(new.pending)
    new.turns += 1
    if understood:
        notes.insert(0, ack_line(new.lang, flow.named(merged.said), label_slot))
    return flow.advance(new, notes)


def _unapplied(lang: str, slot: str) -> str:
    """An edit with nothing to change ("预算再少一半" before any budget): said, not dropped."""
    name = locales.t(lang, f"slot.{slot}") if slot and locales.has(lang, f"slot.{slot}") else "?"
    return locales.t(lang, "followup.edit_nothing", slot=name)
