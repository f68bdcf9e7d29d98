"""Judging a server's configuration sheet: is this box built to train or to serve?

``judge.judge(parsed, kb, unparsed_lines=..., truncated=...)`` takes the fields
:mod:`gpu_advisor.reading.sheet` read from a pasted sheet (a ``ParsedSheet``) and returns
a ``SheetAnalysis``: the seed-004 signals that fired with their weights, a verdict, who
the box suits and does not, what it fears, what to stress-test first and second, what
to ask the vendor, and mismatches with their numbers.

Pure: no I/O, no prose, no text reading. Ids render through ``locales``
(``sheet.signal.<id>``, ``sheet.pitfall.<id>`` …). The signal weights and the
mismatches are rule families in :mod:`gpu_advisor.engine.rules` (``sheet_signals``,
``sheet_pitfalls``); ``verdict`` holds the rule and the per-verdict lists, ``numbers``
the per-GPU arithmetic against the 8-GPU baseline.
"""

from __future__ import annotations

from gpu_advisor.engine.sheet.models import (
    Nic,
    ParsedSheet,
    SheetAnalysis,
    SheetNumbers,
    Signal,
    StressTests,
)

__all__ = ["Nic", "ParsedSheet", "SheetAnalysis", "SheetNumbers", "Signal", "StressTests"]
