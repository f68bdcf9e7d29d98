"""What every dialog step needs from the dialog, and nothing else: the knowledge, the
vocabulary, the plan cache, and how a reply is built.

The answerers (``answerers.py``), the commands and the follow-ups used to import the
``Dialog`` hub itself, which imported them back (a seven-module circle). They now take a
``Tools``, declared here below every step, whose conversation steps (ask the next
question, answer, press a button) ``core.Dialog`` provides: the steps import this module,
never the core.
"""

from __future__ import annotations

import logging
from typing import Any

from gpu_advisor import locales
from gpu_advisor.bot.dialog.plancache import PlanCache, View
from gpu_advisor.bot.dialog.questions import Question, missing
from gpu_advisor.bot.dialog.reply import Button, Content, Reply, ReplyKind
from gpu_advisor.bot.dialog.slots import loose
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.vocab import vocabulary
from gpu_advisor.bot.dialog.workload import to_workload, workload_fields
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.locales.names import card_name
from gpu_advisor.reading.requirements import Vocabulary

log = logging.getLogger(__name__)

PLAN_CACHE = 512
Answer = tuple[Reply, ConversationState]


class Tools:
    """The knowledge base, its vocabulary, the plan cache, and reply building; no conversation."""

    def __init__(self, kb: Knowledge, vocab: Vocabulary | None = None) -> None:
        self.kb = kb
        self.vocab = vocab or vocabulary(kb)
        self.plans = PlanCache(PLAN_CACHE)

    def reload(self, kb: Knowledge) -> None:
        """Swap in a new knowledge base (a reloaded price catalog); conversations are untouched."""
        self.kb = kb
        self.vocab = vocabulary(kb)
        self.plans.clear()

    def view(self, state: ConversationState, plan: Plan, render_view: View[Content]) -> Content:
        """A plan's reply parts in the conversation's language, rendered once per cached plan."""
        return self.plans.view(plan, state.lang, render_view)

    def plan_for(self, state: ConversationState) -> tuple[Plan | None, str | None]:
        """The plan for the current slots, or a localized reason why there is none."""
        try:
            workload = to_workload(loose(state.slots), state.gpu_owned)
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

    def named(self, slots: dict[str, Any], lang: str) -> dict[str, Any]:
        """The slots with a model id replaced by the model's name, for people to read; a card
        as the card names it ("显卡 RTX 4090 48GB（魔改）")."""
        model = self.kb.models.get(str(slots.get("model")))
        named = {**slots, "model": model.name} if model is not None else dict(slots)
        for key in ("gpu", "exclude_gpus"):
            if key in named:
                named[key] = self.gpu_names(named[key], lang)
        return named

    def gpu_names(self, ids: Any, lang: str) -> Any:
        """Card ids ("rtx3090", or a list of them) as a reply names them ("RTX 3090").

        The same short name the card, the findings and the charts use (``locales.names``):
        "1 张 RTX 3090" on the card and "1 张 NVIDIA GeForce RTX 3090" in the price answer
        were two names for one card in one conversation (issue 47); a rebuilt board with its
        qualifier in ``lang`` ("RTX 4090 48GB（魔改）"), never the catalogue's "(rebuilt)".
        """
        if isinstance(ids, list):
            return [self.gpu_names(i, lang) for i in ids]
        spec = self.kb.gpus.get(str(ids))
        if spec is None:
            return ids
        return card_name(lang, spec.name)

    # --- the conversation steps, which the dialog core (``core.Dialog``) provides ------------
    def advance(self, state: ConversationState, notes: list[str]) -> Answer:
        """Ask the next question, or answer."""
        raise NotImplementedError

    def answer(self, state: ConversationState, notes: list[str]) -> Answer:
        """Answer with a plan for the slots held."""
        raise NotImplementedError

    def press(self, state: ConversationState, payload: str) -> Answer:
        """A quick-reply button."""
        raise NotImplementedError

    def repeat_question(self, state: ConversationState, key: str, notes: list[str]) -> Reply:
        """The pending question again, after a note saying why."""
        raise NotImplementedError

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
            requirements=workload_fields(loose(state.slots)),
            missing=missing(state),
            assumed=[f.id for f in plan.assumptions] if plan else [],
            plan=plan,
            chart="all" if plan is not None and plan.recommendation is not None else None,
        )
