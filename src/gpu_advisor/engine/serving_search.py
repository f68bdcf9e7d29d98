"""Search offers × weight formats × tensor-parallel degrees × replica counts for serving.

For each combination we ask: do the weights, the runtime's overhead and at least one
full-context sequence fit in the runtime's share of memory? How many sequences fit
at the expected prompt+answer length (vLLM pages the KV cache, so a sequence only
holds what it has generated so far)? How many replicas does the concurrency or QPS
target need, and what does that many machines cost? Everything here runs on floats.

When no single machine of an 8-GPU offer holds the model (DeepSeek-R1 in FP8 is
~630 GiB against 8 × 80 GB × 0.9 on H100), a replica spans 2 or 4 such machines:
tensor parallel inside each, pipeline parallel across them (vLLM's multi-node layout),
over the offer's stated network; offers without a stated network are not joined.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from gpu_advisor.engine import cost, replica, serving_capacity
from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.defaults import ServeSetup, runtime_for
from gpu_advisor.engine.dtypes import FORMATS
from gpu_advisor.engine.interconnect import pipeline_hop_s
from gpu_advisor.engine.memory import (
    Memory,
)
from gpu_advisor.engine.queueing import ReplicaShape, capacity_qps
from gpu_advisor.engine.serving_capacity import Load
from gpu_advisor.engine.specs import GpuSpec, Knowledge, ModelArch, Offer, RuntimeProfile
from gpu_advisor.engine.throughput import ReplicaModel
from gpu_advisor.engine.units import GiB

TP_DEGREES = (1, 2, 4, 8)
PIPELINE_NODES = (2, 4)


def capacity_bytes(offer: Offer, gpu: GpuSpec) -> float:
    return (offer.slice_memory_gib or gpu.usable_gib) * GiB


def format_supported(fmt: str, gpu: GpuSpec, rt: RuntimeProfile) -> bool:
    """The runtime has kernels for ``fmt`` on this card.

    ``min_compute_capability`` is CUDA's; cards that do not run CUDA (MI300X on ROCm,
    Ascend 910B on CANN) run the runtime's port (vLLM-ROCm, vLLM-Ascend/MindIE) with the
    formats the card computes in natively, and none of the CUDA-only weight-only kernels.
    """
    if fmt not in rt.formats:
        return False
    if gpu.vendor != "nvidia":
        spec = FORMATS[fmt]
        return not spec.weight_only and gpu.supports(spec.compute)
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


@dataclass(slots=True)
class Layout:
    """One (offer, format, TP degree, machines per replica) whose weights and one full-context sequence fit.

    Everything that does not depend on the traffic target is settled here, so a
    what-if that only changes concurrency or QPS re-runs ``size_for_traffic`` alone.
    ``kv_seq`` is the KV bytes one prompt + answer holds per GPU, ``kv_full`` one
    full-context sequence; ``pp`` is the number of machines one replica spans.
    The step-time model and queue (``model``, ``shape``) are built on first use: a
    branch-and-bound search prunes most layouts on memory alone (``fewest_machines_by_memory``).
    """

    offer: Offer
    gpu: GpuSpec
    rt: RuntimeProfile
    fmt: str
    tp: int
    weights: float
    overhead: float
    kv_seq: float
    kv_full: float
    bmax: int
    build: Callable[[], tuple[ReplicaModel, ReplicaShape]] = field(repr=False, compare=False)
    pp: int = 1
    built: tuple[ReplicaModel, ReplicaShape] | None = field(default=None, repr=False, compare=False)

    @property
    def model(self) -> ReplicaModel:
        """The replica's step-time model (``engine.throughput``)."""
        return self._speed()[0]

    @property
    def shape(self) -> ReplicaShape:
        """The queue one replica is (``engine.queueing``)."""
        return self._speed()[1]

    def _speed(self) -> tuple[ReplicaModel, ReplicaShape]:
        if self.built is None:
            self.built = self.build()
        return self.built


def prepare(
    arch: ModelArch,
    s: ServeSetup,
    offer: Offer,
    gpu: GpuSpec,
    rt: RuntimeProfile,
    fmt: str,
    tp: int,
    pp: int = 1,
) -> Layout | None:
    hop = pipeline_hop_s(arch.hidden_size, offer.network_gbps or 0.0) if pp > 1 else 0.0
    where = (gpu, rt, fmt, tp)
    got = replica.hold(arch, s, where, capacity_bytes(offer, gpu), pp)
    if got is None:  # not a window, or not one prompt + answer (a window shorter than both)
        return None
    held, _, slots = got
    joined = (offer.interconnect, (pp, hop))
    return Layout(
        offer,
        gpu,
        rt,
        fmt,
        tp,
        held.weights,
        held.overhead,
        held.kv_seq,
        held.kv_full,
        slots,
        lambda: replica.speed(arch, s, where, slots, joined),
        pp,
    )


def _load(layout: Layout, s: ServeSetup) -> Load | None:
    """Replicas and batch for ``s``'s traffic, sized by ``engine.serving_capacity`` (tail latency)."""
    return serving_capacity.size(layout.shape, s)


def size_for_traffic(layout: Layout, s: ServeSetup, duration_hours: float | None) -> Candidate | None:
    """How many replicas (and machines) the layout needs for ``s``'s concurrency or QPS."""
    load = _load(layout, s)
    if load is None:
        return None
    replicas, batch = load.replicas, load.batch
    settled = serving_capacity.settled(load)  # else what sizing did not need is worked out when shown
    point = layout.model.point(batch)
    offer = layout.offer
    machines = _machines(layout, replicas)
    memory = Memory(weights=layout.weights, kv_cache=layout.kv_seq * batch, overhead=layout.overhead)
    memory.notes["kv_full_context_bytes"] = layout.kv_full
    memory.notes["max_batch"] = layout.bmax
    memory.notes["machines_per_replica"] = layout.pp
    return Candidate(
        task="infer",
        offer=offer,
        gpu=layout.gpu,
        gpus_per_machine=offer.count,
        machines=machines,
        memory=memory,
        capacity_bytes=capacity_bytes(offer, layout.gpu),
        weight_dtype=layout.fmt,
        monthly=cost.always_on(offer, machines),
        job=cost.job(offer, duration_hours, machines) if duration_hours else None,
        runtime=layout.rt.id,
        tensor_parallel=layout.tp,
        replicas=replicas,
        batch=batch,
        decode_tokens_per_s=point.tokens_per_s_per_seq,
        aggregate_tokens_per_s=point.tokens_per_s * replicas,
        ttft_ms=point.ttft_ms,
        requests_per_s=point.requests_per_s * replicas,
        bound=point.bound,
        meets_latency=(s.ttft_ms_max is None or point.ttft_ms <= s.ttft_ms_max) and load.meets_p99,
        extras=(serving_capacity.break_extras(load) if load.point.done else {})
        | serving_capacity.under_load(load, s, point.tokens_per_s * replicas)
        | {"output_tokens_per_s_full_load": _full_load(layout, s, replicas)}
        | serving_capacity.confidence(layout.rt, layout.gpu, layout.model.arch),
        deferred=None if settled else partial(serving_capacity.deferred_extras, load),
    )


def _full_load(layout: Layout, s: ServeSetup, replicas: int) -> float:
    """Output tokens/s with every replica at the rate it can sustain (queue capacity × answer length)."""
    return capacity_qps(layout.shape) * s.output_tokens * replicas


def _machines(layout: Layout, replicas: int) -> int:
    """Machines to rent: a replica takes ``tp`` GPUs on each of ``pp`` machines."""
    if layout.pp > 1:
        return replicas * layout.pp
    return math.ceil(replicas / (layout.offer.count // layout.tp))


def layouts(arch: ModelArch, s: ServeSetup, kb: Knowledge, offers: list[Offer]) -> list[Layout]:
    """Every (offer, format, TP) that holds the weights and one full-context sequence.

    A format that no single machine of a full 8-GPU offer holds is tried across 2, then
    4, machines joined by the offer's network (pipeline stages).
    """
    out: list[Layout] = []
    configured: dict[tuple[str, str], RuntimeProfile] = {}  # one runtime per (runtime, card), not per offer
    for offer in offers:
        gpu = kb.gpus[offer.gpu]
        for wanted in s.formats:
            fmt = card_format(wanted, gpu)
            name = runtime_for(fmt, s.runtime)
            rt = configured.get((name, gpu.id))
            if rt is None:
                rt = configured[(name, gpu.id)] = s.configured(kb.runtimes[name], gpu)
            if not format_supported(fmt, gpu, rt):
                continue
            found = [
                layout
                for tp in tp_options(arch, offer, s.tensor_parallel)
                if (layout := prepare(arch, s, offer, gpu, rt, fmt, tp)) is not None
            ]
            out += found or _across_machines(arch, s, offer, gpu, rt, fmt)
    return out


def _across_machines(
    arch: ModelArch, s: ServeSetup, offer: Offer, gpu: GpuSpec, rt: RuntimeProfile, fmt: str
) -> list[Layout]:
    """The fewest machines (pipeline stages) of a full 8-GPU offer that hold the model."""
    if offer.count != 8 or not offer.network_gbps or offer.is_slice or arch.num_heads % 8:
        return []
    if s.tensor_parallel not in (None, 8):
        return []
    for pp in PIPELINE_NODES:
        if pp <= arch.layers and (layout := prepare(arch, s, offer, gpu, rt, fmt, 8, pp)) is not None:
            return [layout]
    return []


def cheapest(found: list[Layout], s: ServeSetup, duration_hours: float | None) -> Candidate | None:
    """The lowest-cost candidate that meets the latency target, building only that one.

    What-ifs only need the winner, so prices are compared on floats first, and a layout
    whose price cannot beat the best so far even at the replica count its capacity alone
    needs is never put through the tail-latency search (``serving_capacity.size``):
    branch and bound, in the order of those lower bounds. Ties go to the earlier layout,
    as a plain scan would.
    """
    bounds = sorted((_price(lay, _fewest_replicas(lay, s), duration_hours), i) for i, lay in enumerate(found))
    best: tuple[float, int] | None = None
    for bound, i in bounds:
        if best is not None and (bound, i) >= best:
            continue
        layout = found[i]
        load = _load(layout, s)
        if load is None or not load.meets_p99:
            continue
        if s.ttft_ms_max is not None and layout.model.point(load.batch).ttft_ms > s.ttft_ms_max:
            continue
        price = _price(layout, load.replicas, duration_hours)
        if best is None or (price, i) < best:
            best = (price, i)
    return size_for_traffic(found[best[1]], s, duration_hours) if best else None


def fewest_machines(layout: Layout, s: ServeSetup) -> int:
    """Machines the layout needs at least: a floor on what the tail-latency sizing will ask for."""
    return _machines(layout, _fewest_replicas(layout, s))


def fewest_machines_by_memory(layout: Layout, s: ServeSetup) -> int:
    """Machines the concurrency needs at the batch memory holds: a floor on ``fewest_machines``
    that needs no step-time model."""
    return _machines(layout, _replicas_by_memory(layout, s))


def _replicas_by_memory(layout: Layout, s: ServeSetup) -> int:
    return math.ceil(s.concurrency / layout.bmax)


def _fewest_replicas(layout: Layout, s: ServeSetup) -> int:
    """Replicas the concurrency and the capacity at the utilisation target need: a floor on the real count."""
    replicas = _replicas_by_memory(layout, s)
    if s.qps is not None:
        replicas = max(replicas, math.ceil(s.qps / (s.utilisation * capacity_qps(layout.shape)) - 1e-9))
    return replicas


def _price(layout: Layout, replicas: int, duration_hours: float | None) -> float:
    machines = _machines(layout, replicas)
    if duration_hours:
        return cost.job(layout.offer, duration_hours, machines).amount
    return cost.always_on(layout.offer, machines).amount


def size_all(found: list[Layout], s: ServeSetup, duration_hours: float | None) -> list[Candidate]:
    return [c for layout in found if (c := size_for_traffic(layout, s, duration_hours)) is not None]


def search(
    arch: ModelArch, s: ServeSetup, kb: Knowledge, offers: list[Offer], duration_hours: float | None
) -> list[Candidate]:
    """Every feasible (offer, format, TP) candidate."""
    return size_all(layouts(arch, s, kb, offers), s, duration_hours)
