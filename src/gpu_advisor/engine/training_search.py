"""Search offers × GPU counts × ZeRO stages × recomputation for training.

Per (offer, GPU count) we keep the cheapest-to-run setting that fits: the lowest ZeRO
stage (less communication) and no recomputation (a third less compute) when they fit,
escalating only as memory demands. Speed follows from the MFU and the data-parallel
scaling efficiency of ``engine.interconnect``; machines join over their network.
"""

from __future__ import annotations

from dataclasses import replace

from gpu_advisor.engine import cost
from gpu_advisor.engine.candidates import Candidate, fan_out
from gpu_advisor.engine.defaults import grad_accumulation
from gpu_advisor.engine.interconnect import (
    allreduce_s,
    gradient_sync_s,
    scaling_efficiency,
    sync_volume_bytes,
)
from gpu_advisor.engine.memory import Memory, TrainSetup, activations, model_states, with_activations
from gpu_advisor.engine.specs import GpuSpec, Knowledge, ModelArch, Offer
from gpu_advisor.engine.training import (
    flops_per_token,
    mfu,
    step_compute_s,
    training_hours,
    training_peak_tflops,
)
from gpu_advisor.engine.usable import TRAINING_SHARE, usable_bytes

_Memo = dict[tuple[int, float, str], "tuple[TrainSetup, Memory] | None"]
HEADROOM = TRAINING_SHARE  # the share of reported memory a training job may fill (engine.usable)
NETWORK_EFFICIENCY = 0.8
MAX_NODES = 4


def joined_machines(offer: Offer, requested: int) -> int | None:
    """How many of ``offer``'s machines hold ``requested`` GPUs together, or None if they cannot.

    Only whole 8-GPU machines join, up to ``MAX_NODES``, over the machine's network: single
    cards rented one to a machine are separate machines, not one job's GPUs (issue 47).
    """
    machines = requested // offer.count
    if offer.count == 8 and requested % 8 == 0 and 1 < machines <= MAX_NODES:
        return machines
    return None


def layouts(offer: Offer, requested: int | None) -> list[tuple[int, int]]:
    """(GPUs per machine, machines) to try; several machines only for full 8-GPU nodes."""
    if requested:
        if requested <= offer.count:
            return [(requested, 1)]
        machines = joined_machines(offer, requested)
        return [(offer.count, machines)] if machines else []
    # The machine is billed whole, so using all its GPUs costs nothing more and is faster.
    out = [(offer.count, 1)]
    if offer.count == 8 and offer.network_gbps:
        out += [(8, m) for m in (2, MAX_NODES)]
    return out


def _fitting_setup(
    arch: ModelArch, base: TrainSetup, n: int, cap: float, fixed_stage: bool, fixed_ckpt: bool
) -> tuple[TrainSetup, Memory] | None:
    """Lowest ZeRO stage, then no recomputation, that fits ``cap`` bytes per GPU (``engine.usable``)."""
    stages = [0] if n == 1 else [base.zero_stage] if fixed_stage else [0, 1, 2, 3]
    ckpts = [base.gradient_checkpointing] if fixed_ckpt else [False, True]
    acts = {ck: activations(arch, base, ck) for ck in ckpts}
    for stage in stages:
        states = model_states(arch, base, stage, n)
        for ckpt in ckpts:
            mem = with_activations(states, acts[ckpt], n if stage >= 3 else 1)
            if mem.total <= cap:
                return replace(base, zero_stage=stage, gpus=n, gradient_checkpointing=ckpt), mem
    return None


def sync_s(
    trainable: float, setup: TrainSetup, gpu: GpuSpec, offer: Offer, per_machine: int, machines: int
) -> float:
    """Gradient synchronisation per optimizer step: NVLink/PCIe inside, the network between machines."""
    micro = grad_accumulation(setup.batch_size)
    inside = gradient_sync_s(trainable, per_machine, setup.zero_stage, gpu, offer.interconnect, micro)
    if machines <= 1:
        return inside
    volume = sync_volume_bytes(trainable, setup.zero_stage, micro) / per_machine
    net_gbs = (offer.network_gbps or 1.0) / 8 * NETWORK_EFFICIENCY
    return inside + allreduce_s(volume, machines, net_gbs, 10e-6)


def evaluate(
    arch: ModelArch,
    base: TrainSetup,
    offer: Offer,
    gpu: GpuSpec,
    per_machine: int,
    machines: int,
    tokens: float | None,
    duration_hours: float | None,
    fixed: tuple[bool, bool],
    memo: _Memo | None = None,
) -> Candidate | None:
    n = per_machine * machines
    cap = usable_bytes(gpu, None, offer.slice_memory_gib)
    dtype = base.weight_dtype if gpu.supports("bf16") or base.weight_dtype != "bf16" else "fp16"
    key = (n, cap, dtype)
    if memo is not None and key in memo:
        found = memo[key]
    else:
        typed = base if dtype == base.weight_dtype else replace(base, weight_dtype=dtype)
        found = _fitting_setup(arch, typed, n, cap, *fixed)
        if memo is not None:
            memo[key] = found
    if found is None:
        return None
    setup, mem = found
    step_tokens = setup.batch_size * setup.seq_len * grad_accumulation(setup.batch_size)
    ckpt, seq = setup.gradient_checkpointing, setup.seq_len
    compute = step_compute_s(arch, gpu, setup.method, ckpt, step_tokens, dtype, seq)
    trainable = mem.notes["trainable_params"]
    eff = (
        scaling_efficiency(compute, sync_s(trainable, setup, gpu, offer, per_machine, machines))
        if n > 1
        else 1.0
    )
    hours = training_hours(arch, gpu, setup.method, ckpt, tokens, dtype, n, eff, seq) if tokens else None
    held = hours or duration_hours
    rate = n * training_peak_tflops(gpu, dtype) * 1e12 * mfu(gpu, setup.method) * eff
    cand = Candidate(
        task="train",
        offer=offer,
        gpu=gpu,
        gpus_per_machine=per_machine,
        machines=machines,
        memory=mem,
        capacity_bytes=cap,
        weight_dtype=dtype,
        monthly=cost.always_on(offer, machines),
        job=cost.job(offer, held, machines) if held else None,
        method=setup.method,
        zero_stage=setup.zero_stage,
        gradient_checkpointing=setup.gradient_checkpointing,
        training_hours=hours,
        scaling_efficiency=eff,
    )
    cand.extras["tokens_per_s"] = rate / flops_per_token(arch, setup.method, ckpt, seq)
    cand.extras["sync_s"] = sync_s(trainable, setup, gpu, offer, per_machine, machines)
    cand.extras["sync_inside_s"] = sync_s(trainable, setup, gpu, offer, per_machine, 1)
    cand.extras["compute_s"] = compute
    return cand


def search(
    arch: ModelArch,
    base: TrainSetup,
    kb: Knowledge,
    offers: list[Offer],
    requested_gpus: int | None,
    tokens: float | None,
    duration_hours: float | None,
    fixed: tuple[bool, bool],
) -> list[Candidate]:
    """Every fitting (offer, layout), each distinct machine evaluated once and re-priced for its siblings."""
    memo: _Memo = {}

    def on(offer: Offer) -> list[Candidate]:
        gpu = kb.gpus[offer.gpu]
        found = (
            evaluate(arch, base, offer, gpu, per_machine, machines, tokens, duration_hours, fixed, memo)
            for per_machine, machines in layouts(offer, requested_gpus)
        )
        return [c for c in found if c is not None]

    return fan_out(offers, on, lambda c: c.training_hours or duration_hours)
