"""The look shared by every panel: sizes, colours, fonts, and the PNG export.

Figures are built with ``matplotlib.figure.Figure`` on an Agg canvas, never through
``pyplot``: no global figure registry and no ``matplotlib.use`` (which would switch the
backend under anyone else's pyplot in the process), so chat handlers can render
in worker threads at the same time. Sizes are chosen for a phone screen: a single
panel is 1000×700 px, the three-panel summary stacks them to 1000×1800 px, and text
is 13–16 pt (about 18–22 px) so it stays legible when the image is shrunk to fit.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import Container
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, MaxNLocator, ScalarFormatter

from gpu_advisor import locales
from gpu_advisor.bot.charts.fonts import family

DPI = 100
PANEL_PX = (1000, 700)
ALL_PX = (1000, 1800)
TITLE_PT = 16
LABEL_PT = 13
TICK_PT = 12
ZLIB_LEVEL = 1  # PNG compression: fast to encode, about a fifth larger than the default 6

PICK = "#2563eb"
OTHER = "#9ca3af"
CAPACITY = "#b91c1c"
INK = "#1f2937"
GRID = "#e5e7eb"
# Memory components: colour-blind-safe (Okabe–Ito) in the order they stack.
COMPONENTS: dict[str, str] = {
    "weights": "#0072B2",
    "gradients": "#E69F00",
    "optimizer": "#D55E00",
    "activations": "#CC79A7",
    "kv_cache": "#009E73",
    "overhead": "#999999",
}


def new_figure(px: tuple[int, int]) -> Figure:
    fig = Figure(figsize=(px[0] / DPI, px[1] / DPI), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def style_axes(ax: Axes) -> None:
    """Light grid behind the data, no top/right frame, chart-font tick labels."""
    ax.set_axisbelow(True)
    ax.grid(axis="both", color=GRID, linewidth=0.8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=TICK_PT, labelcolor=INK, labelfontfamily=family())


def option_rows(ax: Axes, labels: list[str]) -> list[int]:
    """One horizontal-bar row per label, top to bottom; at least three rows tall so one bar stays a bar."""
    ys = list(range(len(labels)))
    ax.set_yticks(ys, labels)
    pad = max(0.0, (3 - len(labels)) / 2)
    ax.set_ylim(len(labels) - 0.5 + pad, -0.5 - pad)
    return ys


def number_axis(axis: Axis, lang: str, currency: str | None = None) -> None:
    """Four or five ticks, grouped the locale's way ("10,000"), as money when ``currency`` is given."""
    axis.set_major_locator(MaxNLocator(nbins=5))
    if currency is None:
        axis.set_major_formatter(FuncFormatter(lambda v, _pos: locales.number(lang, v)))
    else:
        axis.set_major_formatter(FuncFormatter(lambda v, _pos: locales.money(lang, v, currency)))


def title(ax: Axes, text: str) -> None:
    ax.set_title(text, fontsize=TITLE_PT, color=INK, loc="left", pad=12, fontfamily=family())


def legend_below(ax: Axes, handles: Sequence[Artist | Container], ncols: int) -> None:
    """The legend under the x-axis label, where it cannot cover data."""
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.14),
        ncols=ncols,
        fontsize=TICK_PT,
        frameon=False,
    )


def message(ax: Axes, text: str) -> None:
    """An empty panel that says why it is empty (nothing fits, no speed data)."""
    ax.set_axis_off()
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=TITLE_PT, color=INK, transform=ax.transAxes)


def png_bytes(fig: Figure, words: Callable[[str], str] | None = None) -> bytes:
    """Apply the chart font (and ``words``, a script conversion) to every text, then encode as PNG.

    The figure is drawn once. ``savefig`` with a layout engine draws twice — once to lay
    out, once to paint — and runs the constrained layout in both; we run the layout once,
    fix the axes where it put them and paint (issue 41: a third of a chart's CPU). Zlib
    level 1 encodes in a fraction of level 6's time for a PNG a fifth larger, which a
    chart sent once can afford.
    """
    fonts = family()
    for artist in fig.findobj(Text):
        artist.set_fontfamily(fonts)
        if words is not None:
            artist.set_text(words(artist.get_text()))
    if words is not None:
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                _convert_ticks(axis, words)
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
        fig.set_layout_engine("none")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, facecolor="white", pil_kwargs={"compress_level": ZLIB_LEVEL})
    return buf.getvalue()


def _convert_ticks(axis: Axis, words: Callable[[str], str]) -> None:
    """Tick labels are written at draw time by the axis' formatter: convert what it writes."""
    formatter = axis.get_major_formatter()
    if isinstance(formatter, FuncFormatter | ScalarFormatter):
        axis.set_major_formatter(FuncFormatter(lambda v, pos: words(formatter(v, pos))))
