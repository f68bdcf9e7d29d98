"""How fast a replica serves: decode speed, time to first token, requests per second.

Decode is memory-bound: every step streams the (per-GPU) weights once plus the KV cache
of every running sequence at its *average* length. A step therefore takes
    t = max(bytes / (B_mem · η_bw), flops / (F_peak · η_c), t_floor) + t_fixed + t_TP,
where η_bw, t_floor and t_fixed belong to the serving runtime (llama.cpp, vLLM, TensorRT-LLM,
transformers reach different fractions of the card's bandwidth and pay different
per-step launch/scheduling costs) and flops = 2 · active params · batch. Larger
batches reuse each weight read for more tokens until the compute ceiling binds.
For mixture-of-experts models the experts read per step grow with batch: with E
experts and k routed per token, a batch of B touches E·(1-(1-k/E)^B) of them.

Prefill is compute-bound: 2 · active params · prompt tokens, plus causal attention
2 · layers · prompt² · q-dim, at the runtime's prefill MFU on the dense tensor rate.

A continuously batching runtime with B sequences in flight completes requests at
    rps(B) = 1 / (output_tokens · t(B) / B + t_prefill),
because prefills are serialised and each decode step advances all B sequences.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.dtypes import FORMATS
from engine.memory import kv_bytes_per_token, serving_weight_bytes
from engine.specs import GpuSpec, ModelArch, RuntimeProfile


@dataclass(frozen=True, slots=True)
class ServingPoint:
    batch: int
    step_ms: float
    tokens_per_s_per_seq: float
    tokens_per_s: float
    ttft_ms: float
    requests_per_s: float
    bound: str


def expert_fraction(arch: ModelArch, batch: int) -> float:
    """Share of expert weights a decode step reads."""
    if arch.num_experts == 1:
        return 1.0
    e, k = arch.num_experts, arch.experts_per_token
    return 1.0 - (1.0 - k / e) ** batch


def _moe_weight_bytes(arch: ModelArch, weights: float, batch: int) -> float:
    """Dense part always read; expert MLPs read in proportion to the experts touched."""
    if arch.num_experts == 1:
        return weights
    mlp_share = (3 * arch.hidden_size * arch.intermediate_size * arch.num_experts * arch.layers) / (
        arch.params_b * 1e9
    )
    mlp = weights * min(mlp_share, 1.0)
    return weights - mlp + mlp * expert_fraction(arch, batch)


def compute_tflops(gpu: GpuSpec, fmt: str, rt: RuntimeProfile) -> float:
    """Dense tensor rate the format computes at, discounted where its kernels fall short of it."""
    return gpu.tflops(FORMATS[fmt].compute) * rt.format_compute_efficiency.get(fmt, 1.0)


def decode_step_s(
    arch: ModelArch,
    gpu: GpuSpec,
    rt: RuntimeProfile,
    fmt: str,
    kv_dtype: str,
    batch: int,
    avg_context: float,
    tp: int,
    tp_comm_s: float,
) -> tuple[float, str]:
    """Seconds per decode step for ``batch`` sequences and which resource bounds it."""
    weights = _moe_weight_bytes(arch, serving_weight_bytes(arch, fmt, tp), batch)
    kv = kv_bytes_per_token(arch, kv_dtype, tp) * avg_context * batch
    t_mem = (weights + kv) / (rt.bandwidth_gbs(gpu.bandwidth_gbs, fmt) * 1e9)
    flops = 2.0 * arch.active_b * 1e9 * batch / tp
    flops += 4.0 * arch.layers * arch.num_heads * arch.head_dim * avg_context * batch / tp
    t_comp = flops / (compute_tflops(gpu, fmt, rt) * 1e12 * rt.decode_compute_efficiency)
    t_floor = arch.layers * rt.min_step_ms_per_layer / 1e3
    bound = "memory" if t_mem >= t_comp else "compute"
    if t_floor > max(t_mem, t_comp):
        bound = "launch"
    return max(t_mem, t_comp, t_floor) + rt.step_overhead_ms / 1e3 + tp_comm_s, bound


def prefill_s(arch: ModelArch, gpu: GpuSpec, rt: RuntimeProfile, fmt: str, prompt: int, tp: int) -> float:
    flops = 2.0 * arch.active_b * 1e9 * prompt
    flops += 2.0 * arch.layers * prompt * prompt * arch.num_heads * arch.head_dim
    compute = flops / tp / (compute_tflops(gpu, fmt, rt) * 1e12 * rt.prefill_mfu)
    return compute + (rt.prefill_overhead_ms + rt.step_overhead_ms) / 1e3


def serving_point(
    arch: ModelArch,
    gpu: GpuSpec,
    rt: RuntimeProfile,
    fmt: str,
    kv_dtype: str,
    batch: int,
    prompt: int,
    output: int,
    tp: int = 1,
    tp_comm_s: float = 0.0,
) -> ServingPoint:
    """Steady-state figures for one replica running ``batch`` sequences."""
    avg_context = prompt + output / 2.0
    step, bound = decode_step_s(arch, gpu, rt, fmt, kv_dtype, batch, avg_context, tp, tp_comm_s)
    pre = prefill_s(arch, gpu, rt, fmt, prompt, tp)
    rps = 1.0 / (output * step / batch + pre)
    # Under load a new prompt waits, on average, for half a decode step before its prefill.
    ttft = (pre + (step / 2 if batch > 1 else 0.0)) * 1e3
    return ServingPoint(batch, step * 1e3, 1.0 / step, batch / step, ttft, rps, bound)


def max_batch_for_memory(free_bytes: float, kv_per_seq_bytes: float, runtime_cap: int) -> int:
    if kv_per_seq_bytes <= 0:
        return runtime_cap
    return max(0, min(runtime_cap, math.floor(free_bytes / kv_per_seq_bytes)))
