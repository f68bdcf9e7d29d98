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
from gpu_advisor.bot.dialog.heard import heard_answer
from gpu_advisor.bot.dialog.issues import issue_lines
from gpu_advisor.bot.dialog.labels import label_slot
from gpu_advisor.bot.dialog.limits import has_words
from gpu_advisor.bot.dialog.merge import Merged, merge
from gpu_advisor.bot.dialog.questions import EXPECTS
from gpu_advisor.bot.dialog.remember import fresh_if_new_request
from gpu_advisor.bot.dialog.slots import loose
from gpu_advisor.bot.dialog.small_talk import small_talk
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.dialog_words import SIZE as _SIZE
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.requirements import MAX_INPUT_CHARS

_PRICED_OVER = ("traffic", "schedule")
SOFT_ISSUES = {"currency_assumed", "period_assumed", "budget_period_converted", "number_unused"}


def requirements_answer(flow: Tools, state: ConversationState, msg: Message) -> Answer:
    """Merge what the message said; then the next question, or the answer.

    A job that is not a language model's ("每天 5000 张 SDXL 图") is said back as read
    (``heard.py``), never merged into the chatbot flow."""
    if (heard := heard_answer(flow, state, msg)) is not None:
        return heard
    ext = msg.ext
    expecting = EXPECTS.get(state.pending or "")
    new, carried = fresh_if_new_request(state, msg)
    if not new.lang_locked and has_words(msg.text):
        new.lang = msg.lang
    notes = [locales.t(new.lang, "dialog.cut", limit=MAX_INPUT_CHARS)] if msg.cut else []
    if carried:
        items = " · ".join(label_slot(new.lang, k, v) for k, v in flow.named(carried, new.lang).items())
        notes.append(locales.t(new.lang, "dialog.carried", items=items))
    hard = [i for i in ext.issues if i.id not in SOFT_ISSUES]
    held_model = new.slots.get("model")
    merged = merge(new, msg, expecting)
    _same_family(flow.kb, new, held_model, merged)
    notes += issue_lines(flow, new.lang, ext.issues)
    notes += [_unapplied(new.lang, slot) for slot in merged.unapplied]
    understood = merged.understood
    # "多少钱一个月" while the dialog asks about users or the schedule: the price is what they
    # want now, so the open question is passed over (the plan says what it assumed) and answered.
    skip = ext.skip or (not understood and msg.form.price and new.pending in _PRICED_OVER)
    chat = None if hard else small_talk(msg.low)
    if not understood and not skip and new.pending is None and not new.answered:
        key = chat or ("dialog.bad_value" if hard else "dialog.not_understood")
        return flow.advance(new, [*notes, locales.t(new.lang, key)])
    if not understood and not (skip and state.pending):
        key = chat or ("dialog.bad_value" if hard else "dialog.not_understood")
        return flow.repeat_question(new, key, notes), state.model_copy(update={"lang": new.lang})
    if skip and new.pending and new.pending not in new.skipped:
        new.skipped.append(new.pending)
    if skip and not ext.skip:  # a price question passes over every refining question left
        new.skipped.extend(q for q in _PRICED_OVER if q not in new.skipped)
    new.turns += 1
    if understood:
        notes.insert(0, ack_line(new.lang, flow.named(merged.said, new.lang), label_slot))
    return flow.advance(new, notes)


def _same_family(kb: Knowledge, state: ConversationState, held: object, merged: Merged) -> None:
    """ "换成 72B" after Qwen2.5-7B means Qwen2.5-72B: a bare size that replaced a named model
    becomes that model's sibling of the size (within 10 %) in the same family, the one whose
    id shares the most with the held one (Llama 3.1 8B → Llama 3.1 70B, not Llama 3.3 70B);
    with no single such sibling the size stays a size."""
    size = state.slots.get("params_b")
    if not isinstance(held, str) or not isinstance(size, int | float) or held not in kb.models:
        return
    family = kb.models[held].family
    close = [m.id for m in kb.models.values() if m.family == family and abs(m.params_b - size) <= 0.1 * size]
    ranked = sorted((((_sized(held) == _sized(i)), _shared(held, i), i) for i in close), reverse=True)
    if not ranked or (len(ranked) > 1 and ranked[0][:2] == ranked[1][:2]):
        return
    sibling = ranked[0][2]
    slots = loose(state.slots)
    slots.pop("params_b", None)
    slots["model"] = sibling
    merged.said.pop("params_b", None)
    merged.said["model"] = sibling


def _sized(model_id: str) -> str:
    """The id without its size: "qwen2.5-32b" and "qwen2.5-14b" are one line, "qwen2.5-coder-14b" another."""
    return _SIZE.sub("", model_id)


def _shared(a: str, b: str) -> int:
    """Leading characters two model ids share ("llama-3.1-8b", "llama-3.1-70b": 10)."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def _unapplied(lang: str, slot: str) -> str:
    """An edit with nothing to change ("预算再少一半" before any budget): said, not dropped."""
    name = locales.t(lang, f"slot.{slot}") if slot and locales.has(lang, f"slot.{slot}") else "?"
    return locales.t(lang, "followup.edit_nothing", slot=name)
