"""One plan, one PNG: the memory, cost and speed panels alone or stacked.

``render_plan_png`` is what ``gpu-advisor chart`` calls; ``plan_chart`` is what a chat
turn calls for an answer's picture. Both return PNG bytes and write nothing. Every
panel draws from the plan alone (the speed curve is the engine's ``Plan.serving_curve``);
the only thing read besides is the currency table that puts the cost bars in one
currency — the caller's catalog rates, or the shipped catalog's when none are given.

A chat asks for the same picture again and again (the web's viewer, Telegram's 📊 button
pressed twice, a reload): ``plan_chart`` keeps the last ``CACHED`` pictures by what they
are drawn from — the plan's JSON, the language and script, the rates and the budget — so
only the first costs the plotting (issue 41). ``traditional`` draws the Chinese labels in
Traditional characters (``bot.charts.script``) for a user who writes them.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from gpu_advisor import knowledge, locales
from gpu_advisor.bot.charts import style
from gpu_advisor.bot.charts.cost import draw_cost
from gpu_advisor.bot.charts.memory import draw_memory
from gpu_advisor.bot.charts.script import to_traditional
from gpu_advisor.bot.charts.speed import draw_speed
from gpu_advisor.engine.results import Cost, Plan

PANELS = ("memory", "cost", "speed")
KINDS = (*PANELS, "all")
CACHED = 32  # pictures kept (about 160 KB each): a few minutes of a busy server's answers
_cache: OrderedDict[str, bytes] = OrderedDict()
_cache_lock = threading.Lock()


def size_px(kind: str) -> tuple[int, int]:
    """Width and height of the PNG for ``kind``."""
    return style.ALL_PX if kind == "all" else style.PANEL_PX


def render_plan_png(
    plan: Plan,
    lang: str,
    kind: str = "all",
    fx_to_cny: Mapping[str, float] | None = None,
    budget: Cost | None = None,
    traditional: bool = False,
) -> bytes:
    """PNG bytes of ``kind`` ("memory", "cost", "speed" or "all" — three panels stacked) in ``lang``.

    ``fx_to_cny`` is the catalog's rate table (``Catalog.fx_to_cny``) the plan was priced
    with; without it the shipped catalog's rates convert the cost bars. ``budget`` (the
    workload's, as a Cost with ``per`` month, hour or total) draws the budget line.
    """
    words = to_traditional if traditional and lang == "zh" else None
    return style.png_bytes(plan_figure(plan, lang, kind, fx_to_cny, budget), words)


def plan_figure(
    plan: Plan,
    lang: str,
    kind: str = "all",
    fx_to_cny: Mapping[str, float] | None = None,
    budget: Cost | None = None,
) -> Figure:
    """The chart as a figure, drawn but not yet painted (``render_plan_png`` paints it)."""
    if kind not in KINDS:
        raise ValueError(f"unknown chart kind {kind!r}; expected one of {KINDS}")
    if lang not in locales.LANGS:
        raise ValueError(f"unknown language {lang!r}; expected one of {locales.LANGS}")
    fig = style.new_figure(size_px(kind))
    kinds = PANELS if kind == "all" else (kind,)
    axes = fig.subplots(len(kinds), 1, squeeze=False)[:, 0]
    for name, ax in zip(kinds, axes, strict=True):
        _draw(name, ax, plan, lang, fx_to_cny, budget)
    return fig


def plan_chart(
    plan: Plan | None,
    lang: str,
    fx_to_cny: Mapping[str, float] | None = None,
    budget: Cost | None = None,
    traditional: bool = False,
) -> bytes | None:
    """The picture a chat answer attaches (all three panels); None when there is no pick to draw.

    The same plan in the same words is drawn once: later calls get the kept bytes.
    """
    if plan is None or plan.recommendation is None:
        return None
    key = chart_key(plan, lang, fx_to_cny, budget, traditional)
    with _cache_lock:
        png = _cache.get(key)
        if png is not None:
            _cache.move_to_end(key)
            return png
    png = render_plan_png(plan, lang, "all", fx_to_cny, budget, traditional)
    with _cache_lock:
        _cache[key] = png
        while len(_cache) > CACHED:
            _cache.popitem(last=False)
    return png


def chart_key(
    plan: Plan, lang: str, fx_to_cny: Mapping[str, float] | None, budget: Cost | None, traditional: bool
) -> str:
    """Everything a picture is drawn from, as one digest: two equal keys draw equal pictures."""
    parts = [
        plan.model_dump_json(),
        lang,
        str(traditional and lang == "zh"),
        json.dumps(sorted(fx_to_cny.items()) if fx_to_cny is not None else None),
        budget.model_dump_json() if budget is not None else "",
    ]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


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
