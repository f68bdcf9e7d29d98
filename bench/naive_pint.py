"""The serving search written the naive way: every scalar a pint quantity.

This is the baseline the issue asks the engine to be compared with ("the same work done
with naive per-scalar pint"). It walks the same offers × formats × TP degrees, runs the
same memory check, the same batch and replica/QPS binary searches and the same decode /
prefill formulas as ``engine.serving_search.search`` (see ``engine.memory`` and
``engine.throughput`` for the formulas and their sources), but each intermediate value
is a ``engine.units.ureg`` quantity — bytes, GB/s, seconds, FLOP, tokens, requests —
converted with ``.to()`` where a careful author would, and never stripped to a float
until a count (a batch size, a replica count) has to be an integer.

What is not arithmetic is reused from the engine: defaults, runtime choice, the card's
format, TP options, format support, dtype tables and the price quotes (pint has no
currencies). ``assert_matches_engine`` proves the two give the same numbers, so the
timing comparison is like-for-like.
"""

# pint types its operators as returning Any, so every quantity expression here would be
# an "Any returned" error under strict mypy; the declared Quantity returns are accurate.
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import math
from dataclasses import dataclass

from gpu_advisor.engine import cost, serving_search
from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.defaults import ServeSetup, runtime_for
from gpu_advisor.engine.dtypes import FORMATS, KV_BYTES
from gpu_advisor.engine.interconnect import (
    NVLINK_EFFICIENCY,
    NVLINK_HOP_LATENCY_S,
    NVLS_EFFICIENCY,
    PCIE_EFFICIENCY_NO_P2P,
    PCIE_EFFICIENCY_P2P,
    PCIE_HOP_LATENCY_S,
)
from gpu_advisor.engine.memory import PREFILL_CHUNK_TOKENS
from gpu_advisor.engine.serving_capacity import MAX_REPLICAS
from gpu_advisor.engine.serving_search import card_format, format_supported, tp_options
from gpu_advisor.engine.specs import GpuSpec, Interconnect, Knowledge, ModelArch, Offer, RuntimeProfile
from gpu_advisor.engine.units import Quantity, ureg

if "flop" not in ureg:
    ureg.define("flop = [flop]")

BYTE = ureg.byte
SECOND = ureg.second
MS = ureg.millisecond
TOKEN = ureg.token
REQUEST = ureg.request
FLOP = ureg.flop
GB_PER_S = ureg.gigabyte / ureg.second
TFLOP_PER_S = ureg.teraflop / ureg.second
BYTES_PER_TOKEN = ureg.byte / ureg.token
RPS = ureg.request / ureg.second
REL_TOL = 1e-6


def count(q: Quantity) -> float:
    """A dimensionless ratio of quantities as a plain number (batch sizes, replica counts)."""
    return float(q.to(ureg.dimensionless).magnitude)


# ---- memory (engine.memory, engine.dtypes) -------------------------------------------


def weight_bytes(params: float, embedding_params: float, fmt: str) -> Quantity:
    spec = FORMATS[fmt]
    bits_per_weight = spec.bits * ureg.bit
    if spec.keeps_embeddings_16bit:
        body = max(params - embedding_params, 0.0)
        return (body * bits_per_weight).to(BYTE) + embedding_params * 2.0 * BYTE
    return (params * bits_per_weight).to(BYTE)


def serving_weight_bytes(arch: ModelArch, fmt: str, tp: int) -> Quantity:
    return weight_bytes(arch.params_b * 1e9, arch.embedding_params, fmt) / tp


def kv_bytes_per_token(arch: ModelArch, kv_dtype: str, tp: int) -> Quantity:
    heads = math.ceil(arch.num_kv_heads / tp)
    return 2.0 * arch.layers * heads * arch.head_dim * KV_BYTES[kv_dtype] * BYTES_PER_TOKEN


def serving_overhead_bytes(arch: ModelArch, runtime_overhead_gib: float, batch: int, tp: int) -> Quantity:
    chunk_tokens = PREFILL_CHUNK_TOKENS * TOKEN
    chunk = chunk_tokens * (4 * arch.hidden_size + 3 * arch.intermediate_size / tp) * 2.0 * BYTES_PER_TOKEN
    logits = batch * arch.vocab_size * 4.0 * BYTE / tp
    return (runtime_overhead_gib * ureg.GiB).to(BYTE) + chunk.to(BYTE) + logits


def capacity(offer: Offer, gpu: GpuSpec) -> Quantity:
    return ((offer.slice_memory_gib or gpu.usable_gib) * ureg.GiB).to(BYTE)


# ---- interconnect (engine.interconnect) ----------------------------------------------


def link_bandwidth(gpu: GpuSpec, interconnect: Interconnect) -> Quantity:
    if interconnect in ("nvlink", "nvswitch") and gpu.nvlink_gbs > 0:
        nvls = interconnect == "nvswitch" and gpu.compute_capability >= 9.0
        return gpu.nvlink_gbs * GB_PER_S / 2 * (NVLS_EFFICIENCY if nvls else NVLINK_EFFICIENCY)
    eff = PCIE_EFFICIENCY_NO_P2P if gpu.segment == "consumer" else PCIE_EFFICIENCY_P2P
    return gpu.pcie_gbs_per_direction * GB_PER_S * eff


def hop_latency(gpu: GpuSpec, interconnect: Interconnect) -> Quantity:
    nvlink = interconnect in ("nvlink", "nvswitch") and gpu.nvlink_gbs > 0
    return (NVLINK_HOP_LATENCY_S if nvlink else PCIE_HOP_LATENCY_S) * SECOND


def allreduce(size: Quantity, n: int, bus: Quantity, hop: Quantity) -> Quantity:
    if n <= 1:
        return 0.0 * SECOND
    return (2 * (n - 1) / n * size / bus).to(SECOND) + 2 * (n - 1) * hop


def tp_decode_comm(arch: ModelArch, batch: int, tp: int, gpu: GpuSpec, ic: Interconnect) -> Quantity:
    if tp <= 1:
        return 0.0 * SECOND
    msg = batch * arch.hidden_size * 2.0 * BYTE
    one = allreduce(msg, tp, link_bandwidth(gpu, ic), hop_latency(gpu, ic))
    return 2 * arch.layers * one


# ---- throughput (engine.throughput) --------------------------------------------------


@dataclass(frozen=True, slots=True)
class Point:
    batch: int
    step: Quantity
    tokens_per_s_per_seq: Quantity
    tokens_per_s: Quantity
    ttft: Quantity
    requests_per_s: Quantity
    bound: str


def compute_rate(gpu: GpuSpec, fmt: str, rt: RuntimeProfile) -> Quantity:
    """The card's dense rate for the format (a table lookup), discounted by the runtime's kernels."""
    return gpu.tflops(FORMATS[fmt].compute) * TFLOP_PER_S * rt.format_compute_efficiency.get(fmt, 1.0)


def runtime_bandwidth(rt: RuntimeProfile, gpu: GpuSpec, fmt: str) -> Quantity:
    achieved = gpu.bandwidth_gbs * GB_PER_S * rt.decode_bw_efficiency * rt.format_bw_efficiency.get(fmt, 1.0)
    if rt.max_decode_bw_gbs:
        return min(achieved, rt.max_decode_bw_gbs * GB_PER_S)
    return achieved


def moe_weight_bytes(arch: ModelArch, weights: Quantity, batch: int) -> Quantity:
    if arch.num_experts == 1:
        return weights
    e, k = arch.num_experts, arch.experts_per_token
    touched = 1.0 - (1.0 - k / e) ** batch
    mlp_params = 3 * arch.hidden_size * arch.intermediate_size * arch.num_experts * arch.layers
    mlp = weights * min(mlp_params / (arch.params_b * 1e9), 1.0)
    return weights - mlp + mlp * touched


def decode_step(
    arch: ModelArch,
    gpu: GpuSpec,
    rt: RuntimeProfile,
    fmt: str,
    kv_dtype: str,
    batch: int,
    avg: Quantity,
    tp: int,
    comm: Quantity,
) -> tuple[Quantity, str]:
    weights = moe_weight_bytes(arch, serving_weight_bytes(arch, fmt, tp), batch)
    kv = kv_bytes_per_token(arch, kv_dtype, tp) * avg * batch
    t_mem = ((weights + kv) / runtime_bandwidth(rt, gpu, fmt)).to(SECOND)
    flops = 2.0 * arch.active_b * 1e9 * batch / tp * FLOP
    flops += 4.0 * arch.layers * arch.num_heads * arch.head_dim * avg.to(TOKEN).magnitude * batch / tp * FLOP
    rate = compute_rate(gpu, fmt, rt) * rt.decode_compute_efficiency
    t_comp = (flops / rate).to(SECOND)
    t_floor = (arch.layers * rt.min_step_ms_per_layer * MS).to(SECOND)
    bound = "memory" if t_mem >= t_comp else "compute"
    if t_floor > max(t_mem, t_comp):
        bound = "launch"
    return max(t_mem, t_comp, t_floor) + (rt.step_overhead_ms * MS).to(SECOND) + comm, bound


def prefill(
    arch: ModelArch, gpu: GpuSpec, rt: RuntimeProfile, fmt: str, prompt: Quantity, tp: int
) -> Quantity:
    p = prompt.to(TOKEN).magnitude
    flops = 2.0 * arch.active_b * 1e9 * p * FLOP
    flops += 2.0 * arch.layers * p * p * arch.num_heads * arch.head_dim * FLOP
    compute = (flops / tp / (compute_rate(gpu, fmt, rt) * rt.prefill_mfu)).to(SECOND)
    return compute + (rt.prefill_overhead_ms * MS + rt.step_overhead_ms * MS).to(SECOND)


def point(
    arch: ModelArch, gpu: GpuSpec, rt: RuntimeProfile, fmt: str, s: ServeSetup, b: int, tp: int, offer: Offer
) -> Point:
    comm = tp_decode_comm(arch, b, tp, gpu, offer.interconnect)
    prompt, output = s.prompt_tokens * TOKEN, s.output_tokens * TOKEN
    avg = s.resident_tokens * TOKEN  # the tokens a sequence holds on average, as the engine
    step, bound = decode_step(arch, gpu, rt, fmt, s.kv_dtype, b, avg, tp, comm)
    pre = prefill(arch, gpu, rt, fmt, prompt, tp)
    per_request = output.to(TOKEN).magnitude * step / b + pre
    rps = (1.0 * REQUEST / per_request).to(RPS)
    ttft = (pre + (step / 2 if b > 1 else 0.0 * SECOND)).to(MS)
    per_seq = (1.0 * TOKEN / step).to(TOKEN / SECOND)
    return Point(b, step.to(MS), per_seq, per_seq * b, ttft, rps, bound)


# ---- the search (engine.serving_search) ----------------------------------------------


@dataclass(slots=True)
class NaiveCandidate:
    offer: Offer
    weight_dtype: str
    tensor_parallel: int
    replicas: int
    batch: int
    machines: int
    weights: Quantity
    kv_cache: Quantity
    overhead: Quantity
    kv_full_context: Quantity
    max_batch: int
    capacity: Quantity
    monthly: cost.Quote
    job: cost.Quote | None
    decode_tokens_per_s: Quantity
    aggregate_tokens_per_s: Quantity
    ttft: Quantity
    requests_per_s: Quantity
    bound: str
    meets_latency: bool

    @property
    def memory_total(self) -> Quantity:
        return self.weights + self.kv_cache + self.overhead


@dataclass(frozen=True, slots=True)
class Option:
    """One (offer, format, TP degree) to evaluate, with the records it needs."""

    arch: ModelArch
    s: ServeSetup
    offer: Offer
    gpu: GpuSpec
    rt: RuntimeProfile
    fmt: str
    tp: int

    def at(self, batch: int) -> Point:
        return point(self.arch, self.gpu, self.rt, self.fmt, self.s, batch, self.tp, self.offer)


def batch_for_qps(o: Option, target: Quantity, bmax: int) -> int | None:
    if o.at(bmax).requests_per_s < target:
        return None
    lo, hi = 1, bmax
    while lo < hi:
        mid = (lo + hi) // 2
        if o.at(mid).requests_per_s >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def replicas_and_batch(o: Option, bmax: int) -> tuple[int, int] | None:
    s = o.s
    replicas = math.ceil(s.concurrency / bmax)
    if s.qps is None:
        return replicas, math.ceil(s.concurrency / replicas)
    qps = s.qps * RPS
    while replicas <= MAX_REPLICAS:
        b = batch_for_qps(o, qps / replicas, bmax)
        if b is not None:
            return replicas, max(b, math.ceil(s.concurrency / replicas))
        best = o.at(bmax).requests_per_s
        replicas = max(replicas + 1, math.ceil(count(qps / best)))
    return None


def max_batch_for_memory(free: Quantity, per_seq: Quantity, cap: int) -> int:
    if per_seq <= 0 * BYTE:
        return cap
    return max(0, min(cap, math.floor(count(free / per_seq))))


def evaluate(o: Option, duration_hours: float | None) -> NaiveCandidate | None:
    arch, s, rt = o.arch, o.s, o.rt
    usable = capacity(o.offer, o.gpu) * rt.memory_utilization
    weights = serving_weight_bytes(arch, o.fmt, o.tp)
    overhead = serving_overhead_bytes(arch, rt.overhead_gib, min(s.concurrency, rt.max_batch), o.tp)
    kv_tok = kv_bytes_per_token(arch, s.kv_dtype, o.tp)
    free = usable - weights - overhead
    if free < kv_tok * (s.context_len * TOKEN):
        return None
    per_seq = kv_tok * (s.resident_tokens * TOKEN)  # paged KV: prompt + half the answer, as the engine
    bmax = max_batch_for_memory(free, per_seq, rt.max_batch)
    found = replicas_and_batch(o, bmax)
    if found is None:
        return None
    replicas, batch = found
    p = o.at(batch)
    machines = math.ceil(replicas / (o.offer.count // o.tp))
    return NaiveCandidate(
        offer=o.offer,
        weight_dtype=o.fmt,
        tensor_parallel=o.tp,
        replicas=replicas,
        batch=batch,
        machines=machines,
        weights=weights,
        kv_cache=(per_seq * batch).to(BYTE),
        overhead=overhead,
        kv_full_context=(kv_tok * s.context_len * TOKEN).to(BYTE),
        max_batch=bmax,
        capacity=capacity(o.offer, o.gpu),
        monthly=cost.always_on(o.offer, machines),
        job=cost.job(o.offer, duration_hours, machines) if duration_hours else None,
        decode_tokens_per_s=p.tokens_per_s_per_seq,
        aggregate_tokens_per_s=p.tokens_per_s * replicas,
        ttft=p.ttft,
        requests_per_s=p.requests_per_s * replicas,
        bound=p.bound,
        meets_latency=s.ttft_ms_max is None or p.ttft <= s.ttft_ms_max * MS,
    )


def search(
    arch: ModelArch, s: ServeSetup, kb: Knowledge, offers: list[Offer], duration_hours: float | None
) -> list[NaiveCandidate]:
    """Every feasible (offer, format, TP) candidate, in the engine's order."""
    out: list[NaiveCandidate] = []
    for offer in offers:
        gpu = kb.gpus[offer.gpu]
        for wanted in s.formats:
            fmt = card_format(wanted, gpu)
            rt = kb.runtimes[runtime_for(fmt, s.runtime)]
            if not format_supported(fmt, gpu, rt):
                continue
            for tp in tp_options(arch, offer, s.tensor_parallel):
                cand = evaluate(Option(arch, s, offer, gpu, rt, fmt, tp), duration_hours)
                if cand is not None:
                    out.append(cand)
    return out


# ---- like-for-like check --------------------------------------------------------------


def close(a: float, b: float, what: str) -> None:
    if not math.isclose(a, b, rel_tol=REL_TOL, abs_tol=0.0):
        raise AssertionError(f"{what}: naive {a!r} != engine {b!r}")


def assert_matches_engine(
    arch: ModelArch, s: ServeSetup, kb: Knowledge, offers: list[Offer], duration_hours: float | None
) -> int:
    """Raise AssertionError unless both searches give the same candidates and numbers; return the count."""
    engine = serving_search.search(arch, s, kb, offers, duration_hours)
    naive = search(arch, s, kb, offers, duration_hours)
    key_e = [(c.offer.id, c.weight_dtype, c.tensor_parallel, c.replicas, c.batch) for c in engine]
    key_n = [(c.offer.id, c.weight_dtype, c.tensor_parallel, c.replicas, c.batch) for c in naive]
    if key_e != key_n:
        raise AssertionError(f"candidates differ: naive {key_n} != engine {key_e}")
    for e, n in zip(engine, naive, strict=True):
        _check_candidate(e, n)
    return len(engine)


def _check_candidate(e: Candidate, n: NaiveCandidate) -> None:
    label = f"{e.offer.id}/{e.weight_dtype}/tp{e.tensor_parallel}"
    # A missing engine figure becomes NaN, which no naive number is close to.
    close(n.memory_total.to(BYTE).magnitude, e.memory.total, f"{label} memory total")
    tok_s = n.decode_tokens_per_s.to(TOKEN / SECOND).magnitude
    close(tok_s, e.decode_tokens_per_s or math.nan, f"{label} decode tok/s")
    close(n.requests_per_s.to(RPS).magnitude, e.requests_per_s or math.nan, f"{label} requests/s")
    close(n.ttft.to(MS).magnitude, e.ttft_ms or math.nan, f"{label} ttft")
    naive = (n.machines, n.max_batch, n.bound, n.meets_latency)
    engine = (e.machines, e.memory.notes["max_batch"], e.bound, e.meets_latency)
    if naive != engine:
        raise AssertionError(f"{label}: machines/max batch/bound/latency naive {naive} != engine {engine}")
