"""The what-ifs' cheapest search sizes few layouts, and picks what a full walk would."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpu_advisor.engine import cost, serving_search
from gpu_advisor.engine.architecture import resolve
from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.catalog_index import engine_key
from gpu_advisor.engine.defaults import ServeSetup, serve_setup
from gpu_advisor.engine.offer_search import Searches, _quote
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

CASES: list[dict[str, Any]] = [
    {"model": "llama-3.1-8b", "qps": 20},
    {"params_b": 13, "always_on": True},
    {"model": "qwen3-30b-a3b", "qps": 5},
    {"model": "qwen2.5-72b", "qps": 2, "ttft_ms_p99": 1500},
    {"model": "qwen2.5-7b", "qps": 50, "duration_hours": 100},
]


def _full_walk(searches: Searches, s: ServeSetup, duration: float | None) -> tuple[float, str, int] | None:
    """Every layout sized for traffic, every priced offer of its machine: the lowest price wins."""
    fx = searches.kb.catalog.fx_to_cny
    best: tuple[float, str, int] | None = None
    for lay in searches.layouts(s):
        c = serving_search.size_for_traffic(lay, s, duration)
        if c is None or not c.meets_latency:
            continue
        for o in searches._priced(duration):
            if engine_key(o) == engine_key(lay.offer):
                price = cost.in_cny(_quote(o, duration, c.machines), fx)
                best = min(best, (price, o.id, c.machines)) if best else (price, o.id, c.machines)
    return best


def _setup(kb: Knowledge, case: dict[str, Any]) -> tuple[Searches, ServeSetup, float | None]:
    w = Workload(task="infer", **case)
    arch = resolve(w, kb.models).arch
    return Searches(arch, kb), serve_setup(w, arch)[0], w.duration_hours


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_the_cheapest_what_if_costs_what_a_full_walk_finds(
    kb: Knowledge, case: dict[str, Any], scale: float
) -> None:
    searches, s, duration = _setup(kb, case)
    traffic = replace(
        s, qps=s.qps * scale if s.qps else None, concurrency=max(1, round(s.concurrency * scale))
    )
    got: Candidate | None = searches.serve_cheapest(traffic, duration, s)
    walk = _full_walk(searches, traffic, duration)
    assert (got is None) == (walk is None)
    if got is not None and walk is not None:
        price = cost.in_cny(_quote(got.offer, duration, got.machines), kb.catalog.fx_to_cny)
        assert price == pytest.approx(walk[0])


def test_a_what_if_with_new_memory_builds_few_step_models(kb: Knowledge) -> None:
    # a 4x longer context re-lays every offer; the ones whose memory floor cannot beat the
    # best price are pruned before any step-time model is built for them
    searches, s, duration = _setup(kb, {"model": "llama-3.1-8b", "qps": 20})
    longer = replace(s, context_len=4 * s.context_len, prompt_tokens=4 * s.prompt_tokens)
    assert searches.serve_cheapest(longer, duration, longer) is not None
    layouts = searches.layouts(longer)
    assert sum(lay.built is not None for lay in layouts) < len(layouts) / 2
