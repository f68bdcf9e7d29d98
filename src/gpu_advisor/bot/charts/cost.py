"""Cost panel: a month of 24×7 rental for each option — or, for a one-off job, what the job costs.

Bars are ``Option.monthly_cost`` (all machines of the option), or ``Option.job_cost``
when the pick is priced for a job of limited length (a three-day run is not a month
of 24×7), the pick in blue and
the rest in grey, each labelled with the amount in the user's locale
(``locales.money``). Where the catalog quotes a range, a thin line runs on to
``amount_max``. Options priced in another currency are converted to the pick's with
the catalog's ``fx_to_cny`` rates, so the bars compare like with like; one that
cannot be converted keeps its own amount and currency in its label. A budget, when
the workload has one, is a dashed vertical line at its amount (per month on the
monthly chart, per job on the job chart; an hourly budget counts the engine's 720 hours a
month, ``engine.cost.HOURS_PER_MONTH``, the hours the bars are priced with, so the line and
the bars compare like with like).
"""

from __future__ import annotations

from matplotlib.axes import Axes

from gpu_advisor import locales
from gpu_advisor.bot.charts import style
from gpu_advisor.bot.charts.options import Row, row_label, rows
from gpu_advisor.engine.cost import HOURS_PER_MONTH, to_currency
from gpu_advisor.engine.results import Cost, Option, Plan

BUDGET = "#CC3311"


def draw_cost(
    ax: Axes,
    plan: Plan,
    lang: str,
    fx_to_cny: dict[str, float] | None = None,
    budget: Cost | None = None,
) -> None:
    """Cost bars (monthly or per job), pick highlighted, the budget line, amounts formatted for ``lang``."""
    job = plan.recommendation is not None and _is_job(plan.recommendation)
    shown = [r for r in rows(plan) if not job or r.option.job_cost is not None]
    style.title(ax, locales.t(lang, "chart.title.cost_job" if job else "chart.title.cost"))
    if not shown:
        style.message(ax, locales.t(lang, "chart.no_fit"))
        return
    style.style_axes(ax)
    fx = fx_to_cny or {}
    currency = _cost(shown[0].option, job).currency
    ys = style.option_rows(ax, [row_label(r, lang) for r in shown])
    amounts = [_converted(_cost(r.option, job), currency, fx) for r in shown]
    colours = [style.PICK if r.kind == "pick" else style.OTHER for r in shown]
    ax.barh(ys, amounts, height=0.6, color=colours)
    ends = _ranges(ax, [_cost(r.option, job) for r in shown], ys, currency, fx)
    for y, end, row in zip(ys, ends, shown, strict=True):
        ax.text(end, y, "  " + _amount_label(row, lang, job), va="center", fontsize=style.TICK_PT)
    limit = _budget_line(ax, budget, job, currency, fx, lang)
    ax.set_xlim(0, max([*ends, limit or 0.0]) * 1.5)
    style.number_axis(ax.xaxis, lang, currency)
    axis = "chart.axis.cost_job" if job else "chart.axis.cost"
    ax.set_xlabel(locales.t(lang, axis, currency=currency), fontsize=style.LABEL_PT)


def _is_job(o: Option) -> bool:
    """Priced for a job of limited length (its cost is per job), not for a month of 24×7."""
    return o.job_cost is not None and o.cost.per not in ("month", "hour")


def _cost(o: Option, job: bool) -> Cost:
    return o.job_cost if job and o.job_cost is not None else o.monthly_cost


def _budget_line(
    ax: Axes, budget: Cost | None, job: bool, currency: str, fx: dict[str, float], lang: str
) -> float | None:
    """A dashed line at the budget, in the chart's currency and period; where it is, or None."""
    if budget is None or (budget.per == "total") != job:
        return None
    amount = budget.amount * (HOURS_PER_MONTH if budget.per == "hour" else 1)
    x = _converted(budget, currency, fx, amount)
    ax.axvline(x, color=BUDGET, linestyle="--", linewidth=2)
    label = locales.t(lang, "chart.budget", amount=locales.money(lang, x, currency))
    ax.text(x, ax.get_ylim()[1], " " + label, va="top", color=BUDGET, fontsize=style.TICK_PT)
    return x


def _converted(cost: Cost, currency: str, fx: dict[str, float], amount: float | None = None) -> float:
    value = cost.amount if amount is None else amount
    converted = to_currency(value, cost.currency, currency, fx)
    return value if converted is None else converted


def _ranges(ax: Axes, costs: list[Cost], ys: list[int], currency: str, fx: dict[str, float]) -> list[float]:
    """Draw each quoted price range on from its bar; returns where each row's drawing ends."""
    ends: list[float] = []
    for y, cost in zip(ys, costs, strict=True):
        low = _converted(cost, currency, fx)
        ends.append(low)
        if cost.amount_max and cost.amount_max > cost.amount:
            ends[-1] = _converted(cost, currency, fx, cost.amount_max)
            ax.plot([low, ends[-1]], [y, y], color=style.INK, linewidth=2, solid_capstyle="butt")
    return ends


def _amount_label(row: Row, lang: str, job: bool) -> str:
    cost = _cost(row.option, job)
    amount = locales.money(lang, cost.amount, cost.currency)
    if cost.amount_max and cost.amount_max > cost.amount:
        amount = f"{amount}–{locales.money(lang, cost.amount_max, cost.currency)}"
    text = amount if job else locales.t(lang, "chart.per_month", amount=amount)
    if row.option.within_budget is False:
        text = locales.t(lang, "chart.over_budget", amount=text)
    return text
