"""Pitfalls: the expensive mistakes from the seed articles, checked against a plan.

The rules are declared in their families (``engine/rules/hardware.py``,
``engine/rules/serving.py``, ``engine/rules/spending.py``, ``engine/rules/china_cards.py``,
``engine/rules/myths.py``; the layout is in
``engine/rules/__init__.py``). This module only runs them in the order their declarations rank them:
myths first (the user's own words were wrong), then the costliest mistakes.
"""

from __future__ import annotations

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.results import Option
from gpu_advisor.engine.rules import (
    Rule,
    china_cards,
    deadline,
    hardware,
    myths,
    serving,
    spending,
    tail_latency,
)
from gpu_advisor.engine.rules.hardware import PlanCheck
from gpu_advisor.engine.search_context import Context


def _ordered() -> tuple[Rule[PlanCheck], ...]:
    """Every plan rule, by the ``rank`` its declaration gives (ranks are unique)."""
    families: tuple[Rule[PlanCheck], ...] = (
        *hardware.RULES,
        *serving.RULES,
        *spending.RULES,
        *deadline.RULES,
        *tail_latency.RULES,
        *china_cards.RULES,
    )
    ranks = [r.rank for r in families]
    if 0 in ranks or len(set(ranks)) != len(ranks):
        raise ValueError("every plan rule declares a unique rank > 0")
    return tuple(sorted(families, key=lambda r: r.rank))


RULES = _ordered()


def evaluate(ctx: Context, pick: Candidate | None, requested: Option | None) -> list[Finding]:
    found = [f for rule in RULES if (f := rule.check(ctx, pick, requested)) is not None]
    return [*myths.check(ctx, pick), *found]
