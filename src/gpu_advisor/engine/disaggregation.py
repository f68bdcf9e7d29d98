"""Prefill/decode disaggregation: prompts on one pool of GPUs, answers on another.

Serving stacks that disaggregate run prefill instances and decode instances as separate
servers and move each request's KV cache from the first to the second: SGLang
(``--disaggregation-mode prefill|decode``, Mooncake or NIXL as the transfer engine;
docs.sglang.io, advanced_features/pd_disaggregation), NVIDIA Dynamo (prefill and decode
workers; "the prefill engine computes the prefill phase and generates KV cache, transfers
it to the decode engine, the decode engine computes the decode phase", the transfer
through NIXL GPU memory to GPU memory and non-blocking, so forward passes go on during
it; docs.nvidia.com/dynamo, design-docs/disaggregated-serving) and vLLM's
disaggregated-prefill connectors (NixlConnector). Dynamo's Llama-3.3-70B FP8 recipe, for
one, runs one 8× H100/H200 node as two TP-2 vLLM prefill workers and one TP-4 decode worker
(recipes/llama-3-70b/vllm/disagg-single-node): ``gpu_count`` 8, ``prefill_gpus`` 4,
``prefill_tensor_parallel`` 2, ``tensor_parallel`` 4 here. The point is that a decode step never
carries prompt chunks ("prefill interruption", SGLang's docs), so:

* **Prefill pool.** ``prefill_gpus / prefill_tp`` instances, each running prompts only,
  batched into steps of the runtime's token budget (``max_num_batched_tokens``): the
  instance time a prompt takes is its compute at the runtime's prefill share of the
  card (``throughput.prefill_s`` without its per-prompt overheads) plus its tensor-parallel
  all-reduces per token, plus its share of each step's fixed cost; a step reads the
  weights once, so a thousand-token budget keeps it compute-bound. A prompt alone on an
  idle instance takes ``prefill_s`` itself plus a fixed cost per extra chunk. Prompts queue
  at an instance as at the prefill engine of ``engine.queueing`` (M/D/1).
* **KV transfer.** The prompt's KV cache, per rank, over the link between the pools
  (NVLink/NVSwitch inside one 8-GPU board, GPUDirect RDMA between machines), every rank
  of the smaller TP side sending in parallel. It adds to TTFT; it overlaps the next
  prompt's compute (non-blocking, as Dynamo's docs say), so it only limits the pool when
  it takes longer than a prompt's compute.
* **Decode pool.** ``decode_gpus / tp`` replicas placed like any other
  (``engine.replica``: weights, paged KV pool, slots), whose steps carry decode tokens
  only — ``ReplicaModel.step_s``, not ``mixed_step_s`` — and whose queue is
  ``engine.queueing``'s with no prefill stalls: TPOT is the decode step at the batch.

The system sustains min(prefill rps, decode rps) requests per second; TTFT is the wait
and compute on the prefill pool, the transfer, and the decode pool's admission (a free
slot and the step in progress). Quantiles of the sum are taken as the sum of the parts'
quantiles, which overstates a p99 a little (the parts are not all at their tail at once).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from gpu_advisor.engine.defaults import ServeSetup
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.interconnect import RDMA_HOP_LATENCY_S, link_gbs, tp_decode_comm
from gpu_advisor.engine.memory import kv_bytes_per_sequence, serving_weight_bytes
from gpu_advisor.engine.queueing import ReplicaShape, capacity_qps, latency, prefill_wait_quantile
from gpu_advisor.engine.replica import Replica, board_link, kv_room, per_gpu, replica_model
from gpu_advisor.engine.specs import GpuSpec, ModelArch, RuntimeProfile
from gpu_advisor.engine.throughput import prefill_s
from gpu_advisor.engine.workload import Workload

BOARD_GPUS = 8  # an HGX/DGX board: pools larger than this together span machines
# DGX H100/H200 datasheets: eight single-port ConnectX-7 adapters, 400 Gb/s each, one per GPU
# (the compute fabric GPUDirect RDMA — and so NIXL and Mooncake — moves KV caches over).
RDMA_GBPS_PER_GPU = 400.0
RDMA_EFFICIENCY = 0.8  # share of the line rate a large one-sided RDMA write achieves (assumed)


@dataclass(frozen=True, slots=True)
class Split:
    """How ``gpu_count`` GPUs are divided: prefill GPUs and their TP, decode GPUs and theirs."""

    prefill_gpus: int
    prefill_tp: int
    decode_gpus: int
    decode_tp: int

    @property
    def prefill_instances(self) -> int:
        return self.prefill_gpus // self.prefill_tp

    @property
    def decode_instances(self) -> int:
        return self.decode_gpus // self.decode_tp


def default_tp(gpus: int, arch: ModelArch) -> int:
    """The widest TP a pool of ``gpus`` runs whole instances at: divides both the pool and the heads."""
    return max(t for t in range(1, gpus + 1) if gpus % t == 0 and arch.num_heads % t == 0)


def split_for(w: Workload, arch: ModelArch) -> Split | None:
    """The split a workload states (None when it states none), unstated TP degrees filled in.

    ``tensor_parallel`` is the decode instances' degree and ``prefill_tensor_parallel`` the
    prefill instances'; either defaults to ``default_tp`` of its pool.
    """
    if w.prefill_gpus is None or w.gpu_count is None:
        return None
    pre, decode = w.prefill_gpus, w.gpu_count - w.prefill_gpus
    pre_tp = w.prefill_tensor_parallel or default_tp(pre, arch)
    return Split(pre, pre_tp, decode, w.tensor_parallel or default_tp(decode, arch))


@dataclass(frozen=True, slots=True)
class PrefillPool:
    """The prefill instances: what a prompt costs an instance, alone and batched, and its KV transfer."""

    instances: int
    service_s: float  # instance time one prompt takes among others (chunk-batched)
    own_s: float  # a prompt's own time to its KV cache on an idle instance
    transfer_s: float  # its KV cache to the decode pool

    @property
    def occupancy_s(self) -> float:
        """Seconds of an instance each prompt holds: its compute, or its transfer when that is longer."""
        return max(self.service_s, self.transfer_s)

    def requests_per_s(self) -> float:
        return self.instances / self.occupancy_s


@dataclass(frozen=True, slots=True)
class DisaggLatency:
    """Latency at one arrival rate (seconds), the decode pool's mean batch."""

    ttft_p50_s: float
    ttft_p99_s: float
    tpot_p50_s: float
    tpot_p99_s: float
    occupancy: float


@dataclass(frozen=True, slots=True)
class Disaggregated:
    """A disaggregated deployment placed: the split, the prefill pool, one decode replica and its queue."""

    split: Split
    prefill: PrefillPool
    decode: Replica

    def prefill_rps(self) -> float:
        return self.prefill.requests_per_s()

    def decode_rps(self) -> float:
        return capacity_qps(self.decode.shape) * self.split.decode_instances

    def max_rps(self) -> float:
        return min(self.prefill_rps(), self.decode_rps())

    def limiting(self) -> str:
        """Which pool caps the system: ``prefill`` or ``decode``."""
        return "prefill" if self.prefill_rps() < self.decode_rps() else "decode"

    def tpot_s(self, batch: int) -> float:
        """Time per output token at ``batch``: a decode-only step, no prompt chunks in it."""
        return self.decode.model.step_s(batch)[0]

    def latency(self, qps: float) -> DisaggLatency | None:
        """p50/p99 TTFT and TPOT at ``qps`` Poisson arrivals; None where either pool is overrun."""
        rho = qps / self.prefill_rps()
        lat = latency(self.decode.shape, qps / self.split.decode_instances)
        if rho >= 1.0 or lat is None:
            return None
        p = self.prefill
        ttft = [
            p.own_s + prefill_wait_quantile(p.occupancy_s, rho, q) + p.transfer_s + admit
            for q, admit in ((0.5, lat.ttft_p50_s), (0.99, lat.ttft_p99_s))
        ]
        return DisaggLatency(ttft[0], ttft[1], lat.tpot_p50_s, lat.tpot_p99_s, lat.occupancy)

    def break_qps(self, ttft_p99_s: float | None, tpot_p99_s: float | None) -> float:
        """Largest rate at which the p99 targets hold (bisection: the p99s only grow with the rate)."""
        cap = self.max_rps()
        lo, hi = 0.0, cap * (1.0 - 1e-4)

        def holds(qps: float) -> bool:
            lat = self.latency(qps)
            if lat is None:
                return False
            ttft_ok = ttft_p99_s is None or lat.ttft_p99_s <= ttft_p99_s
            return ttft_ok and (tpot_p99_s is None or lat.tpot_p99_s <= tpot_p99_s)

        if holds(hi):
            return hi
        while hi - lo > 1e-4 * cap:
            mid = (lo + hi) / 2.0
            lo, hi = (mid, hi) if holds(mid) else (lo, mid)
        return lo

    def closed_loop(self, users: int) -> tuple[float, float, float]:
        """Mean (TTFT s, TPOT s, requests/s) with ``users`` each waiting on one request at a time.

        Each user's cycle is TTFT + out·TPOT; the decode pool runs users/instances at once
        (capped at its slots), the prefill pool waits as M/D/1 at the cycle rate, found by
        fixed point as ``queueing.closed_loop`` does for one replica.
        """
        out = self.decode.model.output
        per = -(-users // self.split.decode_instances)
        tpot = self.tpot_s(min(per, self.decode.shape.slots))
        p, rate = self.prefill, 0.0
        for _ in range(100):
            rho = min(rate / self.prefill_rps(), 0.95)
            ttft = p.own_s + rho * p.occupancy_s / (2.0 * (1.0 - rho)) + p.transfer_s
            nxt = min(users / (ttft + out * tpot), self.max_rps())
            if abs(nxt - rate) < 1e-9 * max(nxt, 1.0):
                break
            rate = (rate + nxt) / 2.0 if rate else nxt
        return ttft + max(0.0, users / rate - ttft - out * tpot), tpot, rate


def transfer_s(arch: ModelArch, s: ServeSetup, gpu: GpuSpec, split: Split) -> float:
    """Seconds to move one prompt's KV cache from the prefill to the decode pool.

    Each rank of the narrower side sends its share (``kv_bytes_per_sequence`` at that TP;
    an MLA latent, copied on every rank, is sent whole) over its own link: NVLink inside
    one board, else GPUDirect RDMA at ``RDMA_GBPS_PER_GPU``; plus one RDMA latency.
    """
    ranks = min(split.prefill_tp, split.decode_tp)
    volume = kv_bytes_per_sequence(arch, s.kv_dtype, s.prompt_tokens - s.shared_prefix, ranks)
    if split.prefill_gpus + split.decode_gpus <= BOARD_GPUS and gpu.nvlink_gbs:
        rate = link_gbs(gpu, board_link(gpu)) * 1e9
    else:
        rate = RDMA_GBPS_PER_GPU / 8.0 * RDMA_EFFICIENCY * 1e9
    return RDMA_HOP_LATENCY_S + volume / rate


def prefill_pool(
    arch: ModelArch, s: ServeSetup, where: tuple[GpuSpec, RuntimeProfile, str], split: Split
) -> PrefillPool:
    """What a prompt costs one prefill instance (TP ``split.prefill_tp``), batched and alone."""
    gpu, rt, fmt = where
    tp, fresh = split.prefill_tp, s.prompt_tokens - s.shared_prefix
    fixed = (rt.prefill_overhead_ms + rt.step_overhead_ms) / 1e3
    alone = prefill_s(arch, gpu, rt, fmt, fresh, tp)
    comm_fixed, comm_token = tp_decode_comm(arch.hidden_size, arch.layers, tp, gpu, board_link(gpu))
    steps = fresh / rt.max_num_batched_tokens  # the prompt's share of batched steps
    weights = serving_weight_bytes(arch, fmt, tp) / (
        rt.bandwidth_gbs(gpu.bandwidth_gbs, fmt, rt.decode_share(gpu)) * 1e9
    )
    busy = max(alone - fixed, steps * weights)
    service = busy + fresh * comm_token + steps * (rt.step_overhead_ms / 1e3 + comm_fixed)
    chunks = max(1, math.ceil(fresh / rt.max_num_batched_tokens))
    own = alone + fresh * comm_token + chunks * comm_fixed + (chunks - 1) * rt.step_overhead_ms / 1e3
    return PrefillPool(split.prefill_instances, service, own, transfer_s(arch, s, gpu, split))


def decode_replica(
    arch: ModelArch, s: ServeSetup, where: tuple[GpuSpec, RuntimeProfile, str, int], capacity: float
) -> Replica | None:
    """One decode instance: ``engine.replica``'s holdings, slots up to the runtime's caps, no prompts.

    Its steps carry one token per running sequence and nothing else, so the token budget
    caps the batch at ``max_num_batched_tokens`` sequences, not at budget/(1 + prompt/output).
    """
    gpu, rt, fmt, tp = where
    held = per_gpu(arch, s, fmt, tp, rt)
    room = kv_room(rt, capacity, held, (gpu, tp, s.attention_dp))
    ranks = tp if s.attention_dp else 1
    seqs, tokens = rt.step_limits(ranks)
    slots = held.users(room, ranks * min(seqs, tokens))
    if slots < 1:
        return None
    model = replica_model(arch, s, where, board_link(gpu))
    shape = ReplicaShape(slots, 0.0, _memo(model.step_s), s.output_tokens, first_token_s=0.0)
    return Replica(held, room, slots, model, shape)


def _memo(step: Callable[[int], tuple[float, str]]) -> Callable[[int], float]:
    """Step seconds per batch, memoised: the queue asks for the same few batches many times."""
    seen: dict[int, float] = {}

    def at(b: int) -> float:
        if b not in seen:
            seen[b] = step(b)[0]
        return seen[b]

    return at


def place(
    arch: ModelArch,
    s: ServeSetup,
    where: tuple[GpuSpec, RuntimeProfile, str],
    split: Split,
    capacity: float,
) -> Disaggregated | None:
    """The deployment ``split`` makes of ``capacity`` bytes per GPU; None when a pool cannot hold it."""
    gpu, rt, fmt = where
    prefill_held = per_gpu(arch, s, fmt, split.prefill_tp, rt)
    if (
        prefill_held.users(kv_room(rt, capacity, prefill_held, (gpu, split.prefill_tp, s.attention_dp)), 1)
        < 1
    ):
        return None
    decode = decode_replica(arch, s, (gpu, rt, fmt, split.decode_tp), capacity)
    if decode is None:
        return None
    return Disaggregated(split, prefill_pool(arch, s, where, split), decode)


def balanced(d: Disaggregated) -> tuple[int, float]:
    """(prefill GPUs, requests/s) of the split of the same GPUs that serves most.

    Each pool's rate grows with its whole instances, so at the per-GPU rates measured on
    this split, p prefill GPUs serve min(p·r_prefill, (N − p)·r_decode); p runs over whole
    instances on both sides.
    """
    sp = d.split
    total = sp.prefill_gpus + sp.decode_gpus
    per_p, per_d = d.prefill_rps() / sp.prefill_gpus, d.decode_rps() / sp.decode_gpus
    splits = [p for p in range(sp.prefill_tp, total, sp.prefill_tp) if (total - p) % sp.decode_tp == 0]
    best = max(splits, key=lambda p: (min(p * per_p, (total - p) * per_d), -abs(p - sp.prefill_gpus)))
    return best, min(best * per_p, (total - best) * per_d)


def balance_finding(d: Disaggregated, colocated_rps: float | None) -> Finding:
    """Which pool limits, the split that would balance them, and what the same GPUs serve
    without disaggregation (``colocated_rps``, None when a colocated replica does not fit)."""
    sp = d.split
    best, rps = balanced(d)
    per_p, per_d = d.prefill_rps() / sp.prefill_gpus, d.decode_rps() / sp.decode_gpus
    return finding(
        f"disaggregation_{d.limiting()}_bound",
        prefill_gpus=sp.prefill_gpus,
        decode_gpus=sp.decode_gpus,
        prefill_rps=d.prefill_rps(),
        decode_rps=d.decode_rps(),
        balanced_prefill_gpus=best,
        balanced_decode_gpus=sp.prefill_gpus + sp.decode_gpus - best,
        balanced_rps=rps,
        decode_per_prefill_gpu=per_p / per_d,
        colocated_rps=colocated_rps,
    )


def figures(d: Disaggregated, arch: ModelArch, s: ServeSetup, closed: bool) -> dict[str, float]:
    """``estimate``'s figures under load for the disaggregated shape, under the contract's names."""
    out, sp = s.output_tokens, d.split
    got = {
        "replicas": float(sp.decode_instances),
        "prefill_instances": float(sp.prefill_instances),
        "max_requests_per_s": d.max_rps(),
        "max_output_tokens_per_s": d.max_rps() * out,
        "kv_pool_tokens": d.decode.kv_pool_tokens(arch, s, sp.decode_tp),
        "prefill_pool_requests_per_s": d.prefill_rps(),
        "decode_pool_requests_per_s": d.decode_rps(),
        "kv_transfer_ms": d.prefill.transfer_s * 1e3,
    }
    if s.ttft_p99_s is not None or s.tpot_p99_s is not None:
        got["output_tokens_per_s_at_p99"] = d.break_qps(s.ttft_p99_s, s.tpot_p99_s) * out
    if s.qps is not None:
        got["break_qps"] = d.break_qps(s.ttft_p99_s, s.tpot_p99_s)
        lat = d.latency(s.qps)
        if lat is not None:
            got |= {
                "ttft_ms_p50": lat.ttft_p50_s * 1e3,
                "ttft_ms_p99": lat.ttft_p99_s * 1e3,
                "tpot_ms_p50": lat.tpot_p50_s * 1e3,
                "tpot_ms_p99": lat.tpot_p99_s * 1e3,
            }
    elif closed:
        ttft, tpot, rate = d.closed_loop(s.concurrency)
        got |= {
            "closed_loop_ttft_ms": ttft * 1e3,
            "closed_loop_tpot_ms": tpot * 1e3,
            "closed_loop_output_tokens_per_s": rate * out,
        }
    return got
