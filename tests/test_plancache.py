"""The plan cache: a rendered view is computed once per cached plan and forgotten with it; a plan's
searches run once each."""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog.plancache import PlanCache
from gpu_advisor.engine import offer_search, training_search
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload


@pytest.fixture(scope="module")
def plans(kb: Knowledge) -> list[Plan]:
    return [recommend(Workload.model_validate({"task": "infer", "params_b": b}), kb) for b in (7, 13, 70)]


class Counting:
    """A view that counts how often it really renders."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, lang: str, plan: Plan) -> str:
        self.calls += 1
        return f"{lang}:{plan.model.params_b}"


def test_a_view_is_rendered_once_per_plan_and_language(plans: list[Plan]) -> None:
    cache, view = PlanCache(size=4), Counting()
    cache.put("7b", plans[0])
    assert [cache.view(plans[0], "zh", view) for _ in range(3)] == ["zh:7.0"] * 3
    assert cache.view(plans[0], "en", view) == "en:7.0"
    assert view.calls == 2


def test_an_evicted_plan_is_rendered_afresh_and_not_kept(plans: list[Plan]) -> None:
    cache, view = PlanCache(size=2), Counting()
    for key, plan in zip(("7b", "13b", "70b"), plans, strict=True):
        cache.put(key, plan)
    assert len(cache) == 2 and cache.get("7b") is None and cache.get("70b") is plans[2]
    cache.view(plans[0], "zh", view)
    cache.view(plans[0], "zh", view)
    assert view.calls == 2  # not cached: its entry is gone


def test_replacing_a_key_forgets_the_old_plans_views(plans: list[Plan]) -> None:
    cache, view = PlanCache(size=2), Counting()
    cache.put("k", plans[0])
    cache.view(plans[0], "zh", view)
    cache.put("k", plans[1])
    assert cache.view(plans[1], "zh", view) == "zh:13.0" and view.calls == 2
    cache.clear()
    assert len(cache) == 0 and cache.get("k") is None


def test_a_what_if_that_repeats_the_plans_search_reuses_it(
    kb: Knowledge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A QLoRA plan that fits nowhere asks "what about QLoRA?": the same search, run once."""
    runs: list[str] = []
    real = training_search.search

    def counting(*args: object) -> object:
        runs.append(args[1].method)  # type: ignore[attr-defined]
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(offer_search.training_search, "search", counting)
    plan = recommend(Workload.model_validate({"task": "train", "params_b": 3000, "method": "qlora"}), kb)
    assert plan.status == "no_fit" and [f.id for f in plan.what_ifs] == ["what_if_qlora"]
    assert runs == ["qlora"]
