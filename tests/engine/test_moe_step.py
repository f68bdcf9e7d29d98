"""How MoE layers fall short of dense ones in the serving step (engine.throughput).

The coefficients are fitted per runtime (knowledge/runtimes.yaml); these tests pin the
shape of the model, not the fitted values: which steps pay which shortfall.
"""

from __future__ import annotations

import pytest

from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.throughput import ReplicaModel, effective_flops_per_token


def _model(kb: Knowledge, model: str, **coefficients: float) -> ReplicaModel:
    rt = kb.runtimes["vllm"].model_copy(update=coefficients)
    return ReplicaModel(kb.models[model], kb.gpus["h100-sxm"], rt, "fp8", "fp8", 1000, 200)


def test_a_dense_model_pays_no_moe_shortfall(kb: Knowledge) -> None:
    rt = kb.runtimes["vllm"].model_copy(update={"moe_compute_efficiency": 0.2})
    arch = kb.models["llama-3.1-8b"]
    assert effective_flops_per_token(arch, rt, kb.gpus["h100-sxm"]) == 2.0 * arch.active_b * 1e9


def test_expert_flops_count_at_the_grouped_gemm_share(kb: Knowledge) -> None:
    arch, gpu = kb.models["qwen3-30b-a3b"], kb.gpus["h100-sxm"]
    flat = {"moe_half_width": 0.0}
    full = effective_flops_per_token(
        arch, kb.runtimes["vllm"].model_copy(update={**flat, "moe_compute_efficiency": 1.0}), gpu
    )
    half = effective_flops_per_token(
        arch, kb.runtimes["vllm"].model_copy(update={**flat, "moe_compute_efficiency": 0.5}), gpu
    )
    assert full == 2.0 * arch.active_b * 1e9 < half < 2.0 * full


def test_a_wide_expert_reaches_more_of_the_dense_rate_than_a_narrow_one(kb: Knowledge) -> None:
    """Mixtral's 14,336-wide experts against Qwen3-30B-A3B's 768: the routing passes cost the
    same per token, the GEMM FLOPs they are set against grow with the width."""
    rt = kb.runtimes["tensorrt_llm"].model_copy(
        update={"moe_compute_efficiency": 1.0, "moe_half_width": 6000.0}
    )
    gpu = kb.gpus["h100-sxm"]
    wide, narrow = rt.moe_share(gpu, 14336), rt.moe_share(gpu, 768)
    assert narrow < wide < 1.0
    assert wide == 14336 / (14336 + 6000)


def test_the_share_tends_to_the_runtime_figure_for_an_infinitely_wide_expert(kb: Knowledge) -> None:
    rt = kb.runtimes["vllm"].model_copy(update={"moe_compute_efficiency": 0.5, "moe_half_width": 1000.0})
    gpu = kb.gpus["h100-sxm"]
    assert rt.moe_share(gpu, 1e9) == pytest.approx(0.5, rel=1e-5)
    assert rt.moe_share(gpu) == 0.5  # no width given: the flat share


def test_the_tile_floor_and_expert_start_slow_a_loaded_step_only(kb: Knowledge) -> None:
    plain = _model(kb, "qwen3-30b-a3b", moe_pad_tokens=0.0, moe_expert_us=0.0)
    slowed = _model(kb, "qwen3-30b-a3b", moe_pad_tokens=64.0, moe_expert_us=8.0)
    assert slowed.step_s(4) == plain.step_s(4)  # decode-only: bound by the experts it reads
    assert slowed.mixed_step_s(64) > plain.mixed_step_s(64)


def test_a_prefill_floor_counts_moe_layers_apart(kb: Knowledge) -> None:
    rt = kb.runtimes["sglang"].model_copy(
        update={
            "prefill_overhead_ms": 0.0,
            "step_overhead_ms": 0.0,
            "prefill_layer_us": 100.0,
            "prefill_moe_layer_us": 1000.0,
        }
    )
    dense, moe = kb.models["llama-3.1-8b"], kb.models["qwen3-30b-a3b"]
    assert rt.prefill_floor_s(dense) == dense.layers * 100e-6
    assert rt.prefill_floor_s(moe) == moe.layers * 100e-6 + moe.moe_layers * 1000e-6


def _routed(kb: Knowledge, model: str, us: float, tp: int = 1, comm: float = 0.0) -> ReplicaModel:
    rt = kb.runtimes["vllm"].model_copy(update={"moe_decode_layer_us": us})
    return ReplicaModel(kb.models[model], kb.gpus["h100-sxm"], rt, "fp8", "fp8", 1000, 200, tp, (comm, 0.0))


def test_a_single_stream_moe_step_waits_for_its_routed_kernels_in_every_moe_layer(kb: Knowledge) -> None:
    """Issue 45: at batch 1 the router, top-k, alignment, two grouped GEMMs, activation and
    combine run one after another; their latency adds to reading the experts."""
    arch = kb.models["qwen3-30b-a3b"]
    plain, routed = _routed(kb, "qwen3-30b-a3b", 0.0), _routed(kb, "qwen3-30b-a3b", 24.0)
    assert routed.step_s(1)[0] - plain.step_s(1)[0] == pytest.approx(arch.moe_layers * 24e-6)


def test_a_dense_model_pays_no_routed_path_latency(kb: Knowledge) -> None:
    plain, routed = _routed(kb, "llama-3.1-8b", 0.0), _routed(kb, "llama-3.1-8b", 24.0)
    assert routed.step_s(1) == plain.step_s(1)


def test_the_tp_all_reduce_latency_of_a_layer_counts_toward_the_routed_floor(kb: Knowledge) -> None:
    """The floor is per layer: a TP group whose two all-reduces already cost more than the
    routed kernels adds nothing; one that costs less adds only the difference."""
    arch = kb.models["qwen3-30b-a3b"]
    slow_comm = arch.layers * 40e-6  # 40 us of all-reduce latency per layer, above the 24 us floor
    assert _routed(kb, "qwen3-30b-a3b", 24.0, 2, slow_comm).step_s(1) == _routed(
        kb, "qwen3-30b-a3b", 0.0, 2, slow_comm
    ).step_s(1)
    fast_comm = arch.layers * 10e-6
    gap = (
        _routed(kb, "qwen3-30b-a3b", 24.0, 2, fast_comm).step_s(1)[0]
        - _routed(kb, "qwen3-30b-a3b", 0.0, 2, fast_comm).step_s(1)[0]
    )
    assert gap == pytest.approx(arch.moe_layers * 14e-6)
