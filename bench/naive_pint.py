"""The serving search written the naive way: every scalar a pint quantity.

This is the baseline the issue asks the engine to be compared with ("the same work done
with naive per-scalar pint"). It walks the same offers × formats × TP degrees, runs the
same memory check (the runtime's KV pool, its per-step token budget), sizes replicas the
same way (a replica's capacity with its prompts riding in the decode steps, at the
utilisation target; the mean occupancy at the offered rate for the batch) and uses the
same affine step-time model (``bench.naive_pint_replica``, after ``engine.throughput``) as
``engine.serving_search.search`` (see ``engine.memory``, ``engine.throughput`` and
``engine.serving_capacity`` for the formulas and their sources), but each intermediate
value is a ``engine.units.ureg`` quantity — bytes, GB/s, seconds, FLOP, tokens, requests —
converted with ``.to()`` where a careful author would, and never stripped to a float
until a count (a batch size, a replica count) has to be an integer.

What is not arithmetic is reused from the engine: defaults, runtime choice, the card's
format, TP options, format support, dtype tables, per-card-class efficiency lookups,
parameter counts and the price quotes (pint has no currencies). ``assert_matches_engine``
proves the two give the same numbers, so the timing comparison is like-for-like. Replicas
that span machines, attention data parallelism and p99 targets are not re-implemented:
a workload that needs them fails the check instead of being timed against other work.
"""

# pint types its operators as returning Any, so every quantity expression here would be
# an "Any returned" error under strict mypy; the declared Quantity returns are accurate.
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
from gpu_advisor.engine.param_count import routed_expert_params
from gpu_advisor.engine.serving_capacity import MAX_REPLICAS
from gpu_advisor.engine.serving_search import card_format, format_supported, tp_options
from gpu_advisor.engine.specs import GpuSpec, Interconnect, Knowledge, ModelArch, Offer, RuntimeProfile
from gpu_advisor.engine.units import Quantity, ureg

if TYPE_CHECKING:
    from bench.naive_pint_replica import Replica

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
    params = arch.params_b * 1e9
    if fmt == arch.native_dtype and arch.native_dtype_scope == "experts":  # the rest stays bf16
        experts = routed_expert_params(arch)
        return ((experts * FORMATS[fmt].bits / 8 + (params - experts) * 2.0) * BYTE) / tp
    return weight_bytes(params, arch.embedding_params, fmt) / tp


def kv_per_sequence(arch: ModelArch, kv_dtype: str, tokens: Quantity, tp: int) -> Quantity:
    """KV bytes a sequence of ``tokens`` holds on one GPU, windowed layers capped at the window."""
    if arch.attention == "mla":
        elements = (arch.kv_lora_rank or 0) + (arch.qk_rope_head_dim or 0)
    else:
        elements = 2 * math.ceil(arch.num_kv_heads / tp) * arch.head_dim
    per_layer = elements * KV_BYTES[kv_dtype] * BYTES_PER_TOKEN
    windowed = arch.windowed_layers
    full = arch.layers - arch.linear_attention_layers - windowed
    return (per_layer * (full * tokens + windowed * min(tokens, (arch.sliding_window or 0) * TOKEN))).to(BYTE)


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


# ---- the search (engine.serving_search, engine.serving_capacity) ----------------------


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
    max_batch: int
    monthly: cost.Quote
    job: cost.Quote | None
    decode_tokens_per_s: Quantity
    ttft: Quantity
    requests_per_s: Quantity
    bound: str
    meets_latency: bool

    @property
    def memory_total(self) -> Quantity:
        return self.weights + self.kv_cache + self.overhead


def max_batch_for_memory(free: Quantity, per_seq: Quantity, cap: int) -> int:
    if per_seq <= 0 * BYTE:
        return cap
    return max(0, min(cap, math.floor(count(free / per_seq))))


def budget_slots(rt: RuntimeProfile, s: ServeSetup) -> int:
    """Sequences a step's token budget carries: one decode token each plus their prompt share."""
    per_seq = (1.0 + s.prompt_tokens / s.output_tokens) * TOKEN
    return max(1, min(rt.max_batch, math.floor(count(rt.max_num_batched_tokens * TOKEN / per_seq))))


def kv_room(rt: RuntimeProfile, card: Quantity, placed: Quantity, share: float) -> Quantity:
    """What weights, reserve and pool may fill: ``share`` of the card (the runtime's rule,
    ``RuntimeProfile.memory_share``), or TensorRT-LLM's share of what is left free."""
    if rt.kv_pool_of_free is None:
        return card * share
    return placed + rt.kv_pool_of_free * max(0.0 * BYTE, card - placed)


def capacity_rps(r: Replica, slots: int, share: Quantity) -> Quantity:
    """Every slot busy, prompts riding in the steps: λ·out·t(slots)/slots + λ·share = 1."""
    return (1.0 * REQUEST / (r.output * r.step(slots)[0] / slots + share)).to(RPS)


def occupancy(r: Replica, slots: int, qps: Quantity, share: Quantity) -> float | None:
    """Mean sequences decoding at ``qps``: n = λ·out·t(n)/(1 − λ·share); None past capacity."""
    rho = count(qps * share / REQUEST)
    if qps >= capacity_rps(r, slots, share) or rho >= 1.0:
        return None
    n = 0.0
    for _ in range(200):
        nxt = count(qps * r.step(max(1, math.ceil(n)))[0] / REQUEST) * r.output / (1.0 - rho)
        if nxt >= slots:
            return float(slots)
        if abs(nxt - n) < 1e-6:
            return nxt
        n = nxt
    return n


def size(r: Replica, s: ServeSetup, slots: int) -> tuple[int, int] | None:
    """Replicas and the batch each runs, at ``s.utilisation`` of a replica's capacity."""
    if s.ttft_p99_s is not None or s.tpot_p99_s is not None:
        raise NotImplementedError("the naive search has no p99 break-point search")
    share = r.prompt_share(slots) * (s.prompt_tokens - s.shared_prefix) / s.prompt_tokens
    replicas = math.ceil(s.concurrency / slots)
    if s.qps is not None:
        per = s.utilisation * capacity_rps(r, slots, share)
        replicas = max(replicas, math.ceil(count(s.qps * RPS / per) - 1e-9))
    if replicas > MAX_REPLICAS:
        return None
    if s.qps is None:
        return replicas, math.ceil(s.concurrency / replicas)
    busy = occupancy(r, slots, s.qps * RPS / replicas, share)
    held = slots if busy is None else math.ceil(busy)
    return replicas, min(slots, max(held, math.ceil(s.concurrency / replicas)))


def evaluate(
    arch: ModelArch, s: ServeSetup, offer: Offer, replica: Replica, duration_hours: float | None
) -> NaiveCandidate | None:
    rt, tp = replica.rt, replica.tp
    weights = serving_weight_bytes(arch, replica.fmt, tp)
    overhead = serving_overhead_bytes(arch, rt.overhead_gib, min(s.concurrency, rt.max_batch), tp)
    kv_seq = kv_per_sequence(arch, s.kv_dtype, s.resident_tokens * TOKEN, tp)
    card = capacity(offer, replica.gpu)
    share = rt.memory_share(replica.gpu, tp, s.attention_dp, float(card.to(ureg.GiB).magnitude))
    free = kv_room(rt, card, weights + overhead, share) - weights - overhead
    if free < kv_per_sequence(arch, s.kv_dtype, s.context_len * TOKEN, tp):
        return None
    bmax = max_batch_for_memory(free, kv_seq, budget_slots(rt, s))
    found = size(replica, s, bmax) if bmax >= 1 else None
    if found is None:
        return None
    replicas, batch = found
    p = replica.point(batch)
    machines = math.ceil(replicas / (offer.count // tp))
    return NaiveCandidate(
        offer=offer,
        weight_dtype=replica.fmt,
        tensor_parallel=tp,
        replicas=replicas,
        batch=batch,
        machines=machines,
        weights=weights,
        kv_cache=(kv_seq * batch).to(BYTE),
        overhead=overhead,
        max_batch=bmax,
        monthly=cost.always_on(offer, machines),
        job=cost.job(offer, duration_hours, machines) if duration_hours else None,
        decode_tokens_per_s=p.tokens_per_s_per_seq,
        ttft=p.ttft,
        requests_per_s=p.requests_per_s * replicas,
        bound=p.bound,
        meets_latency=s.ttft_ms_max is None or p.ttft <= s.ttft_ms_max * MS,
    )


def search(
    arch: ModelArch, s: ServeSetup, kb: Knowledge, offers: list[Offer], duration_hours: float | None
) -> list[NaiveCandidate]:
    """Every feasible (offer, format, TP) candidate on one machine, in the engine's order (replicas
    spanning machines and attention data parallelism are not re-implemented: the check refuses them)."""
    from bench.naive_pint_replica import Replica  # it builds on the units and memory above

    if s.attention_dp:
        raise NotImplementedError("the naive search has no attention data parallelism")
    out: list[NaiveCandidate] = []
    for offer in offers:
        gpu = kb.gpus[offer.gpu]
        for wanted in s.formats:
            fmt = card_format(wanted, gpu)
            rt = kb.runtimes[runtime_for(fmt, s.runtime)]
            if not format_supported(fmt, gpu, rt):
                continue
            served = rt.as_run(arch)  # the model as this runtime serves it (its windows)
            for tp in tp_options(arch, offer, s.tensor_parallel):
                replica = Replica(
                    served, gpu, rt, fmt, s.kv_dtype, s.prompt_tokens, s.output_tokens, tp, offer.interconnect
                )
                cand = evaluate(served, s, offer, replica, duration_hours)
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
