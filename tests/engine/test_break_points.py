"""Break points shared across plans (``engine.break_points``, issue 41).

A plan with p99 targets searches every layout's break point; the table lets the next plan
that builds the same replica skip the search. A hit must be the very float the search
returns, a replica of another card or another step-time function must never hit, and
the table stays bounded.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gpu_advisor.engine import break_points, queueing, replica
from gpu_advisor.engine.defaults import serve_setup
from gpu_advisor.engine.queueing import ReplicaShape, break_qps
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.workload import Workload

TTFT_P99_S = 0.5


@pytest.fixture(autouse=True)
def empty_table(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(break_points, "SHARED", True)
    break_points.clear()
    yield
    break_points.clear()


def _shape(kb: Knowledge, card: str = "l4", qps: float = 20) -> ReplicaShape:
    """A freshly built 8B replica on one ``card``, as a plan builds it (a new object every time)."""
    w = Workload(task="infer", model="llama-3.1-8b", qps=qps, ttft_ms_p99=TTFT_P99_S * 1e3)
    arch, gpu = kb.models["llama-3.1-8b"], kb.gpus[card]
    s, _ = serve_setup(w, arch)
    got = replica.place(
        arch, s, (gpu, s.configured(kb.runtimes["vllm"], gpu), "bf16", 1), gpu.usable_gib * GiB, "none"
    )
    assert got is not None
    return got.shape


def _cold(shape: ReplicaShape) -> float:
    """The break point searched afresh, the table switched off."""
    break_points.SHARED = False
    try:
        return queueing._break(shape, TTFT_P99_S, None)
    finally:
        break_points.SHARED = True


def test_a_hit_is_the_very_float_the_search_returns(kb: Knowledge) -> None:
    first = break_qps(_shape(kb), TTFT_P99_S, None)
    hit = break_qps(_shape(kb), TTFT_P99_S, None)
    assert hit.hex() == first.hex() == _cold(_shape(kb)).hex()


def test_a_second_plan_of_the_same_replica_does_not_search_again(
    kb: Knowledge, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_qps(_shape(kb), TTFT_P99_S, None)

    def searched(*_: object) -> float:
        raise AssertionError("searched a stored break point again")

    monkeypatch.setattr(queueing, "_margin", searched)  # any evaluation of the queue is a search
    break_qps(_shape(kb, qps=40), TTFT_P99_S, None)  # another QPS, the same replica


def test_another_card_is_searched_for_itself(kb: Knowledge) -> None:
    break_qps(_shape(kb, "l4"), TTFT_P99_S, None)
    other = break_qps(_shape(kb, "a10"), TTFT_P99_S, None)
    assert other == _cold(_shape(kb, "a10")) != _cold(_shape(kb, "l4"))
    assert break_points.size() == 2


def test_other_targets_are_another_entry(kb: Knowledge) -> None:
    loose = break_qps(_shape(kb), 2 * TTFT_P99_S, None)
    assert loose > break_qps(_shape(kb), TTFT_P99_S, None)
    assert break_points.size() == 2


def test_shapes_built_from_a_bare_function_keep_their_own_break_points() -> None:
    quick = ReplicaShape(64, 0.04, lambda n: 0.015 + 0.00015 * n, 200)
    slow = ReplicaShape(64, 0.04, lambda n: 0.030 + 0.00015 * n, 200)  # the same numbers, slower steps
    assert break_qps(quick, TTFT_P99_S, None) > break_qps(slow, TTFT_P99_S, None)
    assert break_points.size() == 0


def test_switched_off_nothing_is_stored(kb: Knowledge) -> None:
    break_points.SHARED = False
    break_qps(_shape(kb), TTFT_P99_S, None)
    assert break_points.size() == 0


def test_the_table_keeps_at_most_max_entries_dropping_the_oldest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(break_points, "MAX_ENTRIES", 3)
    for i in range(10):
        break_points.store(("key", i), float(i))
    assert break_points.size() == 3
    assert break_points.lookup(("key", 9)) == 9.0 and break_points.lookup(("key", 6)) is None


def test_a_plan_with_p99_targets_is_the_same_with_the_table_off_cold_and_warm(kb: Knowledge) -> None:
    w = Workload(task="infer", model="llama-3.1-8b", qps=20, ttft_ms_p99=500, tpot_ms_p99=40)
    break_points.SHARED = False
    off = recommend(w, kb).model_dump_json()
    break_points.SHARED = True
    cold = recommend(w, kb).model_dump_json()
    assert break_points.size() > 0
    assert off == cold == recommend(w, kb).model_dump_json()


class _Opaque:
    __slots__ = ("step",)

    def __init__(self) -> None:
        self.step = lambda b: 0.01 * b


def test_a_model_holding_a_function_has_no_identity() -> None:
    assert break_points.model_identity(_Opaque()) is None
