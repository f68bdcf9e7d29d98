"""A plan searches a layout's break point only as far as its replica count needs (issue 41).

Sizing every layout of the catalog needs each one's replica count, and that count only
changes where the break point crosses a step of ceil(QPS / rate): the search stops once
both ends of its bracket give one count. The exact break-point QPS is searched to the
end for the options a plan shows. Every figure must be the one a finished search gives.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpu_advisor.engine import break_points, queueing, replica, serving_capacity
from gpu_advisor.engine.architecture import resolve
from gpu_advisor.engine.candidates import settled
from gpu_advisor.engine.defaults import ServeSetup, serve_setup
from gpu_advisor.engine.offer_search import Searches
from gpu_advisor.engine.queueing import BreakPoint, ReplicaShape, break_point
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.workload import Workload

P99_WORKLOAD = Workload(task="infer", model="llama-3.1-8b", qps=20, ttft_ms_p99=500)
TARGETS = [(0.5, None), (0.8, 0.04), (None, 0.03), (2.0, None), (0.001, None)]  # the last: never met


@pytest.fixture(autouse=True)
def nothing_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each shape searches for itself: no break point comes from another test's plan."""
    monkeypatch.setattr(break_points, "SHARED", False)


def _setup(kb: Knowledge, qps: float, ttft_ms: float | None = 500) -> ServeSetup:
    w = Workload(task="infer", model="llama-3.1-8b", qps=qps, ttft_ms_p99=ttft_ms)
    return serve_setup(w, kb.models["llama-3.1-8b"])[0]


def _shape(kb: Knowledge, card: str, s: ServeSetup) -> ReplicaShape:
    """A freshly built 8B replica on one ``card`` (a new object, its searches not begun)."""
    arch, gpu = kb.models["llama-3.1-8b"], kb.gpus[card]
    got = replica.place(
        arch, s, (gpu, s.configured(kb.runtimes["vllm"], gpu), "bf16", 1), gpu.usable_gib * GiB, "none"
    )
    assert got is not None
    return got.shape


@pytest.mark.parametrize("card", ["l4", "a10", "l40s", "h100-sxm"])
@pytest.mark.parametrize("targets", TARGETS, ids=str)
def test_every_bracket_holds_the_answer_the_finished_search_gives(
    kb: Knowledge, card: str, targets: tuple[float | None, float | None]
) -> None:
    answer = BreakPoint(_shape(kb, card, _setup(kb, 20)), *targets).value()
    point = BreakPoint(_shape(kb, card, _setup(kb, 20)), *targets)
    steps = 0
    while not point.done:
        lo, hi = point.bounds()
        assert lo <= answer <= hi or (point.may_be_zero and answer == 0.0)
        point.refine()
        steps += 1
    assert point.bounds() == (answer, answer)
    assert point.value().hex() == answer.hex()
    assert steps > 1 or answer == 0.0


def test_a_search_stopped_and_resumed_ends_on_the_same_float(kb: Knowledge) -> None:
    s = _setup(kb, 20)
    whole = queueing._break(_shape(kb, "l4", s), 0.5, None)
    point = break_point(_shape(kb, "l4", s), 0.5, None)
    point.refine()
    point.refine()
    assert point.value().hex() == whole.hex()


@pytest.mark.parametrize("card", ["l4", "a10", "l40s", "h100-sxm"])
@pytest.mark.parametrize("qps", [0.5, 3, 7, 20, 55, 140, 400])
@pytest.mark.parametrize("ttft_ms", [1, 150, 500, 3000])
def test_a_replica_count_from_a_part_searched_break_point_is_the_finished_ones(
    kb: Knowledge, card: str, qps: float, ttft_ms: float
) -> None:
    s = _setup(kb, qps, ttft_ms)
    finished = _shape(kb, card, s)
    break_point(finished, s.ttft_p99_s, s.tpot_p99_s).value()  # searched to the end before sizing
    lazy, full = serving_capacity.size(_shape(kb, card, s), s), serving_capacity.size(finished, s)
    assert (lazy is None) == (full is None)
    if lazy is not None and full is not None:
        assert (lazy.replicas, lazy.batch, lazy.latency, lazy.meets_p99) == (
            full.replicas,
            full.batch,
            full.latency,
            full.meets_p99,
        )
        assert lazy.break_qps.hex() == full.break_qps.hex()


def test_most_candidates_leave_the_break_point_unsearched(kb: Knowledge) -> None:
    arch = resolve(P99_WORKLOAD, kb.models).arch
    s = serve_setup(P99_WORKLOAD, arch)[0]
    found = Searches(arch, kb).serve(s, None)
    unsearched = [c for c in found if "break_qps" not in c.extras]
    assert len(unsearched) > len(found) / 2
    assert all(c.deferred is not None for c in unsearched)


def test_sizing_reads_no_medians_but_every_p99_a_target_is_held_to(kb: Knowledge) -> None:
    arch = resolve(P99_WORKLOAD, kb.models).arch
    s = serve_setup(P99_WORKLOAD, arch)[0]
    found = Searches(arch, kb).serve(s, None)
    assert all("ttft_ms_p50" not in c.extras for c in found if c.deferred is not None)
    assert all("ttft_ms_p99" in c.extras for c in found if c.meets_latency)


@pytest.mark.parametrize("card", ["l4", "a10", "l40s", "h100-sxm"])
@pytest.mark.parametrize("share", [0.01, 0.3, 0.7, 0.95, 0.999])
def test_the_figures_sizing_reads_are_latencys_own_floats(kb: Knowledge, card: str, share: float) -> None:
    shape = _shape(kb, card, _setup(kb, 20))
    rate = share * queueing.capacity_qps(shape)
    lat = queueing.latency(shape, rate)
    got = queueing.occupancy_and_p99(shape, rate, True)
    assert lat is not None and got is not None
    assert [x.hex() for x in got] == [x.hex() for x in (lat.occupancy, lat.ttft_p99_s, lat.tpot_p99_s)]
    assert queueing.occupancy_and_p99(shape, rate, False) == (lat.occupancy, 0.0, 0.0)


@pytest.mark.parametrize("workload", [P99_WORKLOAD, Workload(task="infer", model="llama-3.1-8b", qps=20)])
def test_a_settled_candidate_carries_latencys_medians_and_tails(kb: Knowledge, workload: Workload) -> None:
    arch = resolve(workload, kb.models).arch
    s = serve_setup(workload, arch)[0]
    assert s.qps is not None
    searches = Searches(arch, kb)
    c = next(c for c in searches.serve(s, None) if c.deferred is not None and c.meets_latency)
    layout = next(
        lay
        for lay in searches.layouts(s)
        if (lay.offer, lay.fmt, lay.tp) == (c.offer, c.weight_dtype, c.tensor_parallel)
    )
    lat = queueing.latency(replace(layout, built=None).shape, s.qps / c.replicas)
    assert lat is not None
    x = settled(c).extras
    assert (x["ttft_ms_p50"], x["ttft_ms_p99"], x["tpot_ms_p50"], x["tpot_ms_p99"]) == (
        lat.ttft_p50_s * 1e3,
        lat.ttft_p99_s * 1e3,
        lat.tpot_p50_s * 1e3,
        lat.tpot_p99_s * 1e3,
    )


def test_a_settled_candidate_carries_the_finished_break_point_of_all_its_replicas(kb: Knowledge) -> None:
    arch = resolve(P99_WORKLOAD, kb.models).arch
    s = serve_setup(P99_WORKLOAD, arch)[0]
    searches = Searches(arch, kb)
    c = next(c for c in searches.serve(s, None) if c.deferred is not None)
    layout = next(
        lay
        for lay in searches.layouts(s)
        if (lay.offer, lay.fmt, lay.tp) == (c.offer, c.weight_dtype, c.tensor_parallel)
    )
    fresh = replace(layout, built=None).shape  # the same replica, built afresh: its search not begun
    expected = queueing._break(fresh, s.ttft_p99_s, s.tpot_p99_s) * c.replicas
    got = settled(c)
    assert got.deferred is None
    assert got.extras["break_qps"].hex() == expected.hex()


def test_every_option_a_plan_shows_carries_its_break_point(kb: Knowledge) -> None:
    plan = recommend(P99_WORKLOAD, kb)
    shown = [o for o in [plan.recommendation, *plan.alternatives] if o is not None]
    assert shown and all(o.break_qps is not None and o.break_qps > 0 for o in shown)


def test_the_next_plan_goes_on_from_where_a_search_stopped(
    kb: Knowledge, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(break_points, "SHARED", True)
    break_points.clear()
    s = _setup(kb, 20)
    evaluated: list[float] = []
    margin = queueing._margin

    def counted(shape: ReplicaShape, qps: float, ttft: float | None, tpot: float | None) -> float:
        evaluated.append(qps)
        return margin(shape, qps, ttft, tpot)

    monkeypatch.setattr(queueing, "_margin", counted)
    first = break_point(_shape(kb, "l4", s), 0.5, None)  # one plan's replica
    first.refine()
    first.refine()
    before = list(evaluated)
    second = break_point(_shape(kb, "l4", s), 0.5, None)  # the same replica, built by the next plan
    assert second.bounds() == first.bounds()
    answer = second.value()
    assert not set(evaluated[len(before) :]) & set(before)  # no rate evaluated twice
    break_points.clear()
    monkeypatch.setattr(break_points, "SHARED", False)
    assert answer.hex() == queueing._break(_shape(kb, "l4", s), 0.5, None).hex()
