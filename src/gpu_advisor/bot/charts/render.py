"""One plan, one PNG: the memory, cost and speed panels alone or stacked.

``render_plan_png`` is what ``gpu-advisor chart`` calls; ``plan_chart`` is what a chat
turn calls for an answer's picture. Both return PNG bytes and write nothing. Every
panel draws from the plan alone (the speed curve is the engine's ``Plan.serving_curve``);
the only thing read besides is the currency table that puts the cost bars in one
currency — the caller's catalog rates, or the shipped catalog's when none are given.
"""

from __future__ import annotations

from collections.abc import Mapping

from matplotlib.axes import Axes

from gpu_advisor import knowledge, locales
from gpu_advisor.bot.charts import style
from gpu_advisor.bot.charts.cost import draw_cost
from gpu_advisor.bot.charts.memory import draw_memory
from gpu_advisor.bot.charts.speed import draw_speed
from gpu_advisor.engine.results import Cost, Plan

PANELS = ("memory", "cost", "speed")
KINDS = (*PANELS, "all")


def size_px(kind: str) -> tuple[int, int]:
    """Width and height of the PNG for ``kind``."""
    return style.ALL_PX if kind == "all" else style.PANEL_PX


def render_plan_png(
    plan: Plan,
    lang: str,
    kind: str = "all",
    fx_to_cny: Mapping[str, float] | None = None,
    budget: Cost | None = None,
) -> bytes:
    """PNG bytes of ``kind`` ("memory", "cost", "speed" or "all" — three panels stacked) in ``lang``.

    ``fx_to_cny`` is the catalog's rate table (``Catalog.fx_to_cny``) the plan was priced
    with; without it the shipped catalog's rates convert the cost bars. ``budget`` (the
    workload's, as a Cost with ``per`` month, hour or total) draws the budget line.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown chart kind {kind!r}; expected one of {KINDS}")
    if lang not in locales.LANGS:
        raise ValueError(f"unknown language {lang!r}; expected one of {locales.LANGS}")
    fig = style.new_figure(size_px(kind))
    kinds = PANELS if kind == "all" else (kind,)
    axes = fig.subplots(len(kinds), 1, squeeze=False)[:, 0]
    for name, ax in zip(kinds, axes, strict=True):
        _draw(name, ax, plan, lang, fx_to_cny, budget)
    return style.png_bytes(fig)


def plan_chart(
    plan: Plan | None, lang: str, fx_to_cny: Mapping[str, float] | None = None, budget: Cost | None = None
) -> bytes | None:
    """The picture a chat answer attaches (all three panels); None when there is no pick to draw."""
    if plan is None or plan.recommendation is None:
        return None
    return render_plan_png(plan, lang, "all", fx_to_cny, budget)


def _draw(
    name: str,
    ax: Axes,
    plan: Plan,
    lang: str,
    fx_to_cny: Mapping[str, float] | None,
    budget: Cost | None = None,
) -> None:
    if name == "memory":
        draw_memory(ax, plan, lang)
    elif name == "cost":
        rates = knowledge.load().catalog.fx_to_cny if fx_to_cny is None else fx_to_cny
        draw_cost(ax, plan, lang, dict(rates), budget)
    else:
        draw_speed(ax, plan, lang)
