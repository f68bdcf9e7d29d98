"""Several named cards and no layout stated: the layout that serves the most (issue 45).

One tensor-parallel group over every card is rarely the best way to serve: an 8B model on
eight H100s serves far more as eight replicas, a 70B FP8 as four TP2 replicas (MLPerf's
own H100 layout), and an MoE on SGLang gains from attention data parallel with expert
parallel. The estimate searches the layouts that fit and says the one it chose.
"""

from __future__ import annotations

from typing import Any

from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

EIGHT = Workload(task="infer", model="llama-3.1-8b", gpu="h100-sxm", gpu_count=8, runtime="vllm")


def _chosen(kb: Knowledge, w: Workload) -> dict[str, Any]:
    said = {f.id: dict(f.values) for f in estimate(w, kb).findings}
    return said.get("chosen_layout") or said.get("chosen_layout_dp") or {}


def test_a_small_model_on_eight_cards_runs_as_eight_replicas(kb: Knowledge) -> None:
    chosen = _chosen(kb, EIGHT)
    assert chosen["tensor_parallel"] == 1 and chosen["replicas"] == 8
    assert chosen["gain"] > 1.0


def test_the_chosen_layout_serves_at_least_what_one_tp_group_does(kb: Knowledge) -> None:
    open_layout = estimate(EIGHT, kb).requested
    one_group = estimate(EIGHT.model_copy(update={"tensor_parallel": 8}), kb).requested
    assert open_layout is not None and one_group is not None
    assert open_layout.max_output_tokens_per_s >= one_group.max_output_tokens_per_s  # type: ignore[operator]


def test_a_stated_layout_is_kept(kb: Knowledge) -> None:
    stated = EIGHT.model_copy(update={"tensor_parallel": 8})
    assert _chosen(kb, stated) == {}
    assert estimate(stated, kb).requested.replicas == 1  # type: ignore[union-attr]


def test_a_stated_expert_parallel_size_fixes_the_group(kb: Knowledge) -> None:
    moe = Workload(
        task="infer", model="qwen3-30b-a3b", gpu="h100-sxm", gpu_count=8, runtime="vllm", expert_parallel=4
    )
    assert _chosen(kb, moe)["tensor_parallel"] == 4
    assert estimate(moe, kb).requested.replicas == 2  # type: ignore[union-attr]


def test_an_moe_on_sglang_may_take_attention_data_parallel(kb: Knowledge) -> None:
    w = Workload(
        task="infer", model="deepseek-r1", gpu="h200-sxm", gpu_count=8, runtime="sglang", weight_dtype="fp8"
    )
    said = {f.id for f in estimate(w, kb).findings}
    assert "chosen_layout_dp" in said


def test_one_card_has_no_layout_to_choose(kb: Knowledge) -> None:
    assert _chosen(kb, EIGHT.model_copy(update={"gpu_count": 1})) == {}
