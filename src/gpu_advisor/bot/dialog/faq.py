"""Concept and myth questions get a short direct answer with numbers, then an offer to size.

"T4 还是 3090 适合做推理", "does NVLink help inference?", "405B Q4 一张 H100 能跑吗":
today's requirement flow would ask "模型多大？". Concepts are declared in
``engine.concepts`` (triggers, facts from ``knowledge/``, sentences ``concept.<id>``);
myths are the engine's myth rules (``engine.myths``, heard by ``bot.dialog.claims``),
answered with their own finding sentences — one declaration each, not repeated here.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button, Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Flow
from gpu_advisor.engine import concepts
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.message import Message

MYTH_BASE = {"task": "train", "params_b": 7}  # the myth checks need a workload; 7B is their own scale


def myth_answer(flow: Flow, state: ConversationState, msg: Message) -> Answer | None:
    """A question that repeats a known wrong claim: the true figure first, then the offer to size."""
    if not msg.claims or not msg.asks:
        return None
    lang = _lang(state, msg)
    plan = recommend(Workload.model_validate({**MYTH_BASE, "claims": list(msg.claims)}), flow.kb)
    myths: list[Finding] = [f for f in plan.pitfalls if f.id.startswith("myth_")]
    return _short(flow, state, msg, [locales.render_finding(lang, f.id, f.values) for f in myths])


def concept_answer(flow: Flow, state: ConversationState, msg: Message) -> Answer | None:
    """A concept question, answered with the engine's numbers, then the offer to size."""
    concept = concepts.find(msg.low)
    if concept is None:
        return None
    lang = _lang(state, msg)
    return _short(flow, state, msg, [locales.t(lang, f"concept.{concept.id}", **concept.facts(flow.kb))])


def _short(flow: Flow, state: ConversationState, msg: Message, lines: list[str]) -> Answer | None:
    """The direct answer's card; the slots the question carried are kept for what comes next."""
    if not lines:
        return None
    new = remember(state, msg)
    content = Content(title=lines[0], summary=[*lines[1:], locales.t(new.lang, "faq.offer")])
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return flow.reply(new, "info", content, [button]), new


def _lang(state: ConversationState, msg: Message) -> str:
    return state.lang if state.lang_locked else msg.lang
