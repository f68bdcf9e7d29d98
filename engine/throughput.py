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
    """Dense part always read; expert MLPs read in proportion to the experts touched (batch 0: dense only)."""
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


class ReplicaModel:
    """One replica's speed as a function of its batch, with every batch-free term computed once.

    The search evaluates hundreds of batch sizes per layout, so the constants (weight
    bytes, effective bandwidth and compute rate, prefill time, TP all-reduce cost) are
    derived here once and ``step_s(b)`` is a handful of float operations.
    """

    __slots__ = (
        "_arch",
        "_attn_flops",
        "_avg_ctx",
        "_comm",
        "_dense_w",
        "_expert_w",
        "_fixed",
        "_floor",
        "_flops_tok",
        "_inv_bw",
        "_inv_compute",
        "_kv_tok",
        "output",
        "prefill_s",
    )

    def __init__(
        self,
        arch: ModelArch,
        gpu: GpuSpec,
        rt: RuntimeProfile,
        fmt: str,
        kv_dtype: str,
        prompt: int,
        output: int,
        tp: int = 1,
        tp_comm: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        weights = serving_weight_bytes(arch, fmt, tp)
        self._arch = arch
        self._expert_w = weights - _moe_weight_bytes(arch, weights, 0) if arch.num_experts > 1 else 0.0
        self._dense_w = weights - self._expert_w
        self._avg_ctx = prompt + output / 2.0
        self._kv_tok = kv_bytes_per_token(arch, kv_dtype, tp)
        self._inv_bw = 1.0 / (rt.bandwidth_gbs(gpu.bandwidth_gbs, fmt) * 1e9)
        self._flops_tok = 2.0 * arch.active_b * 1e9 / tp
        self._attn_flops = 4.0 * arch.layers * arch.num_heads * arch.head_dim * self._avg_ctx / tp
        self._inv_compute = 1.0 / (compute_tflops(gpu, fmt, rt) * 1e12 * rt.decode_compute_efficiency)
        self._floor = arch.layers * rt.min_step_ms_per_layer / 1e3
        self._fixed = rt.step_overhead_ms / 1e3 + tp_comm[0]
        self._comm = tp_comm[1]
        self.output = output
        self.prefill_s = prefill_s(arch, gpu, rt, fmt, prompt, tp)

    def step_s(self, batch: int) -> tuple[float, str]:
        """Seconds per decode step for ``batch`` sequences and which resource bounds it."""
        weights = self._dense_w
        if self._expert_w:
            weights += self._expert_w * expert_fraction(self._arch, batch)
        t_mem = (weights + self._kv_tok * self._avg_ctx * batch) * self._inv_bw
        t_comp = (self._flops_tok + self._attn_flops) * batch * self._inv_compute
        bound = "memory" if t_mem >= t_comp else "compute"
        slowest = t_mem if t_mem >= t_comp else t_comp
        if self._floor > slowest:
            bound, slowest = "launch", self._floor
        return slowest + self._fixed + self._comm * batch, bound

    def smallest_batch_for(self, target_rps: float) -> float:
        """Batch at which the memory-bound line reaches ``target_rps`` (inf if it never does).

        With step(b) = A + B·b, rps(b) = b / (out·(A + B·b) + pre·b) ≥ q solves to
        b ≥ q·out·A / (1 − q·out·B − q·pre). A first guess for the search: compute
        ceilings, launch floors and MoE expert reads only ever make the real step slower.
        """
        a = self._dense_w * self._inv_bw + self._fixed
        b = self._kv_tok * self._avg_ctx * self._inv_bw + self._comm
        q = target_rps
        denom = 1.0 - q * self.output * b - q * self.prefill_s
        return q * self.output * a / denom if denom > 0 else math.inf

    def rps(self, batch: int) -> float:
        return 1.0 / (self.output * self.step_s(batch)[0] / batch + self.prefill_s)

    def point(self, batch: int) -> ServingPoint:
        step, bound = self.step_s(batch)
        rps = 1.0 / (self.output * step / batch + self.prefill_s)
        # Under load a new prompt waits, on average, for half a decode step before its prefill.
        ttft = (self.prefill_s + (step / 2 if batch > 1 else 0.0)) * 1e3
        return ServingPoint(batch, step * 1e3, 1.0 / step, batch / step, ttft, rps, bound)


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
    tp_comm: tuple[float, float] = (0.0, 0.0),
) -> ServingPoint:
    """Steady-state figures for one replica running ``batch`` sequences."""
    return ReplicaModel(arch, gpu, rt, fmt, kv_dtype, prompt, output, tp, tp_comm).point(batch)


def max_batch_for_memory(free_bytes: float, kv_per_seq_bytes: float, runtime_cap: int) -> int:
    if kv_per_seq_bytes <= 0:
        return runtime_cap
    return max(0, min(runtime_cap, math.floor(free_bytes / kv_per_seq_bytes)))
