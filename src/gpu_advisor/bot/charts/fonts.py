"""The font every chart label is drawn in: one that has Chinese glyphs.

Matplotlib's bundled DejaVu Sans has no CJK glyphs, so Chinese labels would come out
as empty boxes ("tofu"). We ship Noto Sans CJK (the PyPI package
``cvttf-NotoSansCJK-Regular`` holds ``NotoSansCJKtc-Regular.otf``, a Pan-CJK font
that covers Simplified Chinese too) and register it with matplotlib's font manager
once per process. Without that package we look for an installed font that has the
glyphs (Noto/Source Han, WenQuanYi, Droid Sans Fallback…), and as a last resort
draw in DejaVu Sans with one warning in the log.

Charts pass ``family()`` to every text artist instead of changing ``rcParams``, so
rendering never touches matplotlib's global state.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from matplotlib import font_manager
from matplotlib.ft2font import FT2Font

log = logging.getLogger(__name__)

PACKAGE = "cvttf_NotoSansCJK_Regular"
FONT_FILE = "NotoSansCJKtc-Regular.otf"
LATIN_FALLBACK = "DejaVu Sans"
# Characters a usable font must have: common ones from the chart titles.
PROBE = "显存费用速度推荐"
_NAME_HINTS = (
    "cjk",
    "source han",
    "wenquanyi",
    "wqy",
    "droid sans fallback",
    "hei",
    "song",
    "ming",
    "kai",
    "yahei",
    "pingfang",
    "hiragino",
    "noto sans sc",
    "noto sans tc",
)


@dataclass(frozen=True, slots=True)
class ChartFont:
    """The registered CJK font (``path`` is None when only DejaVu Sans is available)."""

    name: str
    path: Path | None


_lock = threading.Lock()
_chosen: ChartFont | None = None


def has_glyphs(path: str | Path, text: str) -> bool:
    """The font file maps every character of ``text`` to a real glyph (index 0 is "missing")."""
    try:
        font = FT2Font(str(path))
    except (OSError, RuntimeError, ValueError):
        return False
    return all(font.get_char_index(ord(ch)) != 0 for ch in text if not ch.isspace())


def packaged_font() -> Path | None:
    """The Noto Sans CJK file shipped by ``cvttf-NotoSansCJK-Regular``, if that package is installed."""
    try:
        candidate = resources.files(PACKAGE).joinpath(FONT_FILE)
    except ModuleNotFoundError:
        return None
    path = Path(str(candidate))
    return path if path.is_file() else None


def _installed_cjk_font() -> Path | None:
    """Any font matplotlib already knows that has the probe glyphs (names checked first: cheap)."""
    for entry in font_manager.fontManager.ttflist:
        if any(hint in entry.name.lower() for hint in _NAME_HINTS) and has_glyphs(entry.fname, PROBE):
            return Path(entry.fname)
    return None


def _register(path: Path) -> ChartFont:
    font_manager.fontManager.addfont(str(path))
    return ChartFont(font_manager.FontProperties(fname=str(path)).get_name(), path)


def choose_font() -> ChartFont:
    """Pick the font: the packaged Noto Sans CJK, else an installed CJK font, else DejaVu Sans."""
    path = packaged_font()
    if path is None:
        log.warning("%s is not installed; looking for another font with Chinese glyphs", PACKAGE)
        path = _installed_cjk_font()
    if path is not None and has_glyphs(path, PROBE):
        return _register(path)
    log.warning("no font with Chinese glyphs found; Chinese chart labels will render as boxes")
    return ChartFont(LATIN_FALLBACK, None)


def chart_font() -> ChartFont:
    """The font charts use, chosen and registered on first call (thread-safe)."""
    global _chosen  # noqa: PLW0603 - one registration per process
    with _lock:
        if _chosen is None:
            _chosen = choose_font()
        return _chosen


def family() -> list[str]:
    """Font families for text artists: the CJK font, then DejaVu Sans for anything it lacks."""
    name = chart_font().name
    return [name] if name == LATIN_FALLBACK else [name, LATIN_FALLBACK]
