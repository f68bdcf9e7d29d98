"""Money questions in chat: a pasted quote, hourly vs monthly, buy vs rent vs a hosted API.

Pure functions the dialog router calls, each returning a reply's parts (``Content``) or
None to pass the message on:

- :func:`quote_answer` — the text holds a vendor quote (a card and a price with its
  period: "8×A800 80G ¥58,000/月 年付85折"); the answer is ``engine.quote.judge`` for the
  conversation's workload, in one screen.
- :func:`ownership_answer` — the text asks buy or rent ("买卡还是租卡", "buy or rent",
  "自建还是调 API") or gives ownership prices (电费, 托管, a purchase price); the answer is
  ``engine.ownership.ownership`` with each month's arithmetic.
- :func:`quote_command` — ``/quote <text>``: the quote answer, or how to use it.

Wired into the dialog as they stand: :func:`quote_answerer` and :func:`ownership_answerer`
have the answerers' shape (``bot.dialog.answerers.Answerer``) and :func:`quote_cmd` a
command handler's (``bot.dialog.commands``); each keeps the message's slots in the
conversation (``remember``) but not a "budget" that was the quote's price or the power price.

``slots`` are the conversation's workload slots (``ConversationState.slots``) merged with
this message's reading. A quote's price is not a budget, so ``budget`` is dropped from
them when the text holds a quote. Without a model in the slots the answer asks for one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from gpu_advisor import locales
from gpu_advisor.bot.dialog.money_afford import afford_answerer
from gpu_advisor.bot.dialog.money_budget import budget_cut_answerer
from gpu_advisor.bot.dialog.money_buy_ask import rent_side_money
from gpu_advisor.bot.dialog.money_cut import cut_money
from gpu_advisor.bot.dialog.money_lines import ownership_lines, ownership_title, quote_lines, quote_title
from gpu_advisor.bot.dialog.money_rate import rate_money
from gpu_advisor.bot.dialog.money_schedule import schedule_money
from gpu_advisor.bot.dialog.money_speech import speech_api_money
from gpu_advisor.bot.dialog.money_stated import (
    FEW_HOURS_A_DAY,
    api_money,
    billing_choice,
    break_even_day_line,
    buy_rent_money,
    card_price_said,
    hours_said,
    quote_money,
)
from gpu_advisor.bot.dialog.money_year import year_line
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button, Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.bot.dialog.workload import to_workload
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.ownership import Ownership, ownership
from gpu_advisor.engine.quote import QuoteVerdict, judge
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.reference import PriceReference
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge.prices import reference
from gpu_advisor.reading.dialog_words import BUDGET as _BUDGET
from gpu_advisor.reading.intent import intent_of
from gpu_advisor.reading.message import Message, read_message
from gpu_advisor.reading.money_words import OFFER_WEIGHED, providers_named
from gpu_advisor.reading.period import HOURS, read_period
from gpu_advisor.reading.quote import MoneyReading, read, read_normalized
from gpu_advisor.reading.rate_words import month_budget
from gpu_advisor.reading.use_words import Use, mentions_api, read_use
from gpu_advisor.text.normalize import normalize

_Answer = Callable[[Knowledge, str, str, Mapping[str, Any], MoneyReading | None], Content | None]


def quote_answer(
    kb: Knowledge, low: str, lang: str, slots: Mapping[str, Any], reading: MoneyReading | None = None
) -> Content | None:
    """The judged quote, or None when the normalised text ``low`` holds no quote (or is a budget).

    ``reading`` is the message's money reading when the caller has it (``Message.money``)."""
    if _BUDGET.search(low):
        return None
    reading = reading or read_normalized(low, kb)
    if reading.purchase is not None:
        return None  # a purchase price beside a rent is buy vs rent (``ownership_answer``)
    use = read_use(low)
    if use.tokens_per_day or use.input_per_day:
        return None  # a token volume beside a rent is rent vs API (``ownership_answer``)
    if reading.quote() is None:  # two ways of paying and no card: the billing alone
        return quote_money(kb, reading, use, lang) if billing_choice(reading) else None
    return _judged(kb, reading, lang, slots, use)


def quote_command(kb: Knowledge, args: str, lang: str, slots: Mapping[str, Any]) -> Content:
    """``/quote <text>``: the judged quote, or how to paste one."""
    reading = read(args, kb)
    use = read_use(normalize(args))
    answer = _judged(kb, reading, lang, slots, use) if reading.quote() is not None else None
    return answer or Content(summary=[locales.t(lang, "money.quote.help")])


def ownership_answer(
    kb: Knowledge,
    low: str,
    lang: str,
    slots: Mapping[str, Any],
    reading: MoneyReading | None = None,
    ref: PriceReference | None = None,
) -> Content | None:
    """Buy vs rent vs API for the conversation's workload, or None when the normalised text
    ``low`` does not ask it."""
    reading = reading or read_normalized(low, kb)
    use = read_use(low)
    # money said outright comes first: a cut of a stated budget, a rate for the hours said
    rated = cut_money(kb, low, lang) or rate_money(low, reading, use, lang)
    if rated is not None:  # a rate per second/minute/hour for the hours said: the money alone
        return rated
    if (card := card_price_said(kb, reading, low)) is not None:  # "4090 五万台币 值不值": a purchase
        reading = replace(reading, purchase=card)
    volume = bool(use.tokens_per_day or use.input_per_day) and mentions_api(low)
    if not (_asks_ownership(low) or reading.about_ownership or volume):
        return None
    w = _workload(slots, reading, quote=False)
    if volume:  # a daily volume: priced against the APIs, against the rent said or the plan's pick
        named = providers_named(low)
        stated = api_money(kb, reading, use, lang, _pick_rent(kb, w), named, model_known=w is not None)
        if stated is not None:
            return stated
    if w is None:  # no model: buy vs rent from the stated price, else the model question
        said = buy_rent_money(kb, reading, use, lang) or rent_side_money(kb, reading, use, lang)
        return said or Content(summary=[locales.t(lang, "money.own.need_model")])
    try:
        result = compare(kb, w, reading, ref)
    except EngineError:
        return None  # an unknown card or model: the ordinary flow says what was not understood
    return Content(title=ownership_title(lang, result, kb), summary=ownership_lines(lang, result, kb))


def _pick_rent(kb: Knowledge, w: Workload | None) -> Money | None:
    """The month of the catalog's pick for a service of ``w`` (running 24×7), when a model is known."""
    if w is None:
        return None
    try:
        pick = recommend(w.model_copy(update={"always_on": True}), kb).recommendation
    except (EngineError, ValueError):
        return None
    return (
        None if pick is None else Money(amount=pick.monthly_cost.amount, currency=pick.monthly_cost.currency)
    )


def _asks_ownership(low: str) -> bool:
    """Buy vs rent, or renting vs a hosted API: the message's one intent (``reading.intent``)."""
    return intent_of(low) in ("buy_vs_rent", "rent_vs_api")


def compare(
    kb: Knowledge, w: Workload, reading: MoneyReading, ref: PriceReference | None = None
) -> Ownership:
    """The ownership comparison itself (the chart draws it: ``bot.charts.ownership``)."""
    return ownership(w, reading.ownership_ask(), kb, ref or reference())


def judged(kb: Knowledge, w: Workload, reading: MoneyReading, use: Use | None = None) -> QuoteVerdict:
    """The quote verdict itself, for surfaces that show the JSON (``reading.quote()`` must exist).

    The hours priced are the ones said (``reading.use_words``): a daily schedule is a month
    of use, a job's hours its total; else the workload's own."""
    q = reading.quote()
    assert q is not None
    said = hours_said(use, reading) if use is not None else None
    if said is None:
        return judge(q, w, kb, reading.hours_per_month, reading.currency)
    hours, period, _ = said
    return judge(q, w, kb, hours, reading.currency, schedule=period == "month")


def _judged(
    kb: Knowledge, reading: MoneyReading, lang: str, slots: Mapping[str, Any], use: Use
) -> Content | None:
    w = _workload(slots, reading, quote=True)
    if w is None:  # no model: the money first (billing for the hours said), then the fit question
        said = quote_money(kb, reading, use, lang)
        return said or Content(summary=[locales.t(lang, "money.quote.need_model")])
    try:
        v = judged(kb, w, reading, use)
    except EngineError:
        return None
    model = kb.models[w.model].name if w.model in kb.models else (w.model or "")
    lines = quote_lines(lang, v, kb)
    schedule = hours_said(use, reading)
    even = v.billing.break_even_hours_month
    if (
        schedule is not None and schedule[2] is not None and even is not None
    ):  # a daily schedule: the hours a day
        lines.append(break_even_day_line(lang, even))
    if use.few_hours_a_day and use.hours_per_day is None:  # "每天跑几个小时": the schedule priced, said
        lines.insert(0, locales.t(lang, "money.stated.few_hours", per_day=FEW_HOURS_A_DAY))
    return Content(title=quote_title(lang, v, kb, model), summary=lines)


def _workload(slots: Mapping[str, Any], reading: MoneyReading, quote: bool) -> Workload | None:
    """The conversation's workload; a quote's card replaces any card the slots hold."""
    fields = dict(slots)
    if not any(k in fields for k in ("model", "params_b", "hf_config")):
        return None
    fields.setdefault("task", "infer")
    if quote:
        fields.pop("budget", None)
        fields.pop("gpu", None)
        fields.pop("gpu_count", None)
    elif reading.gpu is not None:
        fields["gpu"], fields["gpu_count"] = reading.gpu, reading.count or fields.get("gpu_count")
    try:
        return to_workload(fields)
    except ValueError:
        return None


def quote_answerer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The answerer: a pasted quote judged for the conversation's workload (before ``price_lookup``)."""
    return _answer(flow, state, msg, quote_answer)


def ownership_answerer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The answerer: buy vs rent vs API, or an electricity/hosting/purchase price given for it;
    a cut of a plan's money ("预算再压一压", ``money_budget``) comes first, then a hosted speech
    API's per-minute price against renting for the same audio."""
    return (
        budget_cut_answerer(flow, state, msg)
        or afford_answerer(flow, state, msg)
        or _speech_api(flow, state, msg)
        or _job_quote(flow, state, msg)
        or _offer_weighed(flow, state, msg)
        or _schedule(flow, state, msg)
        or _quoted_year(flow, state, msg)
        or _answer(flow, state, msg, ownership_answer)
    )


def _quoted_year(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """A card's own monthly price asked for a year ("A800 八卡整机 5 万一个月，年付 85 折，一年多少钱"):
    the quote's billing, then the year itself at the yearly rate and month by month
    (¥42,500 × 12 = ¥510,000 against ¥50,000 × 12 = ¥600,000), never the catalog's nearest card."""
    if msg.intent == "quote" or _BUDGET.search(msg.low):  # a budget word: a budget, not a quote
        return None
    reading = msg.money(flow.kb)
    q = reading.quote()
    if q is None or reading.purchase is not None or q.monthly() is None:
        return None
    if not (period := read_period(msg.low)).yearly or period.hours < HOURS["year"] - 1e-6:
        return None

    def answer(
        kb: Knowledge, low: str, lang: str, slots: Mapping[str, Any], reading: MoneyReading | None
    ) -> Content | None:
        content = quote_answer(kb, low, lang, slots, reading)
        year = year_line(lang, q)
        if content is None or year is None:
            return content
        return content.model_copy(update={"summary": [year, *content.summary]})

    return _answer(flow, state, msg, answer)


def _schedule(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """A card, a daily schedule and "按小时还是包月" with no price said ("我每天就用 3 小时左右，
    A100 按小时还是包月划算"): the catalog's month against the schedule (``money_schedule``),
    model or no model, instead of "train or serve?" (the intent reader may call it a quote)."""

    def answer(
        kb: Knowledge, low: str, lang: str, slots: Mapping[str, Any], reading: MoneyReading | None
    ) -> Content | None:
        model = slots.get("model")
        name = kb.models[model].name if isinstance(model, str) and model in kb.models else None
        return schedule_money(kb, low, reading or read_normalized(low, kb), read_use(low), lang, name)

    return _answer(flow, state, msg, answer)


def _offer_weighed(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """A card's offered rent weighed ("有个供应商给我报 3090 整卡 2500一个月，贵不贵", "a supplier
    quoted 1,200 a month for a T4, is that expensive?") where the intent reader did not call it
    a quote: the same judged quote, set against the catalog's price for that card, never a
    budget followed by "train or serve?"."""
    if msg.intent == "quote" or OFFER_WEIGHED.search(msg.low) is None:
        return None
    reading = msg.money(flow.kb)
    if reading.gpu is None or reading.purchase is not None or reading.quote() is None:
        return None
    return _answer(flow, state, msg, quote_answer)


def _job_quote(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """A card's price with the hours for a named non-LLM job ("报价 4090 每小时 2.5 元，跑 SDXL 出图
    300 小时，多少钱"), two ways of paying with the hours ("A100 每小时 8 元，包月 4000，每天 6
    小时，怎么租"), or an hourly price with a daily schedule, asked rather than pasted as a
    quote: the quote's money first."""
    if msg.intent == "quote" or "audio_hours" in msg.job_slots:  # audio hours are the work, not the rent's
        return None
    reading = msg.money(flow.kb)
    named_job = msg.job != "none" and not msg.job.startswith("llm")
    # "每小时 8 元，包月 4000": which is cheaper; "每月 2000 块 … 每小时 2.5" is a budget (``money_rate``)
    two_ways = len({p.per for p in reading.prices}) >= 2 and month_budget(msg.low, vendor=False) is None
    said = hours_said(read_use(msg.low), reading)
    # "A100 按量每小时 6.5 元，我每天开 5 个小时，一个月多少钱": a card's own hourly price and a daily
    # schedule are the month's bill (5 × 30 × 6.5), never the catalog's month for that card
    hourly = any(p.per in ("hour", "card_hour") for p in reading.prices)
    no_budget = month_budget(msg.low, vendor=False) is None  # "每月 2000 块 … 够吗" is a budget (money_rate)
    schedule = said is not None and said[2] is not None and hourly and no_budget
    if not (named_job or two_ways or schedule) or reading.quote() is None:
        return None
    if said is None:
        return None
    return _answer(flow, state, msg, quote_answer)


def _speech_api(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    new = remember(state, msg)
    content = speech_api_money(flow.kb, msg, new.lang)
    if content is None:
        return None
    return flow.reply(new, "answer", content, [_plan_button(new.lang)]), new


def quote_cmd(flow: Tools, state: ConversationState, arg: str) -> Answer:
    """``/quote <pasted quote>`` as a command handler; the workload said in the same message
    ("跑 Qwen2.5-72B 推理，30 人同时用") is read like any message's and kept."""
    new = remember(state, read_message(arg, flow.vocab)) if arg.strip() else state
    new.slots.pop("budget", None)  # the quote's price is not a budget
    if "budget" in state.slots:
        new.slots["budget"] = state.slots["budget"]
    content = quote_command(flow.kb, arg, new.lang, new.slots)
    return flow.reply(new, "answer", content, [_plan_button(new.lang)]), new


def _answer(flow: Tools, state: ConversationState, msg: Message, answer: _Answer) -> Answer | None:
    new = remember(state, msg)
    if "budget" in msg.slots:  # the quote's price or the power price, never a budget
        new.slots.pop("budget", None)
        if "budget" in state.slots:
            new.slots["budget"] = state.slots["budget"]
    content = answer(flow.kb, msg.low, new.lang, new.slots, msg.money(flow.kb))
    if content is None:
        return None
    content = _name_job(content, new.lang, msg.job)
    return flow.reply(new, "answer", content, [_plan_button(new.lang)]), new


def _name_job(content: Content, lang: str, job: str) -> Content:
    """A named non-LLM job (SDXL, Whisper, YOLO …) is said back instead of asking for a model:
    the money was answered without one, and the job's own sizing needs its amounts, not an LLM."""
    if job == "none" or job.startswith("llm") or not locales.has(lang, f"heard.job.{job}"):
        return content
    ask = {locales.t(lang, "money.stated.then_fit"), locales.t(lang, "money.quote.need_model")}
    named = locales.t(lang, "money.stated.job_named", job=locales.t(lang, f"heard.job.{job}"))
    summary = [named if line in ask else line for line in content.summary]
    return content.model_copy(update={"summary": summary}) if summary != content.summary else content


def _plan_button(lang: str) -> Button:
    return Button(label=locales.t(lang, "verdict.button"), payload="/plan")
