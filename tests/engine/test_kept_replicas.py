"""Replicas built once per process (``replica.speed``, issue 41).

A plan sizes every layout of the catalog, its what-ifs size many of them again, and the
next plan of the same model builds the same step-time models once more. ``replica.speed``
keeps what it built, keyed by everything the step-time model and the queue's shape read:
the same replica at another rate is found, another prompt length or card is not, each
call gets a shape whose break-point searches are its own, and the table stays bounded.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gpu_advisor.engine import break_points, replica
from gpu_advisor.engine.defaults import ServeSetup, serve_setup
from gpu_advisor.engine.queueing import ReplicaShape
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.throughput import ReplicaModel
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.workload import Workload


@pytest.fixture(autouse=True)
def empty_tables(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(break_points, "SHARED", True)
    replica.clear_caches()
    yield
    replica.clear_caches()


def _setup(kb: Knowledge, **asked: object) -> ServeSetup:
    w = Workload(task="infer", model="llama-3.1-8b", **asked)
    return serve_setup(w, kb.models["llama-3.1-8b"])[0]


def _built(kb: Knowledge, s: ServeSetup, card: str = "l4") -> tuple[ReplicaModel, ReplicaShape]:
    gpu = kb.gpus[card]
    got = replica.place(
        kb.models["llama-3.1-8b"],
        s,
        (gpu, s.configured(kb.runtimes["vllm"], gpu), "bf16", 1),
        gpu.usable_gib * GiB,
        "none",
    )
    assert got is not None
    return got.model, got.shape


def test_the_same_replica_at_another_rate_is_built_once(kb: Knowledge) -> None:
    model, _ = _built(kb, _setup(kb, qps=20, ttft_ms_p99=500))
    again, _ = _built(kb, _setup(kb, qps=40, ttft_ms_p99=800))
    assert again is model


def test_another_prompt_length_builds_another_model(kb: Knowledge) -> None:
    model, _ = _built(kb, _setup(kb, qps=20, prompt_tokens=512))
    longer, _ = _built(kb, _setup(kb, qps=20, prompt_tokens=2048))
    assert longer is not model
    assert longer.prefill_s > model.prefill_s


def test_another_card_builds_another_model(kb: Knowledge) -> None:
    s = _setup(kb, qps=20)
    assert _built(kb, s, "l4")[0] is not _built(kb, s, "a100-80g-sxm")[0]


def test_a_kept_model_steps_as_a_fresh_one(kb: Knowledge) -> None:
    s = _setup(kb, qps=20, ttft_ms_p99=500)
    _built(kb, s)
    kept, _ = _built(kb, s)
    replica.clear_caches()
    fresh, _ = _built(kb, s)
    assert fresh is not kept
    assert [kept.step_s(b) for b in (1, 8, 64)] == [fresh.step_s(b) for b in (1, 8, 64)]


def test_each_call_gets_a_shape_with_its_own_break_point_searches(kb: Knowledge) -> None:
    """A shape's memo holds searches advanced in place: two plans must not share one."""
    s = _setup(kb, qps=20, ttft_ms_p99=500)
    _, first = _built(kb, s)
    first.memo[(0.5, None)] = object()  # type: ignore[assignment]
    _, second = _built(kb, s)
    assert second is not first
    assert second == first  # every number the queue reads
    assert second.memo == {}
    assert second.step_model is first.step_model


def test_nothing_is_kept_with_the_shared_tables_off(kb: Knowledge, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(break_points, "SHARED", False)
    s = _setup(kb, qps=20)
    assert _built(kb, s)[0] is not _built(kb, s)[0]


def test_the_table_keeps_at_most_its_bound(kb: Knowledge, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replica, "SPEEDS_KEPT", 3)
    for prompt in (256, 512, 1024, 2048, 3072):
        _built(kb, _setup(kb, qps=20, prompt_tokens=prompt))
    assert len(replica._BUILT) == 3


def test_a_setup_configures_each_runtime_and_card_once(kb: Knowledge) -> None:
    """One record per (runtime, card, the user's limits), so kept models are found by identity."""
    gpu, rt = kb.gpus["l4"], kb.runtimes["vllm"]
    first = _setup(kb, qps=20, max_num_seqs=64).configured(rt, gpu)
    assert _setup(kb, qps=40, max_num_seqs=64).configured(rt, gpu) is first
    other = _setup(kb, qps=20, max_num_seqs=32).configured(rt, gpu)
    assert other is not first
    assert (first.max_batch, other.max_batch) == (64, 32)


def test_a_model_is_keyed_once_for_the_break_points(kb: Knowledge) -> None:
    model, _ = _built(kb, _setup(kb, qps=20, ttft_ms_p99=500))
    assert break_points.model_identity(model) is break_points.model_identity(model)


def _held(kb: Knowledge, s: ServeSetup) -> tuple[replica.PerGpu, float, int] | None:
    gpu = kb.gpus["l4"]
    where = (gpu, s.configured(kb.runtimes["vllm"], gpu), "bf16", 1)
    return replica.hold(kb.models["llama-3.1-8b"], s, where, gpu.usable_gib * GiB)


def test_what_a_replica_holds_is_worked_out_once_per_window_and_users(kb: Knowledge) -> None:
    first = _held(kb, _setup(kb, qps=20, context_len=4096))
    assert _held(kb, _setup(kb, qps=40, context_len=4096)) is first
    longer = _held(kb, _setup(kb, qps=20, context_len=8192))
    assert first is not None and longer is not None
    assert longer[0].kv_full > first[0].kv_full


def test_clearing_forgets_both_tables(kb: Knowledge) -> None:
    s = _setup(kb, qps=20)
    _built(kb, s)
    replica.clear_caches()
    assert (len(replica._BUILT), len(replica._HELD)) == (0, 0)


def test_a_kept_model_works_out_each_point_once(kb: Knowledge) -> None:
    model, _ = _built(kb, _setup(kb, qps=20))
    first = model.point(8)
    assert model.point(8) is first
    replica.clear_caches()
    again = model.point(8)
    assert again is not first
    assert again == first


def test_a_model_sized_from_a_count_is_built_once_though_each_plan_makes_a_new_record(
    kb: Knowledge,
) -> None:
    """'13B' is a model record made afresh by every plan: equal fields find the kept replica."""
    arch = kb.models["llama-3.1-8b"]
    twin = arch.model_copy()
    assert twin is not arch
    gpu = kb.gpus["l4"]
    s = _setup(kb, qps=20)
    where = (gpu, s.configured(kb.runtimes["vllm"], gpu), "bf16", 1)
    first = replica.place(arch, s, where, gpu.usable_gib * GiB, "none")
    again = replica.place(twin, s, where, gpu.usable_gib * GiB, "none")
    assert first is not None and again is not None
    assert again.model is first.model


def test_a_model_with_other_fields_is_another_model(kb: Knowledge) -> None:
    arch = kb.models["llama-3.1-8b"]
    deeper = arch.model_copy(update={"layers": arch.layers * 2})
    assert replica.same_model(deeper) is deeper
    assert replica.same_model(arch) is not deeper
