"""The conversation loop: read the message once, then offer it to the answerers in order.

Each step is a small function named for what it does, in the spirit of
python-telegram-bot's ``conversationbot.py``: ``handle`` routes commands and text
(``answerers.ANSWERERS``: the first that answers wins), ``press`` takes a button,
``advance`` decides between the next question and the answer. Nothing here raises on
user input: bad input becomes a polite reply in the user's language and leaves the state
as it was.
"""

from __future__ import annotations

import dataclasses
from datetime import date

from gpu_advisor import locales
from gpu_advisor.bot.dialog import commands, job_answer, render
from gpu_advisor.bot.dialog.ack import ack_line, is_ack
from gpu_advisor.bot.dialog.answerers import ANSWERERS
from gpu_advisor.bot.dialog.current_cost import budget_fit_line, current_cost_line
from gpu_advisor.bot.dialog.honest import assumed_items
from gpu_advisor.bot.dialog.labels import label_slot
from gpu_advisor.bot.dialog.limits import clean
from gpu_advisor.bot.dialog.questions import EXPECTS, QUESTIONS, Question, defaults_said, next_question
from gpu_advisor.bot.dialog.reply import Content, Reply
from gpu_advisor.bot.dialog.script import in_traditional, script_after
from gpu_advisor.bot.dialog.slots import loose
from gpu_advisor.bot.dialog.spelling import as_written, heard, llm_spans
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.bot.dialog.words import fit_line
from gpu_advisor.engine.results import Plan
from gpu_advisor.reading.message import read_message
from gpu_advisor.text.normalize import has_hanzi


class Dialog(Tools):
    """One brain for every surface; holds the knowledge base, never any conversation."""

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
    def handle(self, state: ConversationState, text: str, today: date | None = None) -> Answer:
        """One message; ``today`` (the caller's date) lets "by Friday" become a deadline."""
        text, cut = clean(text)
        if not text:
            return self.say(state, "error", "dialog.empty"), state
        if text.startswith("/"):
            return _in_script(commands.run(self, state, text))  # /why to a Traditional writer: Traditional
        current = state.lang if state.turns or state.lang_locked else None
        msg = read_message(
            text, self.vocab, expecting=EXPECTS.get(state.pending or ""), current_lang=current, today=today
        )
        if msg.intent == "start_over":  # "重新开始", "start over": /new in words
            return commands.run(self, state, "/new")
        if state.answered and msg.intent == "order":  # "那就租这个": /order in words
            return commands.run(self, state, "/order")
        msg = dataclasses.replace(msg, cut=cut)
        if has_hanzi(text):
            state = state.model_copy(update={"hant": script_after(text, state.hant)})
        state = heard(state, text, llm_spans(msg.low, self.vocab, self.kb))  # a model named: said as written
        for answerer in ANSWERERS:
            answered = answerer(self, state, msg)
            if answered is not None:
                return _in_script(answered)
        raise AssertionError("the requirements answerer always answers")  # pragma: no cover

    def press(self, state: ConversationState, payload: str) -> Answer:
        """A quick-reply button: ``q:<question>:<choice index>`` or ``q:<question>:skip`` or a command."""
        if payload.startswith("/"):
            return _in_script(commands.run(self, state, payload))
        if payload.startswith("jq:"):  # a job question's button (``job_answer.press``)
            return _in_script(job_answer.press(self, state, payload) or (self._stale(state), state))
        parts = payload.split(":")
        question = QUESTIONS.get(parts[1]) if len(parts) == 3 and parts[0] == "q" else None
        if question is None or question.id != state.pending:
            return self._stale(state), state
        new = state.model_copy(deep=True)
        if parts[2] == "skip":
            new.skipped.append(question.id)
        elif parts[2].isdigit() and int(parts[2]) < len(question.choices):
            loose(new.slots).update(question.choices[int(parts[2])].slots)
        else:
            return self._stale(state), state
        new.turns += 1
        return _in_script(self.advance(new, []))  # a button's answer in the user's words as a typed one

    # --- steps --------------------------------------------------------------------
    def advance(self, state: ConversationState, notes: list[str]) -> Answer:
        state.job = None  # the language-model flow: the folds and follow-ups are its plan's now
        question = next_question(state)
        if question is not None:
            return self._ask(state, question, notes)
        state.pending = None
        return self.answer(state, notes)

    def _ask(self, state: ConversationState, q: Question, notes: list[str]) -> Answer:
        state.pending = q.id
        if q.id not in state.asked:
            state.asked.append(q.id)
        content = Content(lead=notes, title=locales.t(state.lang, f"question.{q.id}"))
        return self.reply(state, "question", content, self.buttons(state.lang, q)), state

    def answer(self, state: ConversationState, notes: list[str]) -> Answer:
        plan, error = self.plan_for(state)
        if plan is None:
            text = "\n".join([*notes, error or locales.t(state.lang, "dialog.error_generic")])
            return self.reply(state, "error", text), state
        state.answered = True
        # One line confirms the whole request before the card; the question's own echo gives way to it.
        ack = " · ".join(
            [
                ack_line(state.lang, self.named(loose(state.slots), state.lang), label_slot),
                *defaults_said(state.lang, state.slots),
                *assumed_items(state.lang, plan),
            ]
        )
        lead = [ack, *(n for n in notes if not is_ack(state.lang, n))]
        for said in (current_cost_line, budget_fit_line):  # what is paid now; a budget in US$/NT$
            if (line := said(self.kb, state.lang, loose(state.slots), plan)) is not None:
                lead.append(line)
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
        gpus = locales.t(state.lang, "followup.gpus", count=count, gpu=self.gpu_names(gpu, state.lang))
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

    def repeat_question(self, state: ConversationState, key: str, notes: list[str]) -> Reply:
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


def _led_by(reply: Reply, lead: list[str]) -> Reply:
    """``reply`` with ``lead`` (what the message was understood as, and what was not) first.

    A one-shot answer runs the message, then ``/plan``; the notes of the first turn (an
    unknown card or model said aloud, a cut message) must reach the user all the same.
    The answer's own confirmation line confirms the whole request, so the first turn's
    (what that message added) gives way to it: one "收到：" line, never two.
    """
    if reply.structured and any(is_ack(reply.lang, line) for line in reply.lead):
        lead = [line for line in lead if not is_ack(reply.lang, line)]
    if not lead or not reply.structured:
        return reply
    led = reply.model_copy(update={"lead": [*lead, *reply.lead]})
    led.text = led.as_text()
    return led


def _in_script(answered: Answer) -> Answer:
    """The reply in the user's words: each model named in the user's spelling (``spelling``, held
    on the conversation, so a later turn, a button or a command says it too), and a Chinese reply
    to someone writing Traditional characters in Traditional."""
    reply, state = answered
    reply = as_written(reply, state)
    if state.hant and state.lang == "zh":
        return in_traditional(reply), state
    return reply, state
