"""Concept questions answered with the engine's own numbers: one declaration per concept.

Layout (the rule families' idea, ``engine/rules/__init__.py``, one hop apart): the
``Concept`` record and what the user asked (``Asked``) live in ``base``; the
declarations are grouped by what they are about — cards and links (``hardware``),
memory figures (``sizing``), the train-then-serve workflow (``workflow``) and seed
002's seven dimensions (``servers``). Each declares the numbers that answer it; how its
question is heard, and in which order, is ``reading.concepts`` (issue 42). The myths
(``engine.rules.myths``) answer the myth questions themselves and are not repeated here.
"""

from __future__ import annotations

from gpu_advisor.engine.concepts import hardware, servers, sizing, workflow
from gpu_advisor.engine.concepts.base import Asked, Concept, Facts

__all__ = ["BY_ID", "CONCEPTS", "Asked", "Concept", "Facts"]

BY_ID: dict[str, Concept] = {
    c.id: c for group in (hardware, sizing, workflow, servers) for c in group.CONCEPTS
}
CONCEPTS: tuple[Concept, ...] = tuple(BY_ID.values())
