"""The verdict on a parsed sheet: signals, verdict, lists, mismatches and numbers, as ids."""

from __future__ import annotations

from gpu_advisor.engine.rules import sheet_pitfalls as pitfalls
from gpu_advisor.engine.rules.sheet_signals import evaluate
from gpu_advisor.engine.sheet import verdict
from gpu_advisor.engine.sheet.models import (
    ParsedSheet,
    SheetAnalysis,
)
from gpu_advisor.engine.sheet.numbers import compute
from gpu_advisor.engine.specs import Knowledge


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
