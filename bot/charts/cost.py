"""Cost panel: a month of 24×7 rental for the pick and each alternative.

Bars are ``Option.monthly_cost`` (all machines of the option), the pick in blue and
the rest in grey, each labelled with the amount in the user's locale
(``locales.money``). Where the catalog quotes a range, a thin line runs on to
``amount_max``. Options priced in another currency are converted to the pick's with
the catalog's ``fx_to_cny`` rates, so the bars compare like with like; one that
cannot be converted keeps its own amount and currency in its label.
"""

from __future__ import annotations

from matplotlib.axes import Axes

import locales
from bot.charts import style
from bot.charts.options import Row, row_label, rows
from engine.cost import to_currency
from engine.results import Cost, Plan


def draw_cost(ax: Axes, plan: Plan, lang: str, fx_to_cny: dict[str, float] | None = None) -> None:
    """Monthly cost bars, pick highlighted, amounts formatted for ``lang``."""
    shown = rows(plan)
    style.title(ax, locales.t(lang, "chart.title.cost"))
    if not shown:
        style.message(ax, locales.t(lang, "chart.no_fit"))
        return
    style.style_axes(ax)
    currency = shown[0].option.monthly_cost.currency
    ys = style.option_rows(ax, [row_label(r, lang) for r in shown])
    amounts = [_converted(r.option.monthly_cost, currency, fx_to_cny or {}) for r in shown]
    colours = [style.PICK if r.kind == "pick" else style.OTHER for r in shown]
    ax.barh(ys, amounts, height=0.6, color=colours)
    ends = _ranges(ax, shown, ys, currency, fx_to_cny or {})
    for y, end, row in zip(ys, ends, shown, strict=True):
        ax.text(end, y, "  " + _amount_label(row, lang), va="center", fontsize=style.TICK_PT)
    ax.set_xlim(0, max(ends) * 1.5)
    style.number_axis(ax.xaxis, lang, currency)
    ax.set_xlabel(locales.t(lang, "chart.axis.cost", currency=currency), fontsize=style.LABEL_PT)


def _converted(cost: Cost, currency: str, fx: dict[str, float], amount: float | None = None) -> float:
    value = cost.amount if amount is None else amount
    converted = to_currency(value, cost.currency, currency, fx)
    return value if converted is None else converted


def _ranges(ax: Axes, shown: list[Row], ys: list[int], currency: str, fx: dict[str, float]) -> list[float]:
    """Draw each quoted price range on from its bar; returns where each row's drawing ends."""
    ends: list[float] = []
    for y, row in zip(ys, shown, strict=True):
        cost = row.option.monthly_cost
        low = _converted(cost, currency, fx)
        ends.append(low)
        if cost.amount_max and cost.amount_max > cost.amount:
            ends[-1] = _converted(cost, currency, fx, cost.amount_max)
            ax.plot([low, ends[-1]], [y, y], color=style.INK, linewidth=2, solid_capstyle="butt")
    return ends


def _amount_label(row: Row, lang: str) -> str:
    cost = row.option.monthly_cost
    amount = locales.money(lang, cost.amount, cost.currency)
    if cost.amount_max and cost.amount_max > cost.amount:
        amount = f"{amount}–{locales.money(lang, cost.amount_max, cost.currency)}"
    text = locales.t(lang, "chart.per_month", amount=amount)
    if row.option.within_budget is False:
        text = locales.t(lang, "chart.over_budget", amount=text)
    return text
