"""Slash commands, the same names on every surface.

/start /help /new /plan /why [all] /cost /alt /whatif /order /cmd (/命令)
/compare A B [for …] /gpu NAME /lang zh|en
"""

from __future__ import annotations

from collections.abc import Callable

from gpu_advisor import locales
from gpu_advisor.bot.dialog import cards, job_answer, launch_view, money, render, sheet_render
from gpu_advisor.bot.dialog.plancache import View
from gpu_advisor.bot.dialog.questions import QUESTIONS
from gpu_advisor.bot.dialog.reply import Content, Reply
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Tools
from gpu_advisor.reading.sheet import analyze as analyze_sheet
from gpu_advisor.text.normalize import language_of

Result = tuple[Reply, ConversationState]
COMMANDS = (
    "start",
    "help",
    "new",
    "plan",
    "why",
    "cost",
    "alt",
    "whatif",
    "order",
    "cmd",
    "compare",
    "gpu",
    "analyze",
    "quote",
    "lang",
)


def run(dialog: Tools, state: ConversationState, text: str) -> Result:
    parts = text[1:].split(maxsplit=1)
    name, arg = (parts[0] if parts else ""), (parts[1] if len(parts) > 1 else "")
    name = name.split("@", 1)[0].lower()  # "/plan@GpuAdvisorBot" in groups
    handler = HANDLERS.get(name)
    if handler is None:
        return dialog.say(state, "error", "dialog.unknown_command", command=name[:32]), state
    if (job := job_answer.command(dialog, state, "cmd" if name == "命令" else name)) is not None:
        return job  # the conversation is about an image, video, speech… job: its folds
    return handler(dialog, state, arg.strip())


def start(dialog: Tools, state: ConversationState, arg: str) -> Result:
    welcome = locales.t(state.lang, "dialog.welcome")
    if state.answered:
        return dialog.say(state, "help", "dialog.welcome_back"), state
    reply, new = dialog.advance(state.model_copy(deep=True), [welcome])
    return reply, new


def help_(dialog: Tools, state: ConversationState, arg: str) -> Result:
    return dialog.say(state, "help", "dialog.help"), state


def new(dialog: Tools, state: ConversationState, arg: str) -> Result:
    fresh = state.reset()
    return dialog.advance(fresh, [locales.t(fresh.lang, "dialog.reset")])


def plan(dialog: Tools, state: ConversationState, arg: str) -> Result:
    """Answer now with assumptions, if the two required facts are known."""
    for qid in ("task", "model"):
        if not any(state.slots.get(f) is not None for f in QUESTIONS[qid].fills):
            return dialog.advance(state.model_copy(deep=True), [locales.t(state.lang, "dialog.need_more")])
    new_state = state.model_copy(deep=True)
    new_state.pending = None
    return dialog.answer(new_state, [])


def _with_plan(dialog: Tools, state: ConversationState, show: View[Content]) -> Result:
    if not state.answered:
        return dialog.say(state, "info", "dialog.no_plan_yet"), state
    p, error = dialog.plan_for(state)
    if p is None:
        return dialog.reply(state, "error", error or ""), state
    reply = dialog.reply(state, "answer", dialog.view(state, p, show), plan=p)
    return reply, state


def why(dialog: Tools, state: ConversationState, arg: str) -> Result:
    """/why: one screen of the numbers; /why all: every step."""
    return _with_plan(dialog, state, render.why_all if arg.lower() == "all" else render.why)


def cost(dialog: Tools, state: ConversationState, arg: str) -> Result:
    return _with_plan(dialog, state, render.costs)


def alt(dialog: Tools, state: ConversationState, arg: str) -> Result:
    """/alt: the other options side by side, and the what-ifs that change the pick or its price."""
    return _with_plan(dialog, state, render.alternatives)


def whatif(dialog: Tools, state: ConversationState, arg: str) -> Result:
    return _with_plan(dialog, state, render.what_ifs)


def order(dialog: Tools, state: ConversationState, arg: str) -> Result:
    """/order: the offer's order link, for surfaces whose buttons cannot open a link."""
    return _with_plan(dialog, state, render.order)


def cmd(dialog: Tools, state: ConversationState, arg: str) -> Result:
    """/cmd: the commands and config files that run the plan's pick."""
    return _with_plan(dialog, state, launch_view.commands)


def gpu(dialog: Tools, state: ConversationState, arg: str) -> Result:
    card = cards.find_gpu(dialog, arg)
    if card is None:
        return dialog.say(state, "error", "dialog.unknown_gpu", name=arg[:40] or "?"), state
    return dialog.reply(state, "card", cards.spec_card(dialog.kb, state.lang, card)), state


def compare(dialog: Tools, state: ConversationState, arg: str) -> Result:
    return dialog.reply(state, "card", cards.compare(dialog, state, arg)), state


def analyze(dialog: Tools, state: ConversationState, arg: str) -> Result:
    """/analyze followed by a pasted configuration sheet: training or inference machine?"""
    if not arg.strip():
        return dialog.say(state, "info", "dialog.analyze_usage"), state
    lang = state.lang if state.lang_locked else language_of(arg)
    result = analyze_sheet(arg, dialog.kb)
    shown = state.model_copy(update={"lang": lang})
    return dialog.reply(shown, "card", sheet_render.analysis_card(lang, result)), state


def lang(dialog: Tools, state: ConversationState, arg: str) -> Result:
    choice = arg.lower().strip()
    if choice not in ("zh", "en"):
        return dialog.say(state, "error", "dialog.lang_usage"), state
    new_state = state.model_copy(update={"lang": choice, "lang_locked": True})
    return dialog.say(new_state, "info", "dialog.lang_set"), new_state


HANDLERS: dict[str, Callable[[Tools, ConversationState, str], Result]] = {
    "start": start,
    "help": help_,
    "new": new,
    "plan": plan,
    "why": why,
    "cost": cost,
    "alt": alt,
    "whatif": whatif,
    "order": order,
    "cmd": cmd,
    "命令": cmd,
    "compare": compare,
    "gpu": gpu,
    "analyze": analyze,
    "quote": money.quote_cmd,
    "lang": lang,
}
