"""Concept and myth questions get a short direct answer with numbers, then an offer to size.

"T4 还是 3090 适合做推理", "does NVLink help inference?", "405B Q4 一张 H100 能跑吗":
today's requirement flow would ask "模型多大？". Concepts are declared in
``engine.concepts`` (triggers, facts from ``knowledge/``, sentences ``concept.<id>``);
myths are the engine's myth rules (``engine.myths``, heard by ``bot.dialog.claims``),
answered with their own finding sentences — one declaration each, not repeated here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_advisor import locales
from gpu_advisor.bot.dialog.claims import claims_in
from gpu_advisor.bot.dialog.reply import Button, Content, Reply
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.engine import concepts
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.requirements import normalize
from gpu_advisor.text.normalize import Lang, language_of

if TYPE_CHECKING:
    from gpu_advisor.bot.dialog.core import Dialog

MYTH_BASE = {"task": "train", "params_b": 7}  # the myth checks need a workload; 7B is their own scale


def answer(dialog: Dialog, state: ConversationState, text: str) -> tuple[Reply, ConversationState] | None:
    """The answer to a concept or myth question, or None when the message is neither."""
    low = normalize(text)
    lines = _myth_lines(dialog, state, text) or _concept_lines(dialog, low, _lang(state, text))
    if not lines:
        return None
    new = state.model_copy(deep=True)
    new.lang = _lang(state, text)
    new.turns += 1
    content = Content(title=lines[0], summary=[*lines[1:], locales.t(new.lang, "faq.offer")])
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return dialog.reply(new, "info", content, [button]), new


def _lang(state: ConversationState, text: str) -> Lang:
    return state.lang if state.lang_locked else language_of(text)


def _concept_lines(dialog: Dialog, low: str, lang: str) -> list[str]:
    concept = concepts.find(low)
    if concept is None:
        return []
    return [locales.t(lang, f"concept.{concept.id}", **concept.facts(dialog.kb))]


def _myth_lines(dialog: Dialog, state: ConversationState, text: str) -> list[str]:
    """The myth findings for the claims heard in a question, in the engine's own words."""
    claims = claims_in(text)
    if not claims or not concepts.asks(normalize(text)):
        return []
    plan = recommend(Workload.model_validate({**MYTH_BASE, "claims": claims}), dialog.kb)
    myths: list[Finding] = [f for f in plan.pitfalls if f.id.startswith("myth_")]
    lang = _lang(state, text)
    return [locales.render_finding(lang, f.id, f.values) for f in myths]
