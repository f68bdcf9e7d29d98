"""One replica on a card: what each GPU holds, how many users run at once, and its queue.

The one sizing path every serving answer takes — the recommender's layouts
(``serving_search.prepare``), ``estimate``'s verdict on named hardware, and the
comparison with published serving runs (``bench/serving_compare.py``) — so the
figures the JSON contract returns are the figures that were checked against silicon.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TypeVar

from gpu_advisor.engine import break_points, serving_capacity, throughput
from gpu_advisor.engine.defaults import ServeSetup
from gpu_advisor.engine.dtypes import FORMATS
from gpu_advisor.engine.interconnect import hop_latency_s, link_gbs, tp_decode_comm
from gpu_advisor.engine.memory import (
    Memory,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    serving_overhead_bytes,
    serving_weight_bytes,
)
from gpu_advisor.engine.param_count import attention_params
from gpu_advisor.engine.queueing import ReplicaShape
from gpu_advisor.engine.specs import GpuSpec, Interconnect, ModelArch, RuntimeProfile
from gpu_advisor.engine.throughput import ReplicaModel, max_batch_for_memory
from gpu_advisor.engine.units import GiB

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class PerGpu:
    """What one GPU of a replica holds, and how many users that leaves room for.

    The one sizing rule ``estimate`` and the recommender share: each user holds
    ``ServeSetup.resident_tokens`` of KV cache (``engine.defaults.resident_tokens``: the
    window the user stated, else prompt + answer — vLLM's paged cache holds only what a
    request has, Kwon et al. 2023), and the cache must also fit one whole window, or vLLM
    refuses to start ("max seq len ... is larger than the maximum number of tokens that
    can be stored in KV cache").
    """

    weights: float
    overhead: float
    kv_seq: float  # KV bytes one user holds
    kv_full: float  # KV bytes one full-window sequence holds

    def users(self, usable: float, runtime_cap: int) -> int:
        """Users one replica holds at once in ``usable`` bytes per GPU; 0 when not even a window fits."""
        free = usable - self.weights - self.overhead
        if free < self.kv_full:
            return 0
        return max_batch_for_memory(free, self.kv_seq, runtime_cap)

    def memory(self, users: int) -> Memory:
        """Per-GPU memory for ``users`` at once: it fits exactly when ``users(...) >= users``."""
        kv = max(self.kv_full, self.kv_seq * users)
        return Memory(weights=self.weights, kv_cache=kv, overhead=self.overhead)


def kv_room(rt: RuntimeProfile, capacity: float, held: PerGpu, group: tuple[GpuSpec, int, bool]) -> float:
    """Bytes per GPU the runtime lets weights, reserve and KV pool use together; ``group`` is
    the replica's (card, TP degree, attention DP).

    vLLM and SGLang size the pool from a share of the whole card
    (``RuntimeProfile.memory_share``: ``gpu_memory_utilization``, ``mem_fraction_static``);
    TensorRT-LLM gives the KV cache a share of what is still free once weights and
    activations are placed (``kv_cache_free_gpu_mem_fraction``).
    """
    if rt.kv_pool_of_free is None:
        gpu, tp, attention_dp = group
        return capacity * rt.memory_share(gpu, tp, attention_dp, capacity / GiB)
    placed = held.weights + held.overhead
    return placed + rt.kv_pool_of_free * max(0.0, capacity - placed)


def budget_slots(rt: RuntimeProfile, s: ServeSetup, tp: int = 1) -> int:
    """Sequences a replica keeps running in steady state under its per-step token budget.

    Each step carries one decode token per sequence plus their share of prompt chunks,
    B·(1 + prompt/output) tokens, which may not exceed ``max_num_batched_tokens``.
    Under attention data parallelism each of the ``tp`` ranks schedules its own batch,
    under the limits ``RuntimeProfile.step_limits`` gives a rank.
    """
    per_seq = 1.0 + s.prompt_tokens / s.output_tokens
    ranks = tp if s.attention_dp else 1
    seqs, tokens = rt.step_limits(ranks)
    return ranks * max(1, min(seqs, math.floor(tokens / per_seq)))


def admitted_tokens(rt: RuntimeProfile, s: ServeSetup) -> int:
    """KV tokens the runtime holds for each running request.

    A paged runtime holds what a request has so far (``ServeSetup.resident_tokens``);
    TensorRT-LLM's default scheduler (GUARANTEED_NO_EVICT) admits a request only once
    the pool can hold its prompt and its whole answer, so that much stays reserved while
    it runs, though on average only half the answer is written.
    """
    if rt.admission == "whole_request":
        return max(s.resident_tokens, s.prompt_tokens + s.output_tokens)
    return s.resident_tokens


def per_gpu(arch: ModelArch, s: ServeSetup, fmt: str, tp: int, rt: RuntimeProfile, pp: int = 1) -> PerGpu:
    """Weights, overhead and KV per GPU of a replica split ``tp`` ways inside and ``pp`` across machines.

    Under attention data parallelism (``s.attention_dp``, SGLang with expert parallel)
    each of the ``tp`` GPUs keeps the whole attention block and the cache of its own
    1/tp of the sequences, while the experts stay split: an MLA latent that tensor
    parallelism copies onto every rank is then held once.
    """
    arch = rt.as_run(arch)
    weights = serving_weight_bytes(arch, fmt, tp)
    kv_split = tp
    if s.attention_dp and tp > 1:
        attention = attention_params(arch) * arch.layers * FORMATS[fmt].bits / 8
        weights += attention * (1.0 - 1.0 / tp)
        kv_split = 1
    share = tp if s.attention_dp else 1
    return PerGpu(
        weights=weights / pp,
        overhead=serving_overhead_bytes(arch, rt.overhead_gib, min(s.concurrency, rt.max_batch), tp),
        kv_seq=kv_bytes_per_sequence(arch, s.kv_dtype, admitted_tokens(rt, s), kv_split) / pp / share,
        kv_full=kv_bytes_per_sequence(arch, s.kv_dtype, s.context_len, kv_split) / pp / share,
    )


def replica_model(
    arch: ModelArch,
    s: ServeSetup,
    place: tuple[GpuSpec, RuntimeProfile, str, int],
    link: Interconnect,
    stages: tuple[int, float] = (1, 0.0),
) -> ReplicaModel:
    """One replica's speed: ``place`` is (card, runtime, weight format, TP degree)."""
    gpu, rt, fmt, tp = place
    arch = rt.as_run(arch)
    comm = tp_decode_comm(arch.hidden_size, arch.layers, tp, gpu, link)
    if s.attention_dp and arch.is_moe and tp > 1:
        comm = expert_parallel_comm(arch, tp, gpu, link)
    return ReplicaModel(
        arch, gpu, rt, fmt, s.kv_dtype, s.prompt_tokens, s.output_tokens, tp, comm, stages, s.attention_dp
    )


def expert_parallel_comm(arch: ModelArch, ep: int, gpu: GpuSpec, link: Interconnect) -> tuple[float, float]:
    """(fixed, per-token) seconds of expert-parallel dispatch and combine under attention DP.

    In place of tensor parallelism's all-reduces, each MoE layer sends every token to
    its k experts and back: 3·k·h bytes (FP8 dispatch, bf16 combine, as DeepEP does),
    (ep−1)/ep of it to other GPUs, and each GPU sends only its own 1/ep of the batch;
    two all-to-all latencies per MoE layer.
    """
    volume = 3.0 * arch.experts_per_token * arch.hidden_size * arch.moe_layers * (ep - 1) / ep
    per_token = volume / ep / (link_gbs(gpu, link) * 1e9)
    return 2 * arch.moe_layers * hop_latency_s(gpu, link), per_token


def board_link(gpu: GpuSpec) -> Interconnect:
    """The link between a named card's GPUs when no offer says: SXM boards are switched (HGX)."""
    if not gpu.nvlink_gbs:
        return "pcie"
    return "nvswitch" if gpu.form_factor == "sxm" else "nvlink"


@dataclass(frozen=True, slots=True)
class Replica:
    """One replica placed: per-GPU holdings, the room the runtime gives them, users at once, speed, queue."""

    held: PerGpu
    room: float
    slots: int
    model: ReplicaModel
    shape: ReplicaShape

    def kv_pool_tokens(self, arch: ModelArch, s: ServeSetup, tp: int) -> float:
        """Tokens the KV pool holds per replica: the figure a runtime prints at start-up."""
        return (self.room - self.held.weights - self.held.overhead) / kv_bytes_per_token(arch, s.kv_dtype, tp)


def place(
    arch: ModelArch,
    s: ServeSetup,
    where: tuple[GpuSpec, RuntimeProfile, str, int],
    capacity: float,
    link: Interconnect,
    stages: tuple[int, float] = (1, 0.0),
) -> Replica | None:
    """The replica ``where`` = (card, runtime, format, TP) makes of ``capacity`` bytes per GPU.

    None when not even one full window fits beside the weights. ``stages`` are the
    machines a replica spans and the seconds one stage boundary costs.
    """
    got = hold(arch, s, where, capacity, stages[0])
    if got is None:
        return None
    held, room, slots = got
    model, shape = speed(arch, s, where, slots, (link, stages))
    return Replica(held, room, slots, model, shape)


def hold(
    arch: ModelArch,
    s: ServeSetup,
    where: tuple[GpuSpec, RuntimeProfile, str, int],
    capacity: float,
    stages: int = 1,
) -> tuple[PerGpu, float, int] | None:
    """What ``place`` settles from memory alone: per-GPU holdings, the runtime's room, the users
    at once; None when not even one full window fits. Cheap: no step-time model is built, and
    kept per process (``_HELD``) beside the built replicas, for the same reason (issue 41)."""
    gpu, rt, fmt, tp = where
    shared = break_points.SHARED
    key = _hold_key(arch, s, where, capacity, stages)
    got = _HELD.get(key) if shared else None
    if got is not None:
        return got[1]
    held = per_gpu(arch, s, fmt, tp, rt, stages)
    room = kv_room(rt, capacity, held, (gpu, tp, s.attention_dp))
    slots = held.users(room, budget_slots(rt, s, tp))
    out = None if slots < 1 else (held, room, slots)
    if shared:
        _keep(_HELD, key, ((arch, gpu, rt), out))
    return out


_HoldKey = tuple[int, int, int, str, int, float, int, bool, str, int, int, int, int, int]
_HELD: dict[_HoldKey, tuple[tuple[ModelArch, GpuSpec, RuntimeProfile], tuple[PerGpu, float, int] | None]] = {}


def _hold_key(
    arch: ModelArch,
    s: ServeSetup,
    where: tuple[GpuSpec, RuntimeProfile, str, int],
    capacity: float,
    stages: int,
) -> _HoldKey:
    """Everything ``per_gpu``, ``kv_room`` and ``budget_slots`` read (records by identity, as
    ``_speed_key``): the window, the users and the lengths, not the rate nor the targets."""
    gpu, rt, fmt, tp = where
    return (
        id(same_model(arch)),
        id(gpu),
        id(rt),
        fmt,
        tp,
        capacity,
        stages,
        s.attention_dp,
        s.kv_dtype,
        s.concurrency,
        s.resident_tokens,
        s.prompt_tokens,
        s.output_tokens,
        s.context_len,
    )


def speed(
    arch: ModelArch,
    s: ServeSetup,
    where: tuple[GpuSpec, RuntimeProfile, str, int],
    slots: int,
    joined: tuple[Interconnect, tuple[int, float]],
) -> tuple[ReplicaModel, ReplicaShape]:
    """The rest of ``place``: the replica's step-time model and the queue it makes with ``slots``;
    ``joined`` is the link between its GPUs and its (machines, seconds per stage boundary).

    Built once per process for each distinct replica (``_BUILT``), while the shared
    break points are on (``break_points.SHARED``): a plan, its what-ifs and the next plan of
    the same model build the same models again otherwise (issue 41). The shape's break
    points are keyed by the model's fields, so a kept model finds the ones already searched.
    """
    gpu, rt, fmt, tp = where
    shared = break_points.SHARED  # off: the benches' reference run builds every replica afresh
    key = _speed_key(arch, s, where, slots, joined)
    got = _BUILT.get(key) if shared else None
    if got is not None:  # the queue's break-point searches are the plan's own: a fresh memo
        return got[1][0], got[1][1].fresh()
    model = replica_model(arch, s, where, joined[0], joined[1])
    built = model, serving_capacity.replica_shape(model, s, slots, (arch, gpu, rt, fmt, tp))
    if shared:
        _keep(_BUILT, key, ((arch, gpu, rt), built))
    return built


SPEEDS_KEPT = 1024  # ~4 plans of 10,000 offers (~230 layouts each, and their what-ifs); a few kB each
"""How many built replicas ``speed`` keeps (and holdings ``hold`` keeps), oldest out first."""

_SpeedKey = tuple[int, int, int, str, int, str, int, int, bool, int, int, str, tuple[int, float]]
_BUILT: dict[
    _SpeedKey, tuple[tuple[ModelArch, GpuSpec, RuntimeProfile], tuple[ReplicaModel, ReplicaShape]]
] = {}


def _speed_key(
    arch: ModelArch,
    s: ServeSetup,
    where: tuple[GpuSpec, RuntimeProfile, str, int],
    slots: int,
    joined: tuple[Interconnect, tuple[int, float]],
) -> _SpeedKey:
    """Everything ``replica_model`` and ``serving_capacity.replica_shape`` read.

    The records (model, card, runtime) are frozen and kept alive beside the entry, so
    their ``id`` names them while the entry lives; of the setup, only the fields the two
    read: the traffic (QPS, concurrency, targets) and the window do not change a replica's
    speed, so a what-if on traffic and the same model at another rate share the entry.
    """
    gpu, rt, fmt, tp = where
    return (
        id(same_model(arch)),
        id(gpu),
        id(rt),
        fmt,
        tp,
        s.kv_dtype,
        s.prompt_tokens,
        s.output_tokens,
        s.attention_dp,
        s.shared_prefix,
        slots,
        joined[0],
        joined[1],
    )


def _keep(table: dict[K, V], key: K, entry: V) -> None:
    """Store ``entry``, dropping the oldest entries while ``table`` holds ``SPEEDS_KEPT``."""
    while len(table) >= SPEEDS_KEPT:
        try:
            del table[next(iter(table))]
        except (KeyError, StopIteration, RuntimeError):  # another thread emptied or changed it first
            break
    table[key] = entry


ARCHES_KEPT = 256  # models a process plans for at once: the catalog's and those sized from a count
_arch_ids: dict[int, tuple[ModelArch, ModelArch]] = {}  # id -> (the model, its first equal one)
_arch_by_fields: dict[Hashable, ModelArch] = {}


def same_model(arch: ModelArch) -> ModelArch:
    """The first model with ``arch``'s fields this process saw: the records' identity keys the
    kept replicas, and a model sized from a parameter count ("13B") is a new record every plan."""
    got = _arch_ids.get(id(arch))
    if got is not None and got[0] is arch:
        return got[1]
    if len(_arch_by_fields) >= ARCHES_KEPT or len(_arch_ids) >= ARCHES_KEPT:
        _arch_ids.clear()
        _arch_by_fields.clear()
    first = _arch_by_fields.setdefault(break_points.frozen_record(arch), arch)
    _arch_ids[id(arch)] = (arch, first)  # kept alive: its id names no other model while here
    return first


def clear_caches() -> None:
    """Forget every built replica, holding and speed point (a cold start, for the benches and tests)."""
    _BUILT.clear()
    _HELD.clear()
    throughput.clear_points()
