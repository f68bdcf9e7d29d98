"""Rule families: every finding the engine can emit is declared once.

Layout rule, stated once (the idea of pint's ``pint/facets/__init__.py``): a rule
family is one module that ends with ``RULES: tuple[Rule, ...]``. Each ``Rule`` names
its id, the ids its check may emit (``emits``), the check itself (defined just above
in the same module), its branches and at least one ``Scenario`` per branch: an input
that makes the check take that branch. Its sentences live in ``locales/<lang>/`` under
the family's key prefix followed by the id. So a rule, its Chinese and English
sentences and its tests are one hop apart: the module, the locale key, the scenarios.

=============  ==============================  =====================  ====================
family         module                          locale file            key
=============  ==============================  =====================  ====================
plan_hardware  engine/rules/hardware.py        findings.yaml          finding.<id>
plan_spending  engine/rules/spending.py        findings.yaml          finding.<id>
plan_serving   engine/rules/serving.py         findings.yaml          finding.<id>
plan_deadline  engine/rules/deadline.py        findings.yaml          finding.<id>
plan_latency   engine/rules/tail_latency.py    findings.yaml          finding.<id>
plan_checks    engine/rules/plans.py           plans.yaml             finding.<id>
plan_china     engine/rules/china_cards.py     plans.yaml             finding.<id>
myth           engine/rules/myths.py           findings.yaml          finding.<id>
sheet_pitfall  engine/rules/sheet_pitfalls.py  sheet.yaml             sheet.pitfall.<id>
sheet_signal   engine/rules/sheet_signals.py   sheet.yaml             sheet.signal.<id>
job_light      engine/rules/jobs.py            compute_jobs.yaml      finding.<id>
job_diffusion  engine/rules/diffusion_jobs.py  diffusion.yaml         finding.<id>
=============  ==============================  =====================  ====================

``tests/test_rules.py`` is generated from ``families()``: ids are unique, every branch
of every rule has a scenario that really takes it, every emitted id has a zh and an en
sentence whose placeholders are values the scenarios produce, and the claims reader
(``reading/claims.py``) knows exactly the myths' claims. A rule the plan and the
sheet analyser share (an 8-card PCIe box sold for training, a CPU that starves the
GPUs) keeps one id per surface, because both ids are JSON contract, and names its
``twin``; both twins call the same check in ``engine/rules/parts.py``.

Adding a rule: write the check, declare it in its family's ``RULES`` with a scenario
per branch, add ``finding.<id>`` (or ``sheet.*.<id>``) to both locale files. Nothing
else lists rule ids.

Findings with no condition of their own — a plan's reasoning steps, its assumptions and
what-ifs, a quote's or an ownership answer's notes — are *statements*, declared by id in
``engine/rules/statements.py`` with their module and locale key. ``declared()`` is
both together: every id the engine can emit, with where its sentence lives.
"""

from __future__ import annotations

from gpu_advisor.engine.rules.declaration import Family, Rule, Scenario
from gpu_advisor.engine.rules.statements import STATEMENTS

__all__ = ["Family", "Rule", "Scenario", "declared", "families"]


def families() -> tuple[Family, ...]:
    """Every rule family, imported on demand so a family module may import the engine freely."""
    from gpu_advisor.engine.rules import (
        china_cards,
        deadline,
        diffusion_jobs,
        hardware,
        jobs,
        myths,
        plans,
        serving,
        sheet_pitfalls,
        sheet_signals,
        spending,
        tail_latency,
    )

    return (
        Family("plan_hardware", "findings", "finding.", hardware.RULES),
        Family("plan_spending", "findings", "finding.", spending.RULES),
        Family("plan_serving", "findings", "finding.", serving.RULES),
        Family("plan_deadline", "findings", "finding.", deadline.RULES),
        Family("plan_latency", "findings", "finding.", tail_latency.RULES),
        Family("plan_checks", "plans", "finding.", plans.RULES),
        Family("plan_china", "plans", "finding.", china_cards.RULES),
        Family("myth", "findings", "finding.", myths.RULES),
        Family("sheet_pitfall", "sheet", "sheet.pitfall.", sheet_pitfalls.RULES),
        Family("sheet_signal", "sheet", "sheet.signal.", sheet_signals.RULES),
        Family("job_light", "compute_jobs", "finding.", jobs.RULES),
        Family("job_diffusion", "diffusion", "finding.", diffusion_jobs.RULES),
    )


def declared() -> dict[str, tuple[str, str]]:
    """Every finding id the engine may emit -> (locale file, locale key of its sentence)."""
    out = {
        emitted: (family.locale_file, family.key_prefix + emitted)
        for family in families()
        for rule in family.rules
        for emitted in rule.emits
    }
    for group in STATEMENTS:
        for id_ in group.ids:
            if id_ in out:
                raise ValueError(f"finding id {id_!r} is declared twice")
            out[id_] = (group.locale_file, group.key_prefix + id_)
    return out
