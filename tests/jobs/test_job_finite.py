"""Every family's request either plans to finite JSON or is refused cleanly (a 422 naming a field).

The fuzz test of the HTTP API found ``documents_per_s: null`` (an infinite rate serialised)
for an embedding request with a tiny ``tokens_per_document``. This property test holds the
same promise for every family at once, without a server: numbers are drawn from each field's
own JSON Schema (its bounds, the edges just inside and outside them, subnormals and the
largest floats), a request either validates or raises ``ValidationError``, and a validated
request's plan holds no NaN or infinity anywhere.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from gpu_advisor.engine.jobs.request import JobBooks, families, parse_job, plan_job, request_schema
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.jobs import books

EXTREMES = [5e-324, sys.float_info.min, 1e-9, 0.5, 1.0, 2.0, 1e6, 1e12, 1e308, sys.float_info.max]
CARDS = ["rtx4090", "l4", "t4", "a100-80g-sxm", "h100-sxm", "rtx3090", "l40s"]


def _members() -> dict[str, dict[str, Any]]:
    schema = request_schema()
    defs = schema.get("$defs", {})
    out: dict[str, dict[str, Any]] = {}
    for ref in schema["discriminator"]["mapping"].values():
        member = defs[ref.rsplit("/", 1)[-1]]
        out[member["properties"]["family"]["const"]] = member
    return out


MEMBERS = _members()


def _number(spec: dict[str, Any], integer: bool) -> st.SearchStrategy[Any]:
    edges: list[float] = list(EXTREMES)
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if key in spec:
            bound = float(spec[key])
            edges += [bound, bound * (1 + 1e-12) + 1e-300, bound * (1 - 1e-12) - 1e-300]
    if integer:
        return st.sampled_from(sorted({max(-(2**62), min(2**62, round(e))) for e in edges})) | st.integers(
            1, 10**7
        )
    return st.sampled_from(edges) | st.floats(min_value=1e-300, max_value=1e300)


def _value(spec: dict[str, Any], name: str) -> st.SearchStrategy[Any]:
    if "anyOf" in spec:
        return st.one_of(*(_value(s, name) for s in spec["anyOf"]))
    if "enum" in spec:
        return st.sampled_from(spec["enum"])
    if "const" in spec:
        return st.just(spec["const"])
    if "$ref" in spec:  # a Literal enum kept in $defs
        defs = request_schema()["$defs"]
        return _value(defs[spec["$ref"].rsplit("/", 1)[-1]], name)
    kind = spec.get("type")
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return _number(spec, integer=True)
    if kind == "number":
        return _number(spec, integer=False)
    if kind == "string":
        if name == "gpu":
            return st.sampled_from(CARDS)
        default = spec.get("default")
        return st.just(default) if isinstance(default, str) else st.sampled_from(["x", "sdxl", "bge-m3"])
    return st.none()


@st.composite
def requests(draw: st.DrawFn, family: str) -> dict[str, Any]:
    member = MEMBERS[family]
    body: dict[str, Any] = {"family": family}
    for name, spec in member["properties"].items():
        if name == "family":
            continue
        required = name in member.get("required", [])
        if required or draw(st.booleans()):
            body[name] = draw(_value(spec, name))
    return body


def _finite(value: Any, path: str = "") -> list[str]:
    """The paths in ``value`` that hold NaN or an infinity."""
    if isinstance(value, float):
        return [] if math.isfinite(value) else [path]
    if isinstance(value, BaseModel):
        return _finite(value.model_dump(), path)
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _finite(v, f"{path}.{k}")]
    if isinstance(value, list | tuple):
        return [p for i, v in enumerate(value) for p in _finite(v, f"{path}[{i}]")]
    return []


@pytest.fixture(scope="module")
def job_books() -> JobBooks:
    return books()


def test_every_family_of_the_contract_is_drawn_here() -> None:
    assert sorted(MEMBERS) == families()


@pytest.mark.parametrize("family", sorted(MEMBERS))
def test_a_request_plans_to_finite_numbers_or_is_refused(
    family: str, kb: Knowledge, job_books: JobBooks
) -> None:
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(body=requests(family))
    def check(body: dict[str, Any]) -> None:
        try:
            request = parse_job(body)
        except ValidationError:
            return
        plan = plan_job(request, kb, job_books)
        assert _finite(plan) == [], body
        plan.model_dump_json()  # serialises without raising

    check()
