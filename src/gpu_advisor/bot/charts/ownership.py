"""Buy vs rent vs API as a picture: cumulative cost over the months, the payback month marked.

Each line is what has been paid after m months (``Ownership.series``): renting and the
API start at zero and rise by their monthly cost; buying starts at the purchase price
and rises by power and hosting alone. Where the buy line crosses under the rent line
(``Ownership.break_even_months``) a dotted vertical marks the payback month. One panel,
phone-sized (1000×700 px, ``style.PANEL_PX``), amounts in the comparison's currency.
"""

from __future__ import annotations

from matplotlib.axes import Axes

from gpu_advisor import locales
from gpu_advisor.bot.charts import style
from gpu_advisor.engine.ownership import Ownership

RENT, BUY, API = style.PICK, "#D55E00", "#009E73"  # Okabe–Ito, as the memory panel's colours


def render_ownership_png(o: Ownership, lang: str) -> bytes:
    """PNG bytes of the cumulative-cost chart for ``o`` in ``lang``."""
    if lang not in locales.LANGS:
        raise ValueError(f"unknown language {lang!r}; expected one of {locales.LANGS}")
    fig = style.new_figure(style.PANEL_PX)
    ax = fig.subplots()
    style.title(ax, locales.t(lang, "money.chart.title"))
    style.style_axes(ax)
    months = [p.month for p in o.series]
    lines = [
        ax.plot(months, [p.rent for p in o.series], color=RENT, linewidth=3, label=_label(lang, "rent"))[0]
    ]
    for which, colour in (("buy", BUY), ("api", API)):
        values = [getattr(p, which) for p in o.series]
        if all(v is not None for v in values):
            lines.append(ax.plot(months, values, color=colour, linewidth=3, label=_label(lang, which))[0])
    _payback(ax, o, lang)
    style.number_axis(ax.yaxis, lang, o.currency)
    ax.set_xlim(0, months[-1])
    ax.set_ylim(bottom=0)
    ax.set_xlabel(locales.t(lang, "money.chart.axis_month"), fontsize=style.LABEL_PT)
    ax.set_ylabel(locales.t(lang, "money.chart.axis_cost", currency=o.currency), fontsize=style.LABEL_PT)
    style.legend_below(ax, lines, len(lines))
    return style.png_bytes(fig)


def _label(lang: str, which: str) -> str:
    return locales.t(lang, f"money.chart.{which}")


def _payback(ax: Axes, o: Ownership, lang: str) -> None:
    """A dotted line at the month buying has cost less than renting, when that month is on the chart."""
    month = o.break_even_months
    if month is None or o.buy is None or month > o.series[-1].month:
        return
    ax.axvline(month, color=style.INK, linestyle=":", linewidth=2)
    spent = o.buy.price + o.buy.running_monthly * month
    ax.plot([month], [spent], marker="o", color=style.INK, markersize=8)
    text = " " + locales.t(lang, "money.chart.break_even", month=month)
    box = {"facecolor": "white", "edgecolor": "none", "pad": 2}
    ax.text(month, spent, text, va="top", fontsize=style.TICK_PT, color=style.INK, bbox=box)
