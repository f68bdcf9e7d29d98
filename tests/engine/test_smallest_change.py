"""The smallest change that makes a serving "no" a "yes" on the same cards (issue 45).

"Llama 2 7B INT4 on a T4, 4 users, 4k context" was answered "no, 0.8 GiB short: 2 × T4".
The KV-side and runtime-side changes come first, cheapest first, each only when it alone
makes the one T4 hold the load (engine.smallest_change); the memory figures are the
engine's own estimate of the changed workload.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.contract import ContractError, parse_workload
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.smallest_change import smallest_changes
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.verdict import verdict
from gpu_advisor.engine.workload import Workload

T4_CASE = Workload(
    task="infer", model="llama-2-7b", gpu="t4", weight_dtype="int4", concurrency=4, context_len=4096
)


def test_the_t4_case_is_a_no_before_any_change(kb: Knowledge) -> None:
    got = estimate(T4_CASE, kb).requested
    assert got is not None and not got.fits and 0.5 < got.shortfall_gib < 1.0


def test_an_fp8_kv_cache_is_the_cheapest_change_that_keeps_the_t4(kb: Knowledge) -> None:
    changes = smallest_changes(T4_CASE, kb)
    assert changes[0].id == "change_kv_fp8"
    assert changes[0].values["used_gib"] <= changes[0].values["capacity_gib"]  # type: ignore[operator]


def test_the_changes_come_cheapest_first(kb: Knowledge) -> None:
    assert [c.id for c in smallest_changes(T4_CASE, kb)] == [
        "change_kv_fp8",
        "change_fewer_streams",
        "change_max_model_len",
    ]


def test_fewer_full_length_streams_says_how_many_of_the_users_fit(kb: Knowledge) -> None:
    fewer = next(c for c in smallest_changes(T4_CASE, kb) if c.id == "change_fewer_streams")
    assert fewer.values["streams"] == 3 and fewer.values["users"] == 4


def test_the_shorter_window_is_the_longest_that_fits(kb: Knowledge) -> None:
    shorter = next(c for c in smallest_changes(T4_CASE, kb) if c.id == "change_max_model_len")
    window = int(shorter.values["window"])  # type: ignore[arg-type]
    assert shorter.values["was"] == 4096 and window % 256 == 0
    longer = estimate(T4_CASE.model_copy(update={"context_len": window + 256}), kb).requested
    assert longer is not None and not longer.fits


def test_a_fuller_memory_share_is_offered_only_when_it_alone_is_enough(kb: Knowledge) -> None:
    """0.8 GiB short is more than 95 % of a T4 gives back; 0.3 GiB short is not."""
    assert "change_memory_share" not in [c.id for c in smallest_changes(T4_CASE, kb)]
    close = T4_CASE.model_copy(update={"context_len": 3840})
    assert smallest_changes(close, kb)[0].id == "change_memory_share"


def test_a_load_that_fits_needs_no_change(kb: Knowledge) -> None:
    assert smallest_changes(T4_CASE.model_copy(update={"concurrency": 2}), kb) == []


def test_training_and_unnamed_cards_get_no_serving_change(kb: Knowledge) -> None:
    assert smallest_changes(T4_CASE.model_copy(update={"gpu": None}), kb) == []
    train = Workload(task="train", model="llama-2-7b", gpu="t4", method="full")
    assert smallest_changes(train, kb) == []


def test_the_verdict_carries_the_changes_when_nothing_fits(kb: Knowledge) -> None:
    v = verdict(T4_CASE, kb)
    assert not any(r.fits for r in v.rows)
    assert v.changes[0].id == "change_kv_fp8"


def test_a_fitting_verdict_carries_no_change(kb: Knowledge) -> None:
    assert verdict(T4_CASE.model_copy(update={"concurrency": 1}), kb).changes == []


def test_the_memory_share_the_request_states_sizes_the_card(kb: Knowledge) -> None:
    """gpu_memory_utilization (vLLM's flag) replaces the runtime's default share of the card."""
    default = estimate(T4_CASE, kb).requested
    fuller = estimate(T4_CASE.model_copy(update={"gpu_memory_utilization": 0.95}), kb).requested
    assert default is not None and fuller is not None
    assert fuller.capacity_gib == pytest.approx(default.capacity_gib * 0.95 / 0.9, abs=0.01)


def test_the_contract_takes_a_memory_share_and_refuses_one_above_the_card(kb: Knowledge) -> None:
    text = '{"task": "infer", "model": "llama-2-7b", "gpu": "t4", "gpu_memory_utilization": %s}'
    assert parse_workload(text % "0.95").gpu_memory_utilization == 0.95
    with pytest.raises(ContractError) as refused:
        parse_workload(text % "1.5")
    assert refused.value.payload["error"]["field"] == "gpu_memory_utilization"


def test_a_plan_names_the_cheapest_change_that_keeps_the_named_card(kb: Knowledge) -> None:
    """The rental plan for the same request prices other machines, and says the one change that
    would keep the single T4 (the plan checks' "no" names its cheapest change)."""
    said = [f.id for f in recommend(T4_CASE, kb).pitfalls]
    assert [i for i in said if i.startswith("change_")] == ["change_kv_fp8"]


def test_a_plan_whose_named_card_fits_names_no_change(kb: Knowledge) -> None:
    fits = T4_CASE.model_copy(update={"concurrency": 1})
    assert not [f.id for f in recommend(fits, kb).pitfalls if f.id.startswith("change_")]
