"""Search offers × weight formats × tensor-parallel degrees × replica counts for serving.

For each combination we ask: do the weights, the runtime's overhead and at least one
full-context sequence fit in the runtime's share of memory? How many sequences fit
at the expected prompt+answer length (vLLM pages the KV cache, so a sequence only
holds what it has generated so far)? How many replicas does the concurrency or QPS
target need, and what does that many machines cost? Everything here runs on floats.
"""

from __future__ import annotations

import math

from engine import cost
from engine.candidates import Candidate
from engine.defaults import ServeSetup, runtime_for
from engine.interconnect import tp_decode_comm_s
from engine.memory import Memory, kv_bytes_per_token, serving_overhead_bytes, serving_weight_bytes
from engine.specs import GpuSpec, Knowledge, ModelArch, Offer, RuntimeProfile
from engine.throughput import ServingPoint, max_batch_for_memory, serving_point
from engine.units import GiB

MAX_REPLICAS = 256
TP_DEGREES = (1, 2, 4, 8)


def capacity_bytes(offer: Offer, gpu: GpuSpec) -> float:
    return (offer.slice_memory_gib or gpu.usable_gib) * GiB


def format_supported(fmt: str, gpu: GpuSpec, rt: RuntimeProfile) -> bool:
    """The runtime has kernels for ``fmt`` on this card's compute capability."""
    if fmt not in rt.formats:
        return False
    return gpu.compute_capability >= rt.min_compute_capability.get(fmt, 0.0)


def card_format(fmt: str, gpu: GpuSpec) -> str:
    """bf16 on a card without bf16 (T4, V100) is served as fp16: same bytes, same quality."""
    return "fp16" if fmt == "bf16" and not gpu.supports("bf16") else fmt


def tp_options(arch: ModelArch, offer: Offer, requested: int | None) -> list[int]:
    """TP degrees that divide the head count and fit in one machine (a MIG slice cannot split)."""
    if requested:
        return [requested] if requested <= offer.count and arch.num_heads % requested == 0 else []
    if offer.is_slice:
        return [1]
    return [t for t in TP_DEGREES if t <= offer.count and arch.num_heads % t == 0]


def _point(
    arch: ModelArch, gpu: GpuSpec, rt: RuntimeProfile, fmt: str, s: ServeSetup, b: int, tp: int, offer: Offer
) -> ServingPoint:
    comm = tp_decode_comm_s(arch.hidden_size, arch.layers, b, tp, gpu, offer.interconnect)
    return serving_point(arch, gpu, rt, fmt, s.kv_dtype, b, s.prompt_tokens, s.output_tokens, tp, comm)


def _batch_for_qps(
    arch: ModelArch,
    gpu: GpuSpec,
    rt: RuntimeProfile,
    fmt: str,
    s: ServeSetup,
    tp: int,
    offer: Offer,
    target_rps: float,
    bmax: int,
) -> int | None:
    """Smallest batch whose request rate reaches ``target_rps`` (rps grows with batch)."""
    if _point(arch, gpu, rt, fmt, s, bmax, tp, offer).requests_per_s < target_rps:
        return None
    lo, hi = 1, bmax
    while lo < hi:
        mid = (lo + hi) // 2
        if _point(arch, gpu, rt, fmt, s, mid, tp, offer).requests_per_s >= target_rps:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _replicas_and_batch(
    arch: ModelArch,
    gpu: GpuSpec,
    rt: RuntimeProfile,
    fmt: str,
    s: ServeSetup,
    tp: int,
    offer: Offer,
    bmax: int,
) -> tuple[int, int] | None:
    replicas = math.ceil(s.concurrency / bmax)
    if s.qps is None:
        return replicas, math.ceil(s.concurrency / replicas)
    while replicas <= MAX_REPLICAS:
        b = _batch_for_qps(arch, gpu, rt, fmt, s, tp, offer, s.qps / replicas, bmax)
        if b is not None:
            return replicas, max(b, math.ceil(s.concurrency / replicas))
        best = _point(arch, gpu, rt, fmt, s, bmax, tp, offer).requests_per_s
        replicas = max(replicas + 1, math.ceil(s.qps / best))
    return None


def evaluate(
    arch: ModelArch,
    s: ServeSetup,
    offer: Offer,
    gpu: GpuSpec,
    rt: RuntimeProfile,
    fmt: str,
    tp: int,
    duration_hours: float | None,
) -> Candidate | None:
    """The cheapest way to meet ``s`` on ``offer`` with this format and TP degree, or None."""
    usable = capacity_bytes(offer, gpu) * rt.memory_utilization
    weights = serving_weight_bytes(arch, fmt, tp)
    overhead = serving_overhead_bytes(arch, rt.overhead_gib, min(s.concurrency, rt.max_batch), tp)
    kv_tok = kv_bytes_per_token(arch, s.kv_dtype, tp)
    free = usable - weights - overhead
    if free < kv_tok * s.context_len:
        return None
    bmax = max_batch_for_memory(free, kv_tok * (s.prompt_tokens + s.output_tokens), rt.max_batch)
    found = _replicas_and_batch(arch, gpu, rt, fmt, s, tp, offer, bmax)
    if found is None:
        return None
    replicas, batch = found
    point = _point(arch, gpu, rt, fmt, s, batch, tp, offer)
    machines = math.ceil(replicas / (offer.count // tp))
    memory = Memory(
        weights=weights, kv_cache=kv_tok * (s.prompt_tokens + s.output_tokens) * batch, overhead=overhead
    )
    memory.notes["kv_full_context_bytes"] = kv_tok * s.context_len
    memory.notes["max_batch"] = bmax
    return Candidate(
        task="infer",
        offer=offer,
        gpu=gpu,
        gpus_per_machine=offer.count,
        machines=machines,
        memory=memory,
        capacity_bytes=capacity_bytes(offer, gpu),
        weight_dtype=fmt,
        monthly=cost.always_on(offer, machines),
        job=cost.job(offer, duration_hours, machines) if duration_hours else None,
        runtime=rt.id,
        tensor_parallel=tp,
        replicas=replicas,
        batch=batch,
        decode_tokens_per_s=point.tokens_per_s_per_seq,
        aggregate_tokens_per_s=point.tokens_per_s * replicas,
        ttft_ms=point.ttft_ms,
        requests_per_s=point.requests_per_s * replicas,
        bound=point.bound,
        meets_latency=s.ttft_ms_max is None or point.ttft_ms <= s.ttft_ms_max,
    )


def search(
    arch: ModelArch, s: ServeSetup, kb: Knowledge, offers: list[Offer], duration_hours: float | None
) -> list[Candidate]:
    """Every feasible (offer, format, TP) candidate."""
    out: list[Candidate] = []
    for offer in offers:
        gpu = kb.gpus[offer.gpu]
        for wanted in s.formats:
            fmt = card_format(wanted, gpu)
            rt = kb.runtimes[runtime_for(fmt, s.runtime)]
            if not format_supported(fmt, gpu, rt):
                continue
            for tp in tp_options(arch, offer, s.tensor_parallel):
                cand = evaluate(arch, s, offer, gpu, rt, fmt, tp, duration_hours)
                if cand is not None:
                    out.append(cand)
    return out
