"""Charts for a Plan as PNG bytes: memory per GPU, monthly cost, decode or training speed.

Labels come from ``locales`` (``chart.*`` in ``locales/<lang>/charts.yaml``) and are
drawn in a CJK-capable font (``bot.charts.fonts``) so Chinese renders as text, not
boxes. Rendering uses matplotlib's object API on an Agg canvas, never pyplot.
"""

from __future__ import annotations

from bot.charts.cost import draw_cost
from bot.charts.memory import draw_memory
from bot.charts.render import KINDS, PANELS, render_plan_png, size_px
from bot.charts.speed import draw_speed

__all__ = ["KINDS", "PANELS", "draw_cost", "draw_memory", "draw_speed", "render_plan_png", "size_px"]
