"""A stated month's budget cut by a share: the new budget and what the catalog rents within it (issue 44).

"每月 6 万的方案太贵，砍 25%" → ¥60,000 × 75% = ¥45,000 a month, then the catalog's biggest
machines within ¥45,000 (``engine.budget.cut``). The cut is never a budget of "25" and the
base is never said back as an unused figure. None when the message states no month's money
or asks no cut (``reading.budget_cut``); a bare "再压一压" stays with the plan's follow-ups.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.reply import Content
from gpu_advisor.engine.budget import BudgetCut, cut
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.budget_cut import kept_share
from gpu_advisor.reading.rate_words import month_budget


def cut_money(kb: Knowledge, low: str, lang: str) -> Content | None:
    """The cut budget and the catalog within it, or None when no base and share are said."""
    kept = kept_share(low)
    base = month_budget(low) if kept is not None else None
    if kept is None or base is None:
        return None
    try:
        c = cut(base, kept, kb)
    except ValueError:
        return None
    return Content(title=_title(lang, c), summary=within_lines(lang, c, kb))


def _title(lang: str, c: BudgetCut) -> str:
    return locales.t(
        lang,
        "money.cut.title",
        budget=c.budget.amount,
        base=c.base.amount,
        kept=c.kept,
        currency=c.base.currency,
    )


def within_lines(lang: str, c: BudgetCut, kb: Knowledge) -> list[str]:
    """The machines within ``c.budget``, the rates' date when converted, and the ask for the job."""
    cur = c.base.currency
    if not c.within:
        return [locales.t(lang, "money.cut.none", budget=c.budget.amount, currency=cur)]
    lines = [locales.t(lang, "money.cut.within", budget=c.budget.amount, currency=cur)]
    for m in c.within:
        key = "money.cut.machine" if m.own.currency == cur else "money.cut.machine_fx"
        lines.append(
            locales.t(
                lang,
                key,
                count=m.count,
                gpu=kb.gpus[m.gpu].name,
                memory=m.memory_gib,
                month=m.month.amount,
                currency=cur,
                own=m.own.amount,
                own_currency=m.own.currency,
            )
        )
    if c.fx_date is not None:
        lines.append(locales.t(lang, "money.cut.fx", date=c.fx_date.isoformat()))
    lines.append(locales.t(lang, "money.cut.then_pick"))
    return lines
