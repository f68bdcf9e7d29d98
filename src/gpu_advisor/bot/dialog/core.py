"""The conversation loop: parse → update state → ask the next question or answer.

Each step is a small function named for what it does, in the spirit of
python-telegram-bot's ``conversationbot.py``: ``handle`` routes commands and text,
``_understand`` merges what a message said into the state, ``_advance`` decides
between the next question and the answer. Nothing here raises on user input: bad
input becomes a polite reply in the user's language and leaves the state as it was.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from datetime import date
from typing import Any

from gpu_advisor import locales
from gpu_advisor.bot.dialog import followups, render
from gpu_advisor.bot.dialog.ack import ack_line, is_ack
from gpu_advisor.bot.dialog.direct import direct_answer
from gpu_advisor.bot.dialog.honest import assumed_items
from gpu_advisor.bot.dialog.limits import limit_of
from gpu_advisor.bot.dialog.merge import merge
from gpu_advisor.bot.dialog.plancache import PlanCache, View
from gpu_advisor.bot.dialog.questions import EXPECTS, QUESTIONS, Question, missing, next_question
from gpu_advisor.bot.dialog.reply import Button, Content, Reply, ReplyKind
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.vocab import vocabulary
from gpu_advisor.bot.dialog.words import fit_line
from gpu_advisor.bot.dialog.workload import to_workload, workload_fields
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.requirements import MAX_INPUT_CHARS, Extraction, Vocabulary, extract

log = logging.getLogger(__name__)

PLAN_CACHE = 512
SOFT_ISSUES = {"currency_assumed", "period_assumed", "budget_period_converted"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean(text: str) -> tuple[str, bool]:
    """Strip control characters and cut at the cap for its kind (bot.dialog.limits); says if cut."""
    text = _CONTROL.sub(" ", unicodedata.normalize("NFC", text)).strip()
    limit = limit_of(text)
    return text[:limit], len(text) > limit


def has_words(text: str) -> bool:
    """True when the text has letters or CJK (not only emoji, digits or punctuation)."""
    return any(unicodedata.category(ch).startswith("L") for ch in text)


class Dialog:
    """One brain for every surface; holds the knowledge base, never any conversation."""

    def __init__(self, kb: Knowledge, vocab: Vocabulary | None = None) -> None:
        self.kb = kb
        self.vocab = vocab or vocabulary(kb)
        self.plans = PlanCache(PLAN_CACHE)

    def view(self, state: ConversationState, plan: Plan, render_view: View[Content]) -> Content:
        """A plan's reply parts in the conversation's language, rendered once per cached plan."""
        return self.plans.view(plan, state.lang, render_view)

    def reload(self, kb: Knowledge) -> None:
        """Swap in a new knowledge base (a reloaded price catalog); conversations are untouched."""
        self.kb = kb
        self.vocab = vocabulary(kb)
        self.plans.clear()

    def quick(self, text: str, lang: str | None = None, lock: bool = True) -> Reply:
        """One message, one answer, no follow-up questions: inline queries and one-shot asks.

        With the task and the model known, refinements take their defaults at once;
        without them the reply is the question that would come next.
        """
        state = ConversationState(lang=lang or "zh", lang_locked=lock and lang is not None)
        first, state = self.handle(state, text)
        if first.kind != "question" or {"task", "model"} & set(first.missing):
            return first
        reply, state = self.handle(state, "/plan")
        return _led_by(reply, first.lead)

    # --- entry points -------------------------------------------------------------
    def handle(
        self, state: ConversationState, text: str, today: date | None = None
    ) -> tuple[Reply, ConversationState]:
        """One message; ``today`` (the caller's date) lets "by Friday" become a deadline."""
        from gpu_advisor.bot.dialog import commands

        text, cut = clean(text)
        if not text:
            return self.say(state, "error", "dialog.empty"), state
        if text.startswith("/"):
            return commands.run(self, state, text)
        return self._understand(state, text, cut, today)

    def press(self, state: ConversationState, payload: str) -> tuple[Reply, ConversationState]:
        """A quick-reply button: ``q:<question>:<choice index>`` or ``q:<question>:skip`` or a command."""
        from gpu_advisor.bot.dialog import commands

        if payload.startswith("/"):
            return commands.run(self, state, payload)
        parts = payload.split(":")
        question = QUESTIONS.get(parts[1]) if len(parts) == 3 and parts[0] == "q" else None
        if question is None or question.id != state.pending:
            return self._stale(state), state
        new = state.model_copy(deep=True)
        if parts[2] == "skip":
            new.skipped.append(question.id)
        elif parts[2].isdigit() and int(parts[2]) < len(question.choices):
            new.slots.update(question.choices[int(parts[2])].slots)
        else:
            return self._stale(state), state
        new.turns += 1
        return self.advance(new, [])

    # --- steps --------------------------------------------------------------------
    def _understand(
        self, state: ConversationState, text: str, cut: bool, today: date | None = None
    ) -> tuple[Reply, ConversationState]:
        if (direct := direct_answer(self, state, text)) is not None:
            return direct  # a yes/no verdict or a concept answer comes before the requirement flow
        if (payload := typed_choice(state, text)) is not None:
            return self.press(state, payload)  # "几十人（≈16）" typed by hand means what the button means
        expecting = EXPECTS.get(state.pending or "")
        current = state.lang if state.turns or state.lang_locked else None
        ext = extract(text, self.vocab, expecting=expecting, current_lang=current, today=today)
        new = state.model_copy(deep=True)
        if not new.lang_locked and has_words(text):
            new.lang = ext.lang
        asked = self._follow_up(new, text, ext)
        if asked is not None:
            return asked, state.model_copy(update={"lang": new.lang})
        notes = [locales.t(new.lang, "dialog.cut", limit=MAX_INPUT_CHARS)] if cut else []
        hard = [i for i in ext.issues if i.id not in SOFT_ISSUES]
        merged = merge(new, ext, text, expecting)
        understood = merged.understood
        notes += [locales.t(new.lang, f"issue.{i.id}", **i.values) for i in ext.issues]
        notes += [self._unapplied(new.lang, slot) for slot in merged.unapplied]
        if not understood and not ext.skip and state.pending is None and not state.answered:
            # Nothing usable yet: say so, then ask the first question with its buttons.
            key = "dialog.bad_value" if hard else "dialog.not_understood"
            return self.advance(new, [*notes, locales.t(new.lang, key)])
        if not understood and not (ext.skip and state.pending):
            key = "dialog.bad_value" if hard else "dialog.not_understood"
            reply = self._repeat_question(new, key, notes)
            kept = state.model_copy(update={"lang": new.lang})
            return reply, kept
        if ext.skip and new.pending and new.pending not in new.skipped:
            new.skipped.append(new.pending)
        new.turns += 1
        if understood:
            notes.insert(0, ack_line(new.lang, self._named(merged.said), label_slot))
        return self.advance(new, notes)

    def _follow_up(self, state: ConversationState, text: str, ext: Extraction) -> Reply | None:
        """After an answer, a question about the plan ("有没有更便宜的", "why not a T4?") gets its answer."""
        if not state.answered:
            return None
        intent = followups.intent_of(text, ext)
        describes = bool(ext.edits or ext.constraints.any() or set(ext.slots) - {"gpu"})
        if intent is None or (describes and intent not in ("why_not", "swap")):
            return None
        return followups.answer(self, state, intent, ext)

    def _unapplied(self, lang: str, slot: str) -> str:
        """An edit with nothing to change ("预算再少一半" before any budget): said, not dropped."""
        name = locales.t(lang, f"slot.{slot}") if slot and locales.has(lang, f"slot.{slot}") else "?"
        return locales.t(lang, "followup.edit_nothing", slot=name)

    def advance(self, state: ConversationState, notes: list[str]) -> tuple[Reply, ConversationState]:
        question = next_question(state)
        if question is not None:
            return self._ask(state, question, notes)
        state.pending = None
        return self.answer(state, notes)

    def _ask(
        self, state: ConversationState, q: Question, notes: list[str]
    ) -> tuple[Reply, ConversationState]:
        state.pending = q.id
        if q.id not in state.asked:
            state.asked.append(q.id)
        content = Content(lead=notes, title=locales.t(state.lang, f"question.{q.id}"))
        return self.reply(state, "question", content, self.buttons(state.lang, q)), state

    def answer(self, state: ConversationState, notes: list[str]) -> tuple[Reply, ConversationState]:
        plan, error = self.plan_for(state)
        if plan is None:
            text = "\n".join([*notes, error or locales.t(state.lang, "dialog.error_generic")])
            return self.reply(state, "error", text), state
        state.answered = True
        # One line confirms the whole request before the card; the question's own echo gives way to it.
        ack = " · ".join(
            [ack_line(state.lang, self._named(state.slots), label_slot), *assumed_items(state.lang, plan)]
        )
        lead = [ack, *(n for n in notes if not is_ack(state.lang, n))]
        content = self._owned(state, plan, self.view(state, plan, render.answer).around(lead=lead))
        return self.reply(state, "answer", content, render.answer_buttons(state.lang, plan), plan), state

    # --- helpers ------------------------------------------------------------------
    def _owned(self, state: ConversationState, plan: Plan, content: Content) -> Content:
        """Cards the user owns are judged first: "你的两张 4090D 够用" heads the card when they suffice."""
        gpu = state.slots.get("gpu")
        if not state.gpu_owned or gpu is None:
            return content
        own = plan.requested
        count = own.count * own.machines if own else int(state.slots.get("gpu_count") or 1)
        gpus = locales.t(state.lang, "followup.gpus", count=count, gpu=self.gpu_names(gpu))
        if own is not None and own.headroom_gib >= 0 and own.meets_latency:
            # The card is about the user's own cards now: their fit and speed, no rent to show.
            return content.model_copy(
                update={
                    "title": locales.t(state.lang, "followup.owned_enough", gpus=gpus),
                    "pick": gpus,
                    "price": None,
                    "summary": [fit_line(state.lang, own), *content.summary[1:]],
                }
            )
        short = locales.t(state.lang, "followup.owned_short", gpus=gpus)  # after the ack line
        return content.model_copy(update={"lead": [*content.lead[:1], short, *content.lead[1:]]})

    def plan_for(self, state: ConversationState) -> tuple[Plan | None, str | None]:
        """The plan for the current slots, or a localized reason why there is none."""
        try:
            workload = to_workload(state.slots, state.gpu_owned)
            key = workload.model_dump_json()
            plan = self.plans.get(key)
            if plan is None:
                plan = recommend(workload, self.kb)
                self.plans.put(key, plan)
            return plan, None
        except EngineError as exc:
            values = {k: v for k, v in exc.values.items() if isinstance(v, str | int | float)}
            return None, locales.t(state.lang, f"error.{exc.code}", **values)
        except ValueError as exc:
            log.info("workload rejected: %s", exc)
            return None, locales.t(state.lang, "error.invalid_input")

    def buttons(self, lang: str, q: Question) -> list[Button]:
        out = [
            Button(label=locales.t(lang, c.label_key), payload=f"q:{q.id}:{i}")
            for i, c in enumerate(q.choices)
        ]
        if not q.required:
            out.append(Button(label=locales.t(lang, "choice.skip"), payload=f"q:{q.id}:skip"))
        return out

    def _named(self, slots: dict[str, Any]) -> dict[str, Any]:
        """The slots with a model id replaced by the model's name, for people to read."""
        model = self.kb.models.get(str(slots.get("model")))
        named = {**slots, "model": model.name} if model is not None else dict(slots)
        for key in ("gpu", "exclude_gpus"):
            if key in named:
                named[key] = self.gpu_names(named[key])
        return named

    def gpu_names(self, ids: Any) -> Any:
        """Card ids ("rtx3090", or a list of them) as their names ("NVIDIA GeForce RTX 3090")."""
        if isinstance(ids, list):
            return [self.gpu_names(i) for i in ids]
        spec = self.kb.gpus.get(str(ids))
        return spec.name if spec is not None else ids

    def _repeat_question(self, state: ConversationState, key: str, notes: list[str]) -> Reply:
        q = QUESTIONS.get(state.pending or "")
        lines = [*notes, locales.t(state.lang, key)]
        if q is not None:
            content = Content(lead=lines, title=locales.t(state.lang, f"question.{q.id}"))
            return self.reply(state, "error", content, self.buttons(state.lang, q))
        return self.reply(state, "error", "\n".join(lines))

    def _stale(self, state: ConversationState) -> Reply:
        q = QUESTIONS.get(state.pending or "")
        text = locales.t(state.lang, "dialog.stale_button")
        if q is not None:
            content = Content(lead=[text], title=locales.t(state.lang, f"question.{q.id}"))
            return self.reply(state, "info", content, self.buttons(state.lang, q))
        return self.reply(state, "info", text)

    def say(self, state: ConversationState, kind: ReplyKind, key: str, **values: Any) -> Reply:
        return self.reply(state, kind, locales.t(state.lang, key, **values))

    def reply(
        self,
        state: ConversationState,
        kind: ReplyKind,
        said: str | Content,
        buttons: list[Button] | None = None,
        plan: Plan | None = None,
    ) -> Reply:
        """A reply from plain text or from parts; a plan with a pick comes with a chart to ask for."""
        parts = said.parts() if isinstance(said, Content) else Content()
        return Reply(
            **dict(parts),
            kind=kind,
            text=said if isinstance(said, str) else "",
            lang=state.lang,
            buttons=buttons or [],
            requirements=workload_fields(state.slots),
            missing=missing(state),
            assumed=[f.id for f in plan.assumptions] if plan else [],
            plan=plan,
            chart="all" if plan is not None and plan.recommendation is not None else None,
        )


def label_slot(lang: str, key: str, value: Any) -> str:
    """ "任务：训练" / "budget: ¥10,000 a month" — one understood slot, for the echo line."""
    name = locales.t(lang, f"slot.{key}")
    if isinstance(value, dict) and "amount" in value:
        shown = locales.t(
            lang,
            f"value.per.{value.get('per', 'month')}",
            amount=locales.money(lang, value["amount"], value.get("currency", "CNY")),
        )
    elif isinstance(value, bool):
        flag = f"value.{key}.{str(value).lower()}"
        shown = locales.t(lang, flag if locales.has(lang, flag) else ("common.yes" if value else "common.no"))
    elif isinstance(value, str) and locales.has(lang, f"value.{key}.{value}"):
        shown = locales.t(lang, f"value.{key}.{value}")
    elif isinstance(value, list):
        words = [
            locales.t(lang, f"value.{key}.{v}") if locales.has(lang, f"value.{key}.{v}") else str(v)
            for v in value
        ]
        shown = ("、" if lang == "zh" else ", ").join(words)
    elif isinstance(value, float | int):
        shown = locales.big(lang, value) if value >= 1e5 else locales.number(lang, value)
    else:
        shown = str(value)
    return locales.t(lang, "dialog.slot", name=name, value=shown)


def _led_by(reply: Reply, lead: list[str]) -> Reply:
    """``reply`` with ``lead`` (what the message was understood as, and what was not) first.

    A one-shot answer runs the message, then ``/plan``; the notes of the first turn (an
    unknown card or model said aloud, a cut message) must reach the user all the same.
    """
    if not lead or not reply.structured:
        return reply
    led = reply.model_copy(update={"lead": [*lead, *reply.lead]})
    led.text = led.as_text()
    return led


_ASIDE = re.compile(r"[（(][^()（）]{0,40}[)）]")
_NOT_LABEL = re.compile(r"[\s,，.。!！?？:：;；、~～]++")


def typed_choice(state: ConversationState, text: str) -> str | None:
    """The payload of the pending question's button whose label the user typed by hand.

    The whole label or the label without its aside counts ("几十人（≈16）", "几十人",
    "Dozens"), in either language, so typing a button's words answers as pressing it does —
    never a different number read from the same words.
    """
    question = QUESTIONS.get(state.pending or "")
    if question is None or len(text) > 60:
        return None
    typed = _label_key(text)
    for index, choice in enumerate(question.choices):
        for lang in ("zh", "en"):
            label = locales.t(lang, choice.label_key)
            if typed in {_label_key(label), _label_key(_ASIDE.sub("", label))}:
                return f"q:{question.id}:{index}"
    return None


def _label_key(text: str) -> str:
    return _NOT_LABEL.sub("", unicodedata.normalize("NFKC", text)).lower()
