"""Hourly or monthly for a few hours a day, from the catalog when no price is said (issue 44).

"我每天就用 3 小时左右，A100 按小时还是包月划算" names a card and a schedule and no price:
the catalog's month for that card (knowledge/catalog.yaml: a100-40g-1x ¥2,800) is set
against the schedule, 3 h × 30 d = 90 h, which is ¥2,800 ÷ 90 = ¥31.11 per hour used. The
catalog rents by the month, so there is no hourly price of its own to compare: an hourly
offer below ¥31.11 wins, and at an hourly price P the month wins past ¥2,800 ÷ P ÷ 30 hours
a day (said for the catalog's own hourly price when an offer has one). With a model named
the money comes first and the fit check follows, as for every stated-money answer.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.money_lines import gpu_name
from gpu_advisor.bot.dialog.money_stated import break_even_day_line
from gpu_advisor.bot.dialog.reply import Content
from gpu_advisor.engine.billing import ScheduleMonth, schedule_against_month, schedule_hours
from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.price_lookup import lookup
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.money_words import asks_hourly_or_monthly
from gpu_advisor.reading.quote import MoneyReading
from gpu_advisor.reading.use_words import Use

FEW_HOURS_A_DAY = 4.0  # as bot.dialog.money_stated.FEW_HOURS_A_DAY: "几个小时" is 4 hours a day


def schedule_money(
    kb: Knowledge, low: str, reading: MoneyReading, use: Use, lang: str, model: str | None = None
) -> Content | None:
    """The catalog's month against a daily schedule, or None when the message is not that
    (no card, a price of its own said, no schedule, or no hourly-vs-monthly question); a card
    the catalog does not rent gets the rule with the schedule's hours;
    ``model`` (a name) when the conversation holds one: the fit check is offered for it."""
    if reading.gpu is None or reading.prices or reading.purchase is not None:
        return None
    per_day = use.hours_per_day or (FEW_HOURS_A_DAY if use.few_hours_a_day else None)
    if per_day is None or not asks_hourly_or_monthly(low):
        return None
    count = reading.count or 1
    what = locales.t(lang, "followup.gpus", count=count, gpu=gpu_name(lang, kb, reading.gpu))
    a = lookup(kb, reading.gpu, count, HOURS_PER_MONTH)
    if not a.in_catalog or not a.lines:  # "4090 一天只用几个小时": the rule, with the user's prices
        return _not_listed(lang, what, per_day, use, model)
    line = a.lines[0]
    offer = next(o for o in kb.catalog.offers if o.id == line.offer)
    hourly = offer.price_hour * line.machines if offer.price_hour is not None else None
    try:
        s = schedule_against_month(line.monthly, per_day, hourly)
    except ValueError:
        return None  # more than 24 hours a day: the ordinary flow says what was not understood
    lines = _lines(lang, s, line.currency)
    lines = [*_few(lang, use), *lines, _then(lang, model)]
    title = locales.t(
        lang, "money.schedule.title", what=what, monthly=locales.money(lang, s.monthly, line.currency)
    )
    return Content(title=title, summary=lines)


def _not_listed(lang: str, what: str, per_day: float, use: Use, model: str | None) -> Content:
    """A card the catalog does not rent: the schedule's hours and the rule that decides, so the
    user's two prices settle it (a month M beats an hourly P past M ÷ P ÷ 30 hours a day)."""
    hours = schedule_hours(per_day)
    formula = locales.t(lang, "money.schedule.formula", per_day=locales.number(lang, per_day), hours=hours)
    title = locales.t(lang, "money.schedule.not_listed", what=what)
    return Content(title=title, summary=[*_few(lang, use), formula, _then(lang, model)])


def _few(lang: str, use: Use) -> list[str]:
    if use.few_hours_a_day and use.hours_per_day is None:
        return [locales.t(lang, "money.stated.few_hours", per_day=FEW_HOURS_A_DAY)]
    return []


def _then(lang: str, model: str | None) -> str:
    if model:
        return locales.t(lang, "money.schedule.then_fit_model", model=model)
    return locales.t(lang, "money.stated.then_fit")


def _lines(lang: str, s: ScheduleMonth, currency: str) -> list[str]:
    def m(amount: float) -> str:
        return locales.money(lang, amount, currency)

    out = [
        locales.t(
            lang,
            "money.schedule.per_used_hour",
            per_day=locales.number(lang, s.hours_per_day),
            hours=s.hours_month,
            monthly=m(s.monthly),
            per_hour=m(s.per_used_hour),
        )
    ]
    if s.hourly is None or s.hourly_total is None or s.break_even_hours_day is None:
        out.append(
            locales.t(lang, "money.schedule.no_hourly", per_hour=m(s.per_used_hour), monthly=m(s.monthly))
        )
        return out
    cheaper = "hourly" if s.hourly_total < s.monthly else "monthly"
    out.append(
        locales.t(
            lang,
            f"money.schedule.with_hourly_{cheaper}",
            hours=s.hours_month,
            hourly=m(s.hourly),
            total=m(s.hourly_total),
            monthly=m(s.monthly),
        )
    )
    out.append(break_even_day_line(lang, s.break_even_hours_day * 30))
    return out
