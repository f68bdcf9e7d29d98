"""Reading a pasted server configuration sheet.

``analyze(text, kb)`` takes a sheet as a vendor or a colleague pastes it (Chinese or
English, bullets, ``key: value`` lists, markdown tables, one comma-separated line),
reads it into a ``ParsedSheet`` (``parse``: ``gpus``/``cpus``/``fields`` readers,
assembled by ``draft``) and hands it to :func:`gpu_advisor.engine.sheet.judge`. It never
raises on junk: lines nothing understood come back in ``unparsed_lines``, and text
beyond ``MAX_CHARS`` is cut off (``truncated``).

The readers and the judge are imported when a sheet is first analysed: the dialog imports
this module for its ``/analyze`` command, and their patterns and models are about 15 ms of
every other start (``gpu-advisor ask``, bench/startup_bench.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_advisor.text.sheet_lines import MAX_CHARS

if TYPE_CHECKING:
    from gpu_advisor.engine.sheet import SheetAnalysis
    from gpu_advisor.engine.specs import Knowledge

__all__ = ["MAX_CHARS", "analyze"]


def analyze(text: str, kb: Knowledge) -> SheetAnalysis:
    """Read the sheet, then judge what it says."""
    from gpu_advisor.engine.sheet.judge import judge
    from gpu_advisor.reading.sheet.parse import parse

    parsed, unparsed = parse(text[:MAX_CHARS], kb)
    return judge(parsed, kb, unparsed_lines=unparsed, truncated=len(text) > MAX_CHARS)
