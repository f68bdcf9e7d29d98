"""Price lookups, answered from the catalog in one line each, with the arithmetic.

"一张 4090 包月多少", "4 卡 A100 一周多少钱", "how much for two L40S for 10 days",
"训练租两张 A100、推理放一张 3090，每月合计", "最便宜的切片多少钱": each card the question
names (with its count) is priced for the period it names (``reading.period``) by
``engine.price_lookup``; several lines get their sum. A card the catalog does not list is
said so, with the nearest offers. The card and count stay in the conversation, so the
next message can size a plan.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.cheapest import answer as cheapest_answer
from gpu_advisor.bot.dialog.machines_span import span_lines
from gpu_advisor.bot.dialog.money_year import month_by_month_line
from gpu_advisor.bot.dialog.named_cards import caveat_lines
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button, Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.stated_lines import addon_lines
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.price_lookup import (
    PriceAnswer,
    PriceLine,
    lookup,
    total_of,
    with_addons,
    yearly_discounts,
)
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.money_words import one_machine_asked, upgrades_asked
from gpu_advisor.reading.period import HOURS, Period, asks_month_and_year, read_period

_PER_UNIT = {"month": "month", "hour": "hour"}


def answer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The catalog price of what the question names, or None when it is not a price lookup."""
    if msg.intent in ("price", "small_talk") and (cheapest := cheapest_answer(flow, state, msg)):
        return cheapest  # "whats the cheapest thing you rent?" (read as small talk: reported to reading)
    if msg.intent != "price":  # decided once, in reading.intent
        return None
    if state.answered and msg.ext.gpus and "swap" in msg.heard:
        return None  # "换成 A100 多少钱" after a plan: the plan on that card, priced (a follow-up)
    if "speed" in msg.asked and "train_tokens" in msg.ext.slots:
        return None  # "8 张 A100 训 10B token，多久、多少钱": the verdict's time, priced there
    mentions = [(gpu, int(count or 1)) for gpu, count in msg.ext.gpu_mentions]
    if "slice" in msg.heard:
        mentions = []  # "A100 MIG 切片多少钱": the catalog's slice, not the whole card named beside it
    if not mentions and "slice" not in msg.heard:
        return _yearly_overview(flow, state, msg)
    duration = msg.ext.slots.get("duration_hours")
    period = read_period(msg.low, float(duration) if isinstance(duration, int | float) else None)
    both = asks_month_and_year(msg.low)
    if both:  # "月租多少？年繳呢": the month at list price, then a year at the yearly rate
        period = Period(HOURS["year"], True)
    per_minute = msg.job_slots.get("price_per") == "minute"  # "按分钟计费多少钱": a rate's unit
    whole = one_machine_asked(msg.low) and len(mentions) == 1  # "一台 8 卡 A100": one node of eight
    answers = [lookup(flow.kb, gpu, count, period.hours, period.yearly, whole) for gpu, count in mentions]
    if not answers:
        answers = [lookup(flow.kb, None, 1, period.hours, period.yearly)]
    new = remember(state, msg)
    for slot in ("duration_hours", "always_on"):  # the period priced is not the job's length
        if slot in msg.ext.slots:
            new.slots.pop(slot, None)
    lines = [line for a in answers for line in _lines(flow, new.lang, a, period)]
    if both:  # "包月跟包年各多少": the month at list price first, then the year
        month = Period(HOURS["month"], False)
        months = [lookup(flow.kb, gpu, count, month.hours, False, whole) for gpu, count in mentions]
        lines = [line for a in months for line in _lines(flow, new.lang, a, month)[:1]] + lines
    if per_minute:
        lines += [_per_minute(new.lang, a) for a in answers if a.in_catalog and a.lines]
    upgrades = upgrades_asked(msg.low)
    if upgrades and len(answers) == 1 and answers[0].in_catalog:  # "CPU 升到 16 核要加多少"
        lines += _upgrade_lines(flow, new.lang, answers[0], upgrades)
    total = total_of(answers) if len(answers) > 1 else None
    if total is not None:
        lines.append(locales.t(new.lang, "prices.total", total=locales.money(new.lang, *total)))
    content = Content(title=lines[0], summary=[*lines[1:], locales.t(new.lang, "prices.offer")])
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return flow.reply(new, "info", content, [button]), new


def _upgrade_lines(flow: Tools, lang: str, a: PriceAnswer, upgrades: list[str]) -> list[str]:
    """The catalog's CPU and memory upgrades added to the machine's month (``Catalog.addons``)."""
    priced = with_addons(flow.kb, a, upgrades)
    return addon_lines(lang, priced) if priced is not None else []


def _per_minute(lang: str, a: PriceAnswer) -> str:
    """What a minute costs: the hourly price (a monthly one spread over the engine's month) ÷ 60."""
    line = a.lines[0]
    hourly = line.unit_price * line.machines if line.unit == "hour" else line.monthly / HOURS_PER_MONTH
    return locales.t(lang, "heard.per_minute", amount=locales.money(lang, hourly / 60, line.currency))


def job_lines(flow: Tools, lang: str, gpu: str, count: int, hours: float) -> list[str]:
    """What ``count`` × ``gpu`` costs for a job of ``hours`` (a verdict's time, priced), and
    that a bigger machine is priced when the catalog has none of that size; no yearly hint."""
    a = lookup(flow.kb, gpu, count, hours, False)
    lines = _lines(flow, lang, a, Period(hours, False))
    return lines[:2] if a.in_catalog and a.lines[0].bigger else lines[:1]


def _lines(flow: Tools, lang: str, a: PriceAnswer, period: Period) -> list[str]:
    asked = _gpus(flow, lang, a.gpu, a.count) if a.gpu else locales.t(lang, "prices.slice")
    if not a.in_catalog:
        nearest = [_priced(flow, lang, line, period) for line in a.lines]
        key = "prices.not_listed" if nearest else "prices.not_listed_none"
        return [
            locales.t(
                lang, key, gpus=asked, nearest="；".join(nearest) if lang == "zh" else "; ".join(nearest)
            ),
            *caveat_lines(flow.kb, lang, a.gpu),  # a China-market card named: its caveat too
        ]
    line = a.lines[0]
    out = [_priced(flow, lang, line, period)]
    if line.bigger:
        out.append(locales.t(lang, "prices.bigger", asked=a.count, count=line.count))
    name = _card(flow, lang, line.gpu)  # several machines are not one server: said, and the biggest priced
    out += span_lines(flow.kb, lang, line, name, lambda several: _priced(flow, lang, several, period))
    out += caveat_lines(flow.kb, lang, a.gpu)
    if period.yearly and (beside := month_by_month_line(lang, a)):
        out.append(beside)  # "包年多少": the yearly figure, then month by month and the saving
    if a.yearly_saving_month and not period.yearly:
        out.append(
            locales.t(
                lang,
                "prices.yearly_hint",
                saving=locales.money(lang, a.yearly_saving_month, line.currency),
                percent=round(a.yearly_discount * 100),
            )
        )
    return out


def _priced(flow: Tools, lang: str, line: PriceLine, period: Period) -> str:
    """ "2 台 × 2 卡 A100 40GB，一周：¥5,600/月 × 1 月 × 2 台 = ¥11,200（按月计费）"."""
    what = _machine(flow, lang, line)
    unit = locales.t(lang, f"prices.unit.{_PER_UNIT.get(line.unit, 'month')}")
    values = {
        "what": what,
        "period": _period(lang, period),
        "unit_price": locales.money(lang, line.unit_price, line.currency),
        "unit": unit,
        "billed": locales.number(lang, line.billed_units),
        "machines": line.machines,
        "total": locales.money(lang, line.total, line.currency),
    }
    key = "prices.line_one" if line.machines == 1 else "prices.line_many"
    text = locales.t(lang, key, **values)
    if (
        line.unit == "month"
        and not period.yearly
        and period.hours < line.billed_units * HOURS["month"] - 1e-6
    ):
        text += locales.t(lang, "prices.whole_months")
    if line.discount:
        off = _zhe(line.discount) if lang == "zh" else f"{round(line.discount * 100)}% off"
        text += locales.t(lang, "prices.discount", off=off)
    return text


def _zhe(discount: float) -> str:
    """A discount in Chinese 折: 20 % off is 8 折, 15 % off is 85 折."""
    kept = 100 - round(discount * 100)
    return f"{kept // 10 if kept % 10 == 0 else kept} 折"


def _yearly_overview(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """ "年付比月付省多少" with no card named and no plan yet: every yearly discount in the catalog."""
    if state.answered or not read_period(msg.low).yearly:
        return None
    new = remember(state, msg)
    rows = yearly_discounts(flow.kb)
    if not rows:
        return flow.say(new, "info", "prices.no_yearly"), new
    lines = [
        locales.t(
            new.lang,
            "prices.yearly_row",
            what=_machine(flow, new.lang, row),
            monthly=locales.money(new.lang, row.monthly, row.currency),
            yearly=locales.money(new.lang, row.unit_price, row.currency),
            saving=locales.money(new.lang, row.monthly - row.unit_price, row.currency),
            percent=round(row.discount * 100),
        )
        for row in rows
    ]
    title = locales.t(new.lang, "prices.yearly_title")
    return flow.reply(
        new, "info", Content(title=title, summary=[*lines, locales.t(new.lang, "prices.offer")])
    ), new


def _machine(flow: Tools, lang: str, line: PriceLine) -> str:
    gpu = _card(flow, lang, line.gpu)
    if line.mig_profile:
        return locales.t(
            lang, "prices.slice_of", gpu=gpu, profile=line.mig_profile, memory=line.slice_memory_gib
        )
    return _gpus(flow, lang, line.gpu, line.count)


def _gpus(flow: Tools, lang: str, gpu: str | None, count: int) -> str:
    return locales.t(lang, "followup.gpus", count=count, gpu=_card(flow, lang, gpu))


def _card(flow: Tools, lang: str, gpu: str | None) -> str:
    """The card as the plan and the comparison name it ("RTX 3090", "RTX 4090 48GB（魔改）")."""
    return str(flow.gpu_names(gpu, lang))


def _period(lang: str, period: Period) -> str:
    if period.yearly:
        return locales.t(lang, "prices.period.yearly")
    for unit in ("year", "month", "week", "day", "hour"):
        count = period.hours / HOURS[unit]
        if count >= 1 and abs(count - round(count)) < 1e-9:
            return locales.t(lang, f"prices.period.{unit}", count=round(count))
    return locales.t(lang, "prices.period.hour", count=round(period.hours, 1))
