"""The engine's serving curve: decode speed against batch, returned with every serving plan."""

from __future__ import annotations

import pytest

from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.serving_curve import sample_batches
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload


def plan_for(data: dict[str, object], kb: Knowledge) -> Plan:
    return recommend(Workload.model_validate(data), kb)


# 10T parameters: more than the largest pipeline (four 8-GPU machines) of any offer holds.
NOTHING_FITS = {"task": "infer", "params_b": 10000}


@pytest.mark.parametrize(
    "workload",
    [
        {"task": "infer", "model": "llama-3-8b", "concurrency": 16},
        {"task": "infer", "params_b": 13},  # a bare size: the shape comes from the engine's defaults
        {"task": "infer", "params_b": 70, "concurrency": 64, "weight_dtype": "int4"},
        {"task": "infer", "params_b": 2000},  # a replica across machines (pipeline stages)
    ],
)
def test_curve_passes_through_the_plans_operating_point(kb: Knowledge, workload: dict[str, object]) -> None:
    plan = plan_for(workload, kb)
    pick = plan.recommendation
    assert pick is not None and pick.batch and pick.decode_tokens_per_s
    planned = next(p for p in plan.serving_curve if p.batch == pick.batch)
    assert planned.tokens_per_s_per_stream == pick.decode_tokens_per_s  # both rounded the same way
    per_replica = (pick.aggregate_tokens_per_s or 0) / (pick.replicas or 1)
    assert planned.tokens_per_s_replica == pytest.approx(per_replica, abs=0.1 * (pick.replicas or 1))


def test_sharing_a_replica_never_speeds_a_stream_up_but_raises_its_total(kb: Knowledge) -> None:
    plan = plan_for({"task": "infer", "model": "llama-3-8b", "concurrency": 16}, kb)
    batches = [p.batch for p in plan.serving_curve]
    per_stream = [p.tokens_per_s_per_stream for p in plan.serving_curve]
    totals = [p.tokens_per_s_replica for p in plan.serving_curve]
    assert batches[0] == 1 and batches == sorted(set(batches))
    assert per_stream == sorted(per_stream, reverse=True)
    assert totals[-1] > 10 * totals[0]


def test_training_plans_have_no_curve_and_train_then_serve_plans_have_the_serving_one(kb: Knowledge) -> None:
    train = plan_for({"task": "train", "params_b": 7, "method": "lora"}, kb)
    both = plan_for({"task": "both", "params_b": 7, "method": "lora"}, kb)
    assert train.serving_curve == []
    assert both.serving is not None and both.serving_curve
    assert any(p.tokens_per_s_per_stream == both.serving.decode_tokens_per_s for p in both.serving_curve)


def test_nothing_fits_means_no_curve(kb: Knowledge) -> None:
    assert plan_for(NOTHING_FITS, kb).serving_curve == []


def test_sampled_batches_are_dense_at_first_then_spaced_and_keep_the_planned_one() -> None:
    small = sample_batches(top=10, planned=3)
    assert small == list(range(1, 11))
    large = sample_batches(top=256, planned=77)
    assert large[:16] == list(range(1, 17)) and large[-1] == 256 and 77 in large
    assert len(large) <= 16 + 33 + 1  # a chart's worth of points, not one per batch


def test_the_curve_stops_at_the_users_sequence_limit(kb: Knowledge) -> None:
    # the search sized the pick with max_num_seqs 12; the curve samples the same runtime
    plan = plan_for({"task": "infer", "model": "llama-3-8b", "concurrency": 8, "max_num_seqs": 12}, kb)
    assert max(p.batch for p in plan.serving_curve) == 12
