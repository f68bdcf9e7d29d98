"""Several cards named in one question are a comparison, not a conflict.

"L40S 和 A6000 哪个好", "5090 vs 4090 for 13B": both cards side by side — memory,
bandwidth, compute, price — and, when the question names a model (or the conversation
holds one), whether it fits each card and how fast it runs there. The slots the question
carried are kept, so "7×24，并发 10" next sizes a plan.

A comparison that asks the price ("差多少钱", "price difference") gets each machine as the
catalog rents it — the count written with the card ("8卡H100" is the 8-card machine, with
its price range when the catalog gives one) — a month at list price, and the difference.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.cards import compare_cards
from gpu_advisor.bot.dialog.money_lines import gpus_words
from gpu_advisor.bot.dialog.named_cards import caveat_lines
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.price_lookup import lookup
from gpu_advisor.engine.specs import Knowledge
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
    asks_money = "price" in msg.asked or "compare_money" in msg.heard  # "价差多少", "compare … prices"
    priced = price_lines(flow.kb, new.lang, msg.ext.gpu_mentions) if asks_money else []
    said = [
        line for gpu in msg.ext.gpus for line in caveat_lines(flow.kb, new.lang, gpu)
    ]  # China-market cards
    content = content.model_copy(
        update={"summary": [*content.summary, *priced, *said, locales.t(new.lang, "faq.offer")]}
    )
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return flow.reply(new, "card", content, [button]), new


Priced = tuple[str, float, float, str]  # words, low and high monthly price, currency


def price_lines(kb: Knowledge, lang: str, mentions: list[tuple[str, float | None]]) -> list[str]:
    """Each machine named, a month at the catalog's list price, then what separates the
    cheapest and the dearest; a card the catalog does not rent is said so, and a count it
    rents only inside a bigger machine ("1 张 H100": the 8-card box) names that machine."""
    lines: list[str] = []
    priced: list[Priced] = []
    for gpu, count in _once(mentions)[:3]:
        asked = gpus_words(lang, kb, gpu, int(count or 1))
        found = _monthly(kb, gpu, int(count or 1))
        if found is None:
            lines.append(locales.t(lang, "compare.price_none", gpus=asked))
            continue
        cards, low, high, currency = found
        rented = gpus_words(lang, kb, gpu, cards)
        price = _range(lang, low, high, currency)
        if rented == asked:
            lines.append(locales.t(lang, "compare.price_row", gpus=asked, price=price))
        else:
            lines.append(locales.t(lang, "compare.price_bigger", gpus=asked, rented=rented, price=price))
        priced.append((rented, low, high, currency))
    if len(priced) >= 2 and len({p[3] for p in priced}) == 1:
        cheap, dear = min(priced, key=lambda p: p[1]), max(priced, key=lambda p: p[1])
        gap = _range(lang, dear[1] - cheap[1], dear[2] - cheap[2], cheap[3])
        times = dear[1] / cheap[1] if cheap[1] else 0.0
        lines.append(locales.t(lang, "compare.price_gap", dear=dear[0], cheap=cheap[0], gap=gap, times=times))
    return lines


def _once(mentions: list[tuple[str, float | None]]) -> list[tuple[str, float | None]]:
    """Each card once, with the count written beside it anywhere ("T4 vs A100: how much more
    is the A100" names the A100 twice; "A100 … 8 张 A100" means the 8)."""
    counts: dict[str, float | None] = {}
    for gpu, count in mentions:
        counts[gpu] = counts.get(gpu) or count
    return list(counts.items())


def _monthly(kb: Knowledge, gpu: str, cards: int) -> tuple[int, float, float, str] | None:
    """The month of ``cards`` × ``gpu`` as the catalog rents it: the cards in the machines
    quoted, the list price, and its top when the offer quotes a range (¥80,000–120,000 for
    an 8×H100 machine); None when the catalog does not rent the card."""
    answer = lookup(kb, gpu, cards, HOURS_PER_MONTH)
    if not answer.in_catalog or not answer.lines:
        return None
    line = answer.lines[0]
    offer = next(o for o in kb.catalog.offers if o.id == line.offer)
    top = float(offer.price_month_max) * line.machines if offer.price_month_max else line.monthly
    return line.count * line.machines, line.monthly, max(top, line.monthly), line.currency


def _range(lang: str, low: float, high: float, currency: str) -> str:
    money = locales.money(lang, low, currency)
    if high > low:
        money = locales.t(lang, "compare.price_span", low=money, high=locales.money(lang, high, currency))
    return money
