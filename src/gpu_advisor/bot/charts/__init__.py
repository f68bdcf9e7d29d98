"""Charts for a Plan as PNG bytes: memory per GPU, monthly cost, decode or training speed.

Labels come from ``locales`` (``chart.*`` in ``locales/<lang>/charts.yaml``) and are
drawn in a CJK-capable font (``bot.charts.fonts``) so Chinese renders as text, not
boxes. Rendering uses matplotlib's object API on an Agg canvas, never pyplot.

The names below are loaded on first use (PEP 562): importing matplotlib and numpy
costs a third of a second, which a command that draws nothing should not pay.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpu_advisor.bot.charts.cost import draw_cost
    from gpu_advisor.bot.charts.memory import draw_memory
    from gpu_advisor.bot.charts.render import KINDS, PANELS, plan_chart, render_plan_png, size_px
    from gpu_advisor.bot.charts.speed import draw_speed

_HOMES = {
    "KINDS": "render",
    "PANELS": "render",
    "plan_chart": "render",
    "render_plan_png": "render",
    "size_px": "render",
    "draw_cost": "cost",
    "draw_memory": "memory",
    "draw_speed": "speed",
}
__all__ = [
    "KINDS",
    "PANELS",
    "draw_cost",
    "draw_memory",
    "draw_speed",
    "plan_chart",
    "render_plan_png",
    "size_px",
]


def __getattr__(name: str) -> Any:
    """Import the submodule that defines ``name`` when it is first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
