"""Memory panel: what fills each GPU, stacked, against what the card can hold.

One horizontal bar per option (the pick on top), split into the components the
engine reports per GPU — weights, gradients, optimizer states, activations, KV cache,
CUDA/framework overhead — with a red marker at the card's usable capacity
(``Option.capacity_gib``). The gap between the bar's end and the marker is the
headroom the engine left; a bar past its marker would not fit.
"""

from __future__ import annotations

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.container import Container

from gpu_advisor import locales
from gpu_advisor.bot.charts import style
from gpu_advisor.bot.charts.options import Row, row_label, rows
from gpu_advisor.engine.results import Plan

BAR_HEIGHT = 0.6


def draw_memory(ax: Axes, plan: Plan, lang: str) -> None:
    """Stacked per-GPU memory of every charted option, with a capacity marker per card."""
    shown = rows(plan)
    style.title(ax, locales.t(lang, "chart.title.memory"))
    if not shown:
        style.message(ax, locales.t(lang, "chart.no_fit"))
        return
    style.style_axes(ax)
    ys = style.option_rows(ax, [row_label(r, lang) for r in shown])
    handles: list[Artist | Container] = [*_stack(ax, shown, ys, lang), _capacity_markers(ax, shown, ys, lang)]
    ax.set_xlabel(locales.t(lang, "chart.axis.memory"), fontsize=style.LABEL_PT)
    widest = max(max(r.option.capacity_gib, r.option.memory_gib.get("total", 0.0)) for r in shown)
    ax.set_xlim(0, widest * 1.18)
    style.legend_below(ax, handles, ncols=3)


def _stack(ax: Axes, shown: list[Row], ys: list[int], lang: str) -> list[Container]:
    """One stacked segment per non-empty component; returns the legend handles in stacking order."""
    handles: list[Container] = []
    left = [0.0] * len(shown)
    for part, colour in style.COMPONENTS.items():
        widths = [r.option.memory_gib.get(part, 0.0) for r in shown]
        if not any(w > 0 for w in widths):
            continue
        bars = ax.barh(
            ys,
            widths,
            left=left,
            height=BAR_HEIGHT,
            color=colour,
            label=locales.t(lang, f"chart.component.{part}"),
        )
        handles.append(bars)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    return handles


def _capacity_markers(ax: Axes, shown: list[Row], ys: list[int], lang: str) -> Artist:
    half = BAR_HEIGHT / 2 + 0.12
    caps = [r.option.capacity_gib for r in shown]
    marker = ax.vlines(
        caps,
        [y - half for y in ys],
        [y + half for y in ys],
        colors=style.CAPACITY,
        linewidth=3,
        label=locales.t(lang, "chart.capacity"),
    )
    for cap, y in zip(caps, ys, strict=True):
        ax.text(
            cap,
            y - half,
            " " + locales.t(lang, "chart.capacity_value", gib=cap),
            ha="left",
            va="bottom",
            fontsize=style.TICK_PT - 1,
            color=style.CAPACITY,
        )
    return marker
