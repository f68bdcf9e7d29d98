"""Reading a server's configuration sheet: is this box built to train or to serve?

``analyze(text, kb)`` takes a sheet as a vendor or a colleague pastes it (Chinese or
English, bullets, ``key: value`` lists, markdown tables, one comma-separated line) and
returns a ``SheetAnalysis``: the fields it read, the seed-004 signals that fired with
their weights, a verdict, who the box suits and does not, what it fears, what to
stress-test first and second, what to ask the vendor, and mismatches with their numbers.

Pure: no I/O, no prose. Ids render through ``locales`` (``sheet.signal.<id>``,
``sheet.pitfall.<id>`` …). It never raises on junk: lines nothing understood come back
in ``unparsed_lines``, and text beyond ``MAX_CHARS`` is cut off (``truncated``).

Modules: ``text`` (normalising and splitting), ``gpus``/``cpus``/``fields`` (readers),
``draft``/``parse`` (assembling ``ParsedSheet``), ``signals`` (weights), ``verdict``
(the rule and the per-verdict lists), ``pitfalls`` (mismatches), ``numbers`` (per-GPU
arithmetic against the 8-GPU baseline).
"""

from __future__ import annotations

from engine.sheet import pitfalls, verdict
from engine.sheet.models import (
    Nic,
    ParsedSheet,
    SheetAnalysis,
    SheetNumbers,
    Signal,
    StressTests,
)
from engine.sheet.numbers import compute
from engine.sheet.parse import parse
from engine.sheet.signals import evaluate
from engine.specs import Knowledge
from reading.sheet_lines import MAX_CHARS

__all__ = [
    "MAX_CHARS",
    "Nic",
    "ParsedSheet",
    "SheetAnalysis",
    "SheetNumbers",
    "Signal",
    "StressTests",
    "analyze",
]


def _understood(p: ParsedSheet) -> int:
    """How many parsed fields carry something (a value, a non-empty list, a true flag)."""
    return sum(1 for v in p.model_dump().values() if v not in (None, False, []))


def analyze(text: str, kb: Knowledge) -> SheetAnalysis:
    """Everything the sheet says about what the box is for, as ids and numbers."""
    parsed, unparsed = parse(text[:MAX_CHARS], kb)
    signals = evaluate(parsed, kb)
    training = sum(s.weight for s in signals if s.side == "training")
    inference = sum(s.weight for s in signals if s.side == "inference")
    decided = verdict.decide(training - inference)
    found = pitfalls.find(pitfalls.Context(parsed, kb, decided, training, inference))
    mig = any(f.id == "mig_slicing_possible" for f in found)
    return SheetAnalysis(
        parsed=parsed,
        unparsed_lines=unparsed,
        truncated=len(text) > MAX_CHARS,
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
