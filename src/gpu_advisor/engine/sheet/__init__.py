"""Judging a server's configuration sheet: is this box built to train or to serve?

``judge(parsed, kb, unparsed_lines=..., truncated=...)`` takes the fields
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

from gpu_advisor.engine.rules import sheet_pitfalls as pitfalls
from gpu_advisor.engine.rules.sheet_signals import evaluate
from gpu_advisor.engine.sheet import verdict
from gpu_advisor.engine.sheet.models import (
    Nic,
    ParsedSheet,
    SheetAnalysis,
    SheetNumbers,
    Signal,
    StressTests,
)
from gpu_advisor.engine.sheet.numbers import compute
from gpu_advisor.engine.specs import Knowledge

__all__ = [
    "Nic",
    "ParsedSheet",
    "SheetAnalysis",
    "SheetNumbers",
    "Signal",
    "StressTests",
    "judge",
]


def _understood(p: ParsedSheet) -> int:
    """How many parsed fields carry something (a value, a non-empty list, a true flag)."""
    return sum(1 for v in p.model_dump().values() if v not in (None, False, []))


def judge(parsed: ParsedSheet, kb: Knowledge, *, unparsed_lines: list[str], truncated: bool) -> SheetAnalysis:
    """Everything the parsed sheet says about what the box is for, as ids and numbers."""
    signals = evaluate(parsed, kb)
    training = sum(s.weight for s in signals if s.side == "training")
    inference = sum(s.weight for s in signals if s.side == "inference")
    decided = verdict.decide(training - inference)
    found = pitfalls.find(pitfalls.Context(parsed, kb, decided, training, inference))
    mig = any(f.id == pitfalls.MIG_SLICING for f in found)
    return SheetAnalysis(
        parsed=parsed,
        unparsed_lines=unparsed_lines,
        truncated=truncated,
        understood_fields=_understood(parsed),
        verdict=decided,
        score=training - inference,
        training_score=training,
        inference_score=inference,
        signals=signals,
        good_for=verdict.good_for(decided, mig),
        bad_for=verdict.bad_for(decided),
        fears=verdict.fears(decided),
        stress_tests=verdict.stress_tests(decided, parsed),
        vendor_questions=verdict.vendor_questions(decided, parsed),
        pitfalls=found,
        numbers=compute(parsed, kb),
    )
