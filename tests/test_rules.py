"""Generated from the rule declarations (``engine.rules.families()``): nothing here lists a rule id.

Every branch of every rule has a scenario that really takes it; every id a rule emits
has a Chinese and an English sentence whose placeholders are values the scenarios
produce; the claims reader hears exactly the myths' claims; twins name each other.
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from typing import Any

import pytest

from gpu_advisor import locales
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.jobs import request as job_request
from gpu_advisor.engine.jobs.light import plan_job
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.rules import Family, Rule, Scenario, families, myths
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge.job_speeds import load_jobs
from gpu_advisor.knowledge.jobs import books
from gpu_advisor.reading.claims import CLAIM_PATTERNS, claims_in
from gpu_advisor.reading.sheet import analyze
from gpu_advisor.text.normalize import normalize

FAMILIES = families()
SCENARIOS = [
    pytest.param(fam, rule, sc, id=f"{rule.id}-{sc.branch}-{i}")
    for fam in FAMILIES
    for rule in fam.rules
    for i, sc in enumerate(rule.scenarios)
]
EMITTED = [(fam, rule, emitted) for fam in FAMILIES for rule in fam.rules for emitted in rule.emits]


def _run(fam: Family, sc: Scenario, kb: Knowledge) -> Iterator[Finding]:
    """Everything the surface the family belongs to emits for a scenario's input."""
    if fam.name.startswith("sheet"):
        a = analyze(sc.sheet, kb)
        yield from a.pitfalls
        yield from (Finding(id=s.id, severity="info", values=s.values) for s in a.signals)
        return
    if fam.name == "job_light":
        plan = plan_job(sc.workload, kb, load_jobs())
        yield from [*plan.findings, *plan.assumptions]
        return
    if fam.name == "job_diffusion":
        yield from job_request.plan_job(job_request.parse_job(dict(sc.workload)), kb, books()).findings
        return
    claims = claims_in(normalize(sc.said)) if sc.said else []
    yield from recommend(Workload(**sc.workload, claims=claims or None), kb).pitfalls


def _hit(fam: Family, rule: Rule[Any], sc: Scenario, kb: Knowledge) -> Finding | None:
    return next((f for f in _run(fam, sc, kb) if f.id == rule.expected(sc)), None)


@pytest.mark.parametrize(("fam", "rule", "sc"), SCENARIOS)
def test_each_scenario_takes_its_branch(fam: Family, rule: Rule[Any], sc: Scenario, kb: Knowledge) -> None:
    hit = _hit(fam, rule, sc, kb)
    assert hit is not None, f"{rule.id}/{sc.branch} did not emit {rule.expected(sc)}"
    if sc.severity is not None:
        assert hit.severity == sc.severity


def test_rule_ids_are_unique_across_families() -> None:
    ids = [e for fam in FAMILIES for rule in fam.rules for e in rule.emits]
    assert len(ids) == len(set(ids))


def test_every_emitted_id_is_some_scenarios_expectation() -> None:
    for fam in FAMILIES:
        for rule in fam.rules:
            assert {rule.expected(sc) for sc in rule.scenarios} == set(rule.emits), rule.id


def test_a_rule_missing_a_branch_scenario_is_refused_at_declaration() -> None:
    with pytest.raises(ValueError, match="no scenario for branch"):
        Rule(id="demo", check=None, branches=("a", "b"), scenarios=(Scenario(branch="a"),))


def test_twins_name_each_other_across_surfaces() -> None:
    rules = {r.id: (fam.name, r) for fam in FAMILIES for r in fam.rules}
    for name, (fam, rule) in rules.items():
        if rule.twin is None:
            continue
        twin_fam, twin = rules[rule.twin]
        assert fam.startswith("sheet") != twin_fam.startswith("sheet"), name
        assert twin.twin is not None and rules[twin.twin][1].twin == rule.twin, name


def test_claims_reader_knows_exactly_the_myths_that_have_claims() -> None:
    declared = {myths.claim_of(r) for r in myths.RULES}
    assert set(CLAIM_PATTERNS) == declared == {myths.claim_of(r) for r in myths.RULES}


@pytest.mark.parametrize("rule", myths.RULES, ids=lambda r: r.id)
def test_each_myth_is_heard_in_its_scenario_words(rule: Rule[Any]) -> None:
    said = [sc.said for sc in rule.scenarios if sc.said]
    assert said and all(myths.claim_of(rule) in claims_in(normalize(s)) for s in said)


def _values(fam: Family, rule: Rule[Any], emitted: str, kb: Knowledge) -> dict[str, Any]:
    """The values a scenario really produced for an emitted id."""
    for sc in rule.scenarios:
        if rule.expected(sc) == emitted and (hit := _hit(fam, rule, sc, kb)) is not None:
            return dict(hit.values)
    raise AssertionError(f"no scenario produced {emitted}")


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("fam", "rule", "emitted"), EMITTED, ids=[e for _, _, e in EMITTED])
def test_every_emitted_id_has_a_sentence_using_only_values_it_carries(
    lang: str, fam: Family, rule: Rule[Any], emitted: str, kb: Knowledge
) -> None:
    key = f"{fam.key_prefix}{emitted}"
    assert locales.has(lang, key), f"{lang}: no sentence {key} in {fam.locale_file}.yaml"
    values = _values(fam, rule, emitted, kb)
    names = {name for _, name, _, _ in string.Formatter().parse(locales.messages(lang)[key]) if name}
    missing = {n for n in names if values.get(n) is None and not _has_none_sibling(lang, key)}
    assert names <= set(values) and not missing, (
        f"{lang} {key}: {sorted(names - set(values))} {sorted(missing)}"
    )


def _has_none_sibling(lang: str, key: str) -> bool:
    return locales.has(lang, f"{key}_none")
