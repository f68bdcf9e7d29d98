"""One plan, one PNG: the memory, cost and speed panels alone or stacked.

``render_plan_png`` is what the chat surfaces and ``gpu-advisor chart`` call. It
returns the PNG bytes and writes nothing; the only thing it may read is the shipped
knowledge base, when the caller passes no ``kb`` and a panel needs one (the speed
curve rebuilds the pick's layout; the cost bars convert currencies).
"""

from __future__ import annotations

from matplotlib.axes import Axes

import knowledge
import locales
from bot.charts import style
from bot.charts.cost import draw_cost
from bot.charts.memory import draw_memory
from bot.charts.speed import draw_speed
from engine.results import Plan
from engine.specs import Knowledge, ModelArch
from engine.workload import Workload

PANELS = ("memory", "cost", "speed")
KINDS = (*PANELS, "all")


def size_px(kind: str) -> tuple[int, int]:
    """Width and height of the PNG for ``kind``."""
    return style.ALL_PX if kind == "all" else style.PANEL_PX


def render_plan_png(
    plan: Plan,
    lang: str,
    kind: str = "all",
    arch: ModelArch | None = None,
    kb: Knowledge | None = None,
    workload: Workload | None = None,
) -> bytes:
    """PNG bytes of ``kind`` ("memory", "cost", "speed" or "all" — three panels stacked) in ``lang``.

    ``workload`` (the one the plan was made for) makes the speed curve exact; without
    it the serving settings are read back from the plan's assumptions.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown chart kind {kind!r}; expected one of {KINDS}")
    if lang not in locales.LANGS:
        raise ValueError(f"unknown language {lang!r}; expected one of {locales.LANGS}")
    fig = style.new_figure(size_px(kind))
    kinds = PANELS if kind == "all" else (kind,)
    axes = fig.subplots(len(kinds), 1, squeeze=False)[:, 0]
    for name, ax in zip(kinds, axes, strict=True):
        _draw(name, ax, plan, lang, arch, kb, workload)
    return style.png_bytes(fig)


def _draw(
    name: str,
    ax: Axes,
    plan: Plan,
    lang: str,
    arch: ModelArch | None,
    kb: Knowledge | None,
    workload: Workload | None,
) -> None:
    if name == "memory":
        draw_memory(ax, plan, lang)
    elif name == "cost":
        draw_cost(ax, plan, lang, (kb or knowledge.load()).catalog.fx_to_cny)
    else:
        draw_speed(ax, plan, lang, kb or knowledge.load(), arch, workload)
