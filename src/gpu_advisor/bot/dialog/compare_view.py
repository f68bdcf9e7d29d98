"""Several cards named in one question are a comparison, not a conflict.

"L40S 和 A6000 哪个好", "5090 vs 4090 for 13B": both cards side by side — memory,
bandwidth, compute, price — and, when the question names a model (or the conversation
holds one), whether it fits each card and how fast it runs there. The slots the question
carried are kept, so "7×24，并发 10" next sizes a plan.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.cards import compare_cards
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.reading.message import Message

MODEL_SLOTS = ("model", "params_b", "hf_config")


def comparison_answer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The side-by-side card for a question naming two or more cards, or None."""
    if msg.intent != "compare" or len(msg.ext.gpus) < 2:  # decided once, in reading.intent
        return None
    new = remember(state, msg)
    new.slots.pop("gpu", None)  # the question compares cards; it does not pick one for the plan
    new.slots.pop("gpu_count", None)
    slots = {k: v for k, v in new.slots.items() if k not in ("gpu", "gpu_count")}
    has_model = any(k in slots for k in MODEL_SLOTS)
    content = compare_cards(flow, new.lang, msg.ext.gpus, slots if has_model else {})
    content = content.model_copy(update={"summary": [*content.summary, locales.t(new.lang, "faq.offer")]})
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return flow.reply(new, "card", content, [button]), new
