"""The look shared by every panel: sizes, colours, fonts, and the PNG export.

Figures are built with ``matplotlib.figure.Figure`` on an Agg canvas, never through
``pyplot``: no global figure registry and no ``matplotlib.use`` (which would switch the
backend under anyone else's pyplot in the process), so chat handlers can render
in worker threads at the same time. Sizes are chosen for a phone screen: a single
panel is 1000×700 px, the three-panel summary stacks them to 1000×1800 px, and text
is 13–16 pt (about 18–22 px) so it stays legible when the image is shrunk to fit.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
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
ZLIB_LEVEL = 3  # PNG compression: 18 ms for a three-panel chart, a sixth larger than level 6 (30 ms)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

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

    The figure is laid out once and painted once. ``savefig`` with a layout engine draws
    twice — once to lay out, once to paint — running the constrained layout in both; we run
    it once, fix the axes where it put them and paint. The pixels are written as a PNG by
    ``png_encode`` (zlib, no per-row filter), not through Pillow, whose first save imports
    every image plugin (0.1 s in a fresh worker) and whose adaptive filters cost more than
    they save on flat chart colours (issue 41).
    """
    fonts = family()
    for artist in fig.findobj(Text):
        if not isinstance(artist, Text):
            continue
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
    fig.patch.set_facecolor("white")
    width, height = fig.bbox.size
    renderer = RendererAgg(int(width), int(height), fig.dpi)  # type: ignore[no-untyped-call]
    fig.draw(renderer)
    return png_encode(np.asarray(renderer.buffer_rgba()))  # type: ignore[no-untyped-call]


def png_encode(rgba: npt.NDArray[np.uint8]) -> bytes:
    """An RGBA pixel array (height × width × 4, on white) as PNG bytes: 8-bit RGB, zlib."""
    height, width, _ = rgba.shape
    rows = np.zeros((height, width * 3 + 1), dtype=np.uint8)  # each row: filter type 0, then R G B …
    rows[:, 1:] = rgba[:, :, :3].reshape(height, width * 3)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, truecolour, no interlace
    pixels = zlib.compress(rows.tobytes(), ZLIB_LEVEL)
    return PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", pixels) + _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _convert_ticks(axis: Axis, words: Callable[[str], str]) -> None:
    """Tick labels are written at draw time by the axis' formatter: convert what it writes."""
    formatter = axis.get_major_formatter()
    if isinstance(formatter, FuncFormatter | ScalarFormatter):
        axis.set_major_formatter(FuncFormatter(lambda v, pos: words(formatter(v, pos))))
