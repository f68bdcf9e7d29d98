"""One serving replica's speed written the naive way (``engine.throughput.ReplicaModel``, pint).

The same model as the engine's: a decode step is the weight GEMMs, then attention, each at
its slower resource (at least the launch floor),
    max(weights / bandwidth, GEMM FLOPs / compute) + max(cache / bandwidth, attention FLOPs / compute)
    + fixed cost + (per-sequence cost) · batch,
affine in the batch beyond the maxima (the runtime's per-sequence scheduling cost and the
tensor-parallel all-reduce bytes grow with it); a saturated step with chunked prefill also
carries its share of prompt tokens (``mixed``); prefill is compute at the runtime's share of
the card. Every intermediate value is a pint quantity, recomputed on every call, where the
engine derives the batch-free terms once and works on floats.

Counts that carry no unit (parameters, heads, layers) come from the engine as they are.
"""

# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import math
from dataclasses import dataclass

from bench.naive_pint import (
    BYTE,
    FLOP,
    GB_PER_S,
    MS,
    REQUEST,
    SECOND,
    TFLOP_PER_S,
    TOKEN,
    count,
    hop_latency,
    kv_per_sequence,
    link_bandwidth,
    serving_weight_bytes,
)
from gpu_advisor.engine.dtypes import FORMATS
from gpu_advisor.engine.param_count import routed_expert_params
from gpu_advisor.engine.specs import GpuSpec, Interconnect, ModelArch, RuntimeProfile
from gpu_advisor.engine.units import Quantity

US = 1e-6 * SECOND


@dataclass(frozen=True, slots=True)
class Point:
    batch: int
    step: Quantity
    tokens_per_s_per_seq: Quantity
    tokens_per_s: Quantity
    ttft: Quantity
    requests_per_s: Quantity
    bound: str


def attended(arch: ModelArch, context: Quantity) -> Quantity:
    """Tokens every attention layer attends to at ``context``, summed (windows cap theirs)."""
    windowed = arch.windowed_layers
    full = arch.layers - arch.linear_attention_layers - windowed
    return full * context + windowed * min(context, (arch.sliding_window or 0) * TOKEN)


def head_width(arch: ModelArch) -> float:
    if arch.attention == "mla":
        return (arch.kv_lora_rank or 0) + (arch.qk_rope_head_dim or 0) / 2.0
    return float(arch.head_dim)


def compute_rate(gpu: GpuSpec, fmt: str, rt: RuntimeProfile) -> Quantity:
    """The card's dense rate for the format (a table lookup), discounted by the runtime's kernels."""
    return gpu.tflops(FORMATS[fmt].compute) * TFLOP_PER_S * rt.format_compute_efficiency.get(fmt, 1.0)


def runtime_bandwidth(rt: RuntimeProfile, gpu: GpuSpec, fmt: str) -> Quantity:
    share = rt.decode_share(gpu)  # a lookup: this runtime's measured share on the card's class
    achieved = gpu.bandwidth_gbs * GB_PER_S * share * rt.format_bw_efficiency.get(fmt, 1.0)
    if rt.max_decode_bw_gbs:
        return min(achieved, rt.max_decode_bw_gbs * GB_PER_S)
    return achieved


def tp_comm(arch: ModelArch, tp: int, gpu: GpuSpec, ic: Interconnect) -> tuple[Quantity, Quantity]:
    """Two ring all-reduces per layer and token: (latency part, bandwidth part per sequence)."""
    if tp <= 1:
        return 0.0 * SECOND, 0.0 * SECOND
    fixed = 2 * arch.layers * 2 * (tp - 1) * hop_latency(gpu, ic)
    per_seq = 2 * arch.layers * (2 * (tp - 1) / tp * arch.hidden_size * 2.0 * BYTE / link_bandwidth(gpu, ic))
    return fixed, per_seq.to(SECOND)


def effective_flops(arch: ModelArch, rt: RuntimeProfile, gpu: GpuSpec) -> Quantity:
    """FLOPs per token, the routed experts' counted 1/(their grouped GEMMs' share of the dense rate)."""
    active = 2.0 * arch.active_b * 1e9 * FLOP / TOKEN
    share = rt.moe_share(gpu, arch.expert_intermediate_size)  # a lookup
    if not arch.is_moe or share >= 1.0:
        return active
    experts = min(
        2.0 * routed_expert_params(arch) * arch.experts_per_token / arch.num_experts * FLOP / TOKEN, active
    )
    return active + experts * (1.0 / share - 1.0)


def prefill_floor(rt: RuntimeProfile, arch: ModelArch) -> Quantity:
    """A prompt pass's cost beyond its FLOPs: the request's and a step's overhead, per-layer launches."""
    launches = (arch.layers * rt.prefill_layer_us + arch.moe_layers * rt.prefill_moe_layer_us) * US
    return ((rt.prefill_overhead_ms + rt.step_overhead_ms) * MS).to(SECOND) + launches


def prefill(arch: ModelArch, gpu: GpuSpec, rt: RuntimeProfile, fmt: str, prompt: int, tp: int) -> Quantity:
    tp = 1 if rt.parallelism == "layer" else tp
    p = prompt * TOKEN
    flops = effective_flops(arch, rt, gpu) * p
    flops += 2.0 * count(p / TOKEN) * count(attended(arch, p) / TOKEN) * arch.num_heads * arch.head_dim * FLOP
    compute = (flops / tp / (compute_rate(gpu, fmt, rt) * rt.prefill_share(gpu))).to(SECOND)
    return compute + prefill_floor(rt, arch)


@dataclass(frozen=True, slots=True)
class Replica:
    """One replica on (card, runtime, format, TP degree) serving ``prompt`` → ``output`` tokens."""

    arch: ModelArch
    gpu: GpuSpec
    rt: RuntimeProfile
    fmt: str
    kv_dtype: str
    prompt: int
    output: int
    tp: int
    ic: Interconnect

    @property
    def split(self) -> int:
        return 1 if self.rt.parallelism == "layer" else self.tp  # layer split: a token walks every GPU

    def expert_weights(self) -> Quantity:
        return (routed_expert_params(self.arch) * FORMATS[self.fmt].bits / 8 * BYTE) / self.split

    def dense_weights(self) -> Quantity:
        return serving_weight_bytes(self.arch, self.fmt, self.split) - self.expert_weights()

    def kv_seq(self) -> Quantity:
        return kv_per_sequence(
            self.arch, self.kv_dtype, (self.prompt + self.output / 2.0) * TOKEN, self.split
        )

    def comm(self) -> tuple[Quantity, Quantity]:
        return tp_comm(self.arch, self.split, self.gpu, self.ic)

    def fixed(self) -> Quantity:
        moe_launches = (self.arch.moe_layers * self.rt.moe_layer_us * US).to(SECOND)
        return (self.rt.step_overhead_ms * MS).to(SECOND) + self.comm()[0] + moe_launches

    def per_seq(self) -> Quantity:
        return (self.rt.seq_layer_us * self.arch.layers * US).to(SECOND)

    def floor(self) -> Quantity:
        return (self.arch.layers * self.rt.min_step_ms_per_layer * MS).to(SECOND)

    def t_weights(self, weights: Quantity) -> Quantity:
        return (weights / runtime_bandwidth(self.rt, self.gpu, self.fmt)).to(SECOND)

    def t_cache(self, batch: int) -> Quantity:
        kv_bw = runtime_bandwidth(self.rt, self.gpu, "bf16")  # the cache reads at attention's share
        return (self.kv_seq() * batch / (kv_bw * self.rt.kv_read_efficiency)).to(SECOND)

    def rate(self) -> Quantity:
        return compute_rate(self.gpu, self.fmt, self.rt) * self.rt.decode_compute_efficiency

    def flops_per_token(self) -> tuple[Quantity, Quantity]:
        """(weights' FLOPs, attention's FLOPs) for one decoded token of one sequence."""
        avg = (self.prompt + self.output / 2.0) * TOKEN
        weights = effective_flops(self.arch, self.rt, self.gpu) * TOKEN / self.split
        span = count(attended(self.arch, avg) / TOKEN)
        return weights, 4.0 * self.arch.num_heads * head_width(self.arch) * span / self.split * FLOP

    def step(self, batch: int) -> tuple[Quantity, str]:
        weights = self.dense_weights()
        if self.arch.is_moe:
            e, k = self.arch.num_experts, self.arch.experts_per_token
            weights = weights + self.expert_weights() * (1.0 - (1.0 - k / e) ** batch)
        per_token, attention = self.flops_per_token()
        w_mem, w_comp = self.t_weights(weights), (per_token * batch / self.rate()).to(SECOND)
        a_mem, a_comp = self.t_cache(batch), (attention * batch / self.rate()).to(SECOND)
        bound = "memory" if w_mem + a_mem >= w_comp + a_comp else "compute"
        slowest = max(w_mem, w_comp) + max(a_mem, a_comp)  # the GEMMs, then attention
        if self.floor() > slowest:
            bound, slowest = "launch", self.floor()
        return slowest + self.fixed() + (self.comm()[1] + self.per_seq()) * batch, bound

    def touched(self, tokens: float) -> float:
        """Share of the routed experts a step of ``tokens`` tokens reads (1 for a dense model)."""
        if not self.arch.is_moe:
            return 1.0
        return 1.0 - (1.0 - self.arch.experts_per_token / self.arch.num_experts) ** tokens

    def expert_pad(self, tokens: float) -> Quantity:
        """A loaded step's touched experts each compute a tile of ``moe_pad_tokens`` rows."""
        pad = 2.0 * routed_expert_params(self.arch) / self.split * self.rt.moe_pad_tokens * FLOP
        if not pad:
            return 0.0 * FLOP
        e, k = self.arch.num_experts, self.arch.experts_per_token
        return (
            pad
            / self.rt.moe_share(self.gpu, self.arch.expert_intermediate_size)
            * (1.0 - (1.0 - k / e) ** tokens)
        )

    def expert_start(self) -> Quantity:
        if not self.arch.is_moe:
            return 0.0 * SECOND
        return (self.arch.moe_layers * self.arch.num_experts * self.rt.moe_expert_us * US).to(SECOND)

    def mixed(self, batch: int) -> Quantity:
        """A saturated step: ``batch`` decode tokens and their share of prompt chunks.

        Rare prompts (fewer than one chunk a step) come whole, or in chunks of what the token
        budget leaves beside the batch, into a few long steps; the mean is over both kinds.
        """
        prompts = batch / self.output
        chunks = max(1, math.ceil(self.prompt / max(1, self.rt.max_num_batched_tokens - batch)))
        share = prompts * chunks
        if share >= 1.0:
            return self.pass_(batch, prompts)
        return share * self.pass_(batch, 1.0 / chunks) + (1.0 - share) * self.pass_(batch, 0.0)

    def pass_(self, batch: int, prompts: float) -> Quantity:
        """One forward pass with ``batch`` decode tokens and ``prompts`` prompts' tokens."""
        tokens = batch + prompts * self.prompt
        touched = self.touched(tokens)
        w_mem = self.t_weights(self.dense_weights() + self.expert_weights() * touched)
        per_token, attention = self.flops_per_token()
        p = self.prompt * TOKEN
        prompt_attn = 2.0 * self.prompt * count(attended(self.arch, p) / TOKEN) * self.arch.num_heads
        prompt_attn *= self.arch.head_dim / self.split * FLOP
        w_comp = ((per_token * tokens + self.expert_pad(tokens)) / self.rate()).to(SECOND)
        a_comp = ((attention * batch + prompt_attn * prompts) / self.rate()).to(SECOND)
        gemms_then_attention = max(w_mem, w_comp) + max(self.t_cache(batch), a_comp)
        busy = max(gemms_then_attention, self.floor()) + self.expert_start() * touched
        return busy + self.fixed() + self.per_seq() * batch + self.comm()[1] * tokens

    def prefill(self) -> Quantity:
        return prefill(self.arch, self.gpu, self.rt, self.fmt, self.prompt, self.tp)

    def rps(self, batch: int) -> Quantity:
        if self.rt.continuous_batching:
            return (batch * REQUEST / (self.output * self.mixed(batch))).to(REQUEST / SECOND)
        return (1.0 * REQUEST / (self.output * self.step(batch)[0] / batch + self.prefill())).to(
            REQUEST / SECOND
        )

    def prompt_share(self, batch: int) -> Quantity:
        """Replica time one prompt costs riding in saturated steps of ``batch``."""
        return max(0.0 * SECOND, self.output * (self.mixed(batch) - self.step(batch)[0]) / batch)

    def point(self, batch: int) -> Point:
        step, bound = self.step(batch)
        rps = self.rps(batch)
        ttft = (self.prefill() + (step / 2 if batch > 1 else 0.0 * SECOND)).to(MS)
        per_seq = (1.0 * TOKEN / step).to(TOKEN / SECOND)
        return Point(batch, step.to(MS), per_seq, (rps * self.output * TOKEN / REQUEST), ttft, rps, bound)
