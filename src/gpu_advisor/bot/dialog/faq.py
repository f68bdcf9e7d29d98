"""Concept and myth questions get a short direct answer with numbers, then an offer to size.

"T4 还是 3090 适合做推理", "does NVLink help inference?", "训练显存是权重的两倍吧":
today's requirement flow would ask "模型多大？". Concepts are declared in
``engine.concepts`` (triggers, facts from ``knowledge/`` and from what the question
carried, sentences ``concept.<id>``); myths are the engine's myth rules
(``engine.rules.myths``, heard by ``reading.claims``), answered with their own finding
sentences — one declaration each, not repeated here. A concept computed for a model the
user did not name says which typical model it used, on the line after the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_advisor import locales
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button, Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.engine import concepts
from gpu_advisor.engine.concepts import Asked
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading import concepts as reading_concepts
from gpu_advisor.reading.message import Message

MYTH_BASE = {"task": "train", "params_b": 7}  # the myth checks need a workload; 7B is their own scale
MIN_CONTEXT = 256  # a context below this is a misread count ("32k 上下文、20 个并发" read as 20)


def myth_answer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """A question that repeats a known wrong claim: the true figure first, then the offer to size."""
    if not msg.claims or "claim_asked" not in msg.heard:  # asked, confirmed or hearsay (``reading.message``)
        return None
    return _short(flow, state, msg, myth_sentences(flow.kb, _lang(state, msg), list(msg.claims)))


def myth_sentences(kb: Knowledge, lang: str, claims: list[str]) -> list[str]:
    """Each claimed myth's correction, in the rules' order."""
    plan = recommend(Workload.model_validate({**MYTH_BASE, "claims": claims}), kb)
    myths: list[Finding] = [f for f in plan.pitfalls if f.id.startswith("myth_")]
    return [locales.render_finding(lang, f.id, f.values) for f in myths]


def concept_answer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """A concept question, answered with the engine's numbers for what it carried, then the offer to size."""
    if msg.concept is None:  # heard once, in reading.concepts
        return None
    concept = concepts.BY_ID[msg.concept]
    lang = _lang(state, msg)
    facts = concept.facts(flow.kb, asked_of(msg, state.slots))
    lines = [locales.t(lang, f"concept.{concept.id}", **facts)]
    return _short(flow, state, msg, lines + _noted(lang, facts) + _assumed(lang, facts))


def _noted(lang: str, facts: concepts.Facts) -> list[str]:
    """The line a concept's facts ask for after its answer (``note``): the quantized model on
    the card the question named, or the catalog's MIG slice and its price."""
    note = facts.get("note")
    return [locales.t(lang, f"concept_note.{note}", **facts)] if isinstance(note, str) and note else []


def _assumed(lang: str, facts: concepts.Facts) -> list[str]:
    """What the answer assumed because the question did not say it: the model, the context, the users."""
    notes = []
    if facts.get("typical"):
        notes.append(locales.t(lang, "verdict.assumed_model", model=facts["model"]))
    if facts.get("context_typical"):
        notes.append(locales.t(lang, "concept_note.context", context=facts["context"]))
    if facts.get("users_typical"):
        notes.append(locales.t(lang, "concept_note.users", users=facts["users"]))
    return notes


def asked_of(msg: Message, held: Mapping[str, Any] | None = None) -> Asked:
    """What the question carried, from the slots it was read with (nothing read twice); what
    it did not say comes from the conversation (``held``): "用 vllm 还是 ollama" after
    "部署 Qwen2.5 7B" is about Qwen2.5 7B, not a typical model."""
    said, held = msg.slots, held or {}
    s = said if any(k in said for k in ("model", "params_b")) else {**said, **_model_of(held)}
    context, users = _context_and_users(msg)
    return Asked(
        model=m if isinstance(m := s.get("model"), str) else None,
        params_b=float(p) if isinstance(p := s.get("params_b"), int | float) and p > 0 else None,
        context_len=context if context is not None else _int(held.get("context_len")),
        concurrency=users if users is not None else _int(held.get("concurrency")),
        gpu=g if isinstance(g := s.get("gpu"), str) else None,
        weight_dtype=d if isinstance(d := said.get("weight_dtype"), str) else None,
        # "两张 24G 的卡" is 48 GB to fit on; the reader's memory class is one card's 24
        memory_gb=reading_concepts.memory_named(msg.low) or msg.ext.memory_class_gb,
    )


def _model_of(held: Mapping[str, Any]) -> dict[str, Any]:
    return {k: held[k] for k in ("model", "params_b") if k in held}


def _context_and_users(msg: Message) -> tuple[int | None, int | None]:
    """Context length and concurrent users as read; a "context" below ``MIN_CONTEXT`` is no window."""
    context, users = _int(msg.slots.get("context_len")), _int(msg.slots.get("concurrency"))
    return (context if context is not None and context >= MIN_CONTEXT else None), users


def _int(value: object) -> int | None:
    return (
        int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else None
    )


def _short(flow: Tools, state: ConversationState, msg: Message, lines: list[str]) -> Answer | None:
    """The direct answer's card; the slots the question carried are kept for what comes next."""
    if not lines:
        return None
    new = remember(state, msg)
    content = Content(title=lines[0], summary=[*lines[1:], locales.t(new.lang, "faq.offer")])
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return flow.reply(new, "info", content, [button]), new


def _lang(state: ConversationState, msg: Message) -> str:
    return state.lang if state.lang_locked else msg.lang
