"""The training search written the naive way, every scalar a pint quantity.

The companion of ``bench.naive_pint`` for ``engine.training_search.search``: the same
layouts, the same ZeRO-stage × recomputation escalation and the same memory (ZeRO
paper model states, Korthikanti et al. activations), compute (6·Ψ per token at the
documented MFU) and gradient-sync (ring all-reduce) formulas as ``engine.memory``,
``engine.training`` and ``engine.interconnect``, on bytes, FLOP, seconds and GB/s.
Layout choice, LoRA parameter counts, MFU and peak-rate tables and the price quotes are
reused from the engine; ``assert_matches_engine`` proves both give the same numbers.
"""

# pint types its operators as returning Any; see bench.naive_pint.
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from bench.naive_pint import (
    BYTE,
    FLOP,
    GB_PER_S,
    SECOND,
    TFLOP_PER_S,
    TOKEN,
    allreduce,
    close,
    count,
    hop_latency,
    link_bandwidth,
    weight_bytes,
)
from bench.naive_pint_replica import attended
from gpu_advisor.engine import cost, training_search
from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.defaults import grad_accumulation
from gpu_advisor.engine.dtypes import FORMATS
from gpu_advisor.engine.interconnect import BACKWARD_SHARE
from gpu_advisor.engine.memory import CUDA_CONTEXT_BYTES, FRAGMENTATION, OPTIMIZER_BYTES, TrainSetup
from gpu_advisor.engine.param_count import lora_trainable_params
from gpu_advisor.engine.specs import GpuSpec, Knowledge, ModelArch, Offer
from gpu_advisor.engine.train_terms import LOSS_BYTES_PER_LOGIT
from gpu_advisor.engine.training import mfu, training_peak_tflops
from gpu_advisor.engine.training_search import HEADROOM, NETWORK_EFFICIENCY, layouts
from gpu_advisor.engine.units import Quantity, ureg

BYTES_PER_PARAM = BYTE  # parameters are counts, so bytes per parameter are bytes
FLOP_PER_TOKEN = FLOP / TOKEN


@dataclass(slots=True)
class NaiveMemory:
    weights: Quantity
    gradients: Quantity
    optimizer: Quantity
    activations: Quantity
    overhead: Quantity
    trainable: float

    @property
    def total(self) -> Quantity:
        return self.weights + self.gradients + self.optimizer + self.activations + self.overhead


def optimizer_bytes_per_param(optimizer: str, mixed: bool, hidden: int) -> Quantity:
    master = (4.0 if mixed else 0.0) * BYTES_PER_PARAM
    if optimizer == "adafactor":
        return master + 4.0 * 2.0 / hidden * BYTES_PER_PARAM
    return master + OPTIMIZER_BYTES[optimizer] * BYTES_PER_PARAM


def model_states(arch: ModelArch, s: TrainSetup) -> NaiveMemory:
    params = arch.params_b * 1e9
    n = max(s.gpus, 1)
    if s.method == "full":
        mixed = s.weight_dtype in ("fp16", "bf16")
        w = params * (2.0 if mixed else 4.0) * BYTES_PER_PARAM
        g = w
        o = params * optimizer_bytes_per_param(s.optimizer, mixed, arch.hidden_size)
        trainable = params
    else:
        trainable = lora_trainable_params(arch, s.lora_rank)
        lora_base = s.weight_dtype if s.weight_dtype in ("fp32", "fp16", "bf16", "int8") else "bf16"
        base_fmt = "nf4" if s.method == "qlora" else lora_base
        adapter = (2.0 if s.method == "qlora" else 4.0) * BYTES_PER_PARAM
        w = weight_bytes(params, arch.embedding_params, base_fmt) + trainable * adapter
        g = trainable * adapter
        o = trainable * optimizer_bytes_per_param(s.optimizer, s.method == "qlora", arch.hidden_size)
    o /= n if s.zero_stage >= 1 else 1
    g /= n if s.zero_stage >= 2 else 1
    w /= n if s.zero_stage >= 3 else 1
    if s.method == "qlora":
        o = 0.0 * BYTE  # paged AdamW: the states live in unified memory, not on the card
    zero = 0.0 * BYTE
    return NaiveMemory(w, g, o, zero, zero, trainable)


def layer_activation_bytes(arch: ModelArch, s: TrainSetup, tokens: Quantity) -> Quantity:
    h, i = arch.hidden_size, arch.intermediate_size
    kv = arch.num_kv_heads * arch.head_dim
    q = arch.num_heads * arch.head_dim
    mask = 1.0 if s.dropout else 0.0
    attention = (2 * h + 2 * q + 4 * kv + 2 * q + mask * h) * BYTE / TOKEN
    mlp = (2 * h + (8 * i if arch.gated_mlp else 4 * i) + mask * h) * BYTE / TOKEN
    if arch.num_experts > 1:
        mlp = 2 * h * BYTE / TOKEN + (mlp - 2 * h * BYTE / TOKEN) * arch.experts_per_token
    per_token = attention + mlp + 4 * h * BYTE / TOKEN
    scores = 0.0 * BYTE
    if not s.flash_attention:
        scores = (5.0 if s.dropout else 2.0) * arch.num_heads * s.seq_len * tokens.magnitude * BYTE
    return (per_token * tokens).to(BYTE) + scores


def activations(arch: ModelArch, s: TrainSetup) -> Quantity:
    tokens = float(s.batch_size * s.seq_len) * TOKEN
    one_layer = layer_activation_bytes(arch, s, tokens)
    logits = (LOSS_BYTES_PER_LOGIT * BYTE / TOKEN * tokens * arch.vocab_size).to(BYTE)
    if s.gradient_checkpointing:
        inputs = (arch.layers * 2.0 * arch.hidden_size * BYTE / TOKEN * tokens).to(BYTE)
        return inputs + max(one_layer, logits)  # the loss buffers are gone before a layer is recomputed
    return arch.layers * one_layer + logits


def training_memory(arch: ModelArch, s: TrainSetup) -> NaiveMemory:
    mem = model_states(arch, s)
    mem.activations = activations(arch, s)
    shard = s.gpus if s.zero_stage >= 3 else 1
    gathered = 0.0 * BYTE
    if s.zero_stage >= 3 and s.gpus > 1:  # FSDP: two layers unsharded beside the shard
        per_layer = (arch.params_b * 1e9 - arch.embedding_params) / arch.layers * BYTES_PER_PARAM
        gathered = 2 * per_layer * FORMATS[s.weight_dtype if s.method == "full" else "bf16"].bits / 8
    fragmentation = FRAGMENTATION * (mem.total + gathered)
    mem.overhead = CUDA_CONTEXT_BYTES * BYTE + 2.0 * mem.trainable * BYTES_PER_PARAM / shard
    mem.overhead += gathered + fragmentation
    return mem


def fitting_setup(
    arch: ModelArch, base: TrainSetup, n: int, cap: Quantity, fixed: tuple[bool, bool]
) -> tuple[TrainSetup, NaiveMemory] | None:
    stages = [base.zero_stage] if fixed[0] or n == 1 else [0, 1, 2, 3]
    ckpts = [base.gradient_checkpointing] if fixed[1] else [False, True]
    for stage in stages:
        for ckpt in ckpts:
            setup = replace(base, zero_stage=stage if n > 1 else 0, gpus=n, gradient_checkpointing=ckpt)
            mem = training_memory(arch, setup)
            if mem.total <= cap * HEADROOM:
                return setup, mem
    return None


def flops_per_token(arch: ModelArch, method: str, recompute: bool, seq_len: int) -> Quantity:
    """Parameter matmuls plus attention over the sequence: 12·d·Σ_layers(tokens attended) per token
    (16 with recomputation; PaLM App. B), as ``engine.training``."""
    factor = 6.0 if method == "full" else 4.0
    matmuls = (factor + (2.0 if recompute else 0.0)) * arch.active_b * 1e9 * FLOP_PER_TOKEN
    if seq_len <= 0:
        return matmuls
    span = count(attended(arch, seq_len * TOKEN) / TOKEN)
    return matmuls + (16.0 if recompute else 12.0) * arch.num_heads * arch.head_dim * span * FLOP_PER_TOKEN


def peak(gpu: GpuSpec, dtype: str) -> Quantity:
    return training_peak_tflops(gpu, dtype) * TFLOP_PER_S


def step_compute(arch: ModelArch, gpu: GpuSpec, s: TrainSetup, tokens: Quantity, dtype: str) -> Quantity:
    work = flops_per_token(arch, s.method, s.gradient_checkpointing, s.seq_len) * tokens
    return (work / (peak(gpu, dtype) * mfu(gpu, s.method))).to(SECOND)


def sync_volume(trainable: float, zero_stage: int, micro_steps: int) -> Quantity:
    if zero_stage >= 3:
        return trainable * 2.0 * 1.5 * micro_steps * BYTES_PER_PARAM
    return trainable * 2.0 * BYTES_PER_PARAM


def sync(
    trainable: float, s: TrainSetup, gpu: GpuSpec, offer: Offer, per_machine: int, machines: int
) -> Quantity:
    micro = grad_accumulation(s.batch_size)
    ic = offer.interconnect
    volume = sync_volume(trainable, s.zero_stage, micro)
    inside = allreduce(volume, per_machine, link_bandwidth(gpu, ic), hop_latency(gpu, ic))
    if machines <= 1:
        return inside
    network = ((offer.network_gbps or 1.0) * ureg.gigabit / SECOND * NETWORK_EFFICIENCY).to(GB_PER_S)
    return inside + allreduce(volume / per_machine, machines, network, 10e-6 * SECOND)


def scaling_efficiency(compute: Quantity, comm: Quantity) -> float:
    exposed = max(0.0 * SECOND, comm - BACKWARD_SHARE * compute)
    return count(compute / (compute + exposed)) if compute > 0 * SECOND else 1.0


@dataclass(slots=True)
class NaiveTrainCandidate:
    offer: Offer
    setup: TrainSetup
    per_machine: int
    machines: int
    memory: NaiveMemory
    hours: Quantity | None
    efficiency: float
    tokens_per_s: Quantity
    sync: Quantity
    compute: Quantity
    monthly: cost.Quote
    job: cost.Quote | None


def evaluate(
    arch: ModelArch,
    base: TrainSetup,
    offer: Offer,
    gpu: GpuSpec,
    layout: tuple[int, int],
    tokens: float | None,
    duration_hours: float | None,
    fixed: tuple[bool, bool],
) -> NaiveTrainCandidate | None:
    per_machine, machines = layout
    n = per_machine * machines
    cap = ((offer.slice_memory_gib or gpu.usable_gib) * ureg.GiB).to(BYTE)
    dtype = base.weight_dtype if gpu.supports("bf16") or base.weight_dtype != "bf16" else "fp16"
    found = fitting_setup(arch, replace(base, weight_dtype=dtype), n, cap, fixed)
    if found is None:
        return None
    setup, mem = found
    step_tokens = setup.batch_size * setup.seq_len * grad_accumulation(setup.batch_size) * TOKEN
    compute = step_compute(arch, gpu, setup, step_tokens, dtype)
    eff = scaling_efficiency(compute, sync(mem.trainable, setup, gpu, offer, *layout)) if n > 1 else 1.0
    hours = None
    if tokens:
        per_gpu = step_compute(arch, gpu, setup, tokens * TOKEN, dtype) / n
        hours = (per_gpu / max(eff, 1e-6)).to(ureg.hour)
    held = hours.magnitude if hours is not None else duration_hours
    rate = n * peak(gpu, dtype) * mfu(gpu, setup.method) * eff
    per_token = flops_per_token(arch, setup.method, setup.gradient_checkpointing, setup.seq_len)
    return NaiveTrainCandidate(
        offer=offer,
        setup=setup,
        per_machine=per_machine,
        machines=machines,
        memory=mem,
        hours=hours,
        efficiency=eff,
        tokens_per_s=(rate / per_token).to(TOKEN / SECOND),
        sync=sync(mem.trainable, setup, gpu, offer, *layout),
        compute=compute,
        monthly=cost.always_on(offer, machines),
        job=cost.job(offer, held, machines) if held else None,
    )


def search(
    arch: ModelArch,
    base: TrainSetup,
    kb: Knowledge,
    offers: list[Offer],
    requested_gpus: int | None,
    tokens: float | None,
    duration_hours: float | None,
    fixed: tuple[bool, bool],
) -> list[NaiveTrainCandidate]:
    """Every fitting (offer, layout) candidate, in the engine's order."""
    out: list[NaiveTrainCandidate] = []
    for offer in offers:
        gpu = kb.gpus[offer.gpu]
        for layout in layouts(offer, requested_gpus):
            cand = evaluate(arch, base, offer, gpu, layout, tokens, duration_hours, fixed)
            if cand is not None:
                out.append(cand)
    return out


def assert_matches_engine(
    arch: ModelArch,
    base: TrainSetup,
    kb: Knowledge,
    offers: list[Offer],
    requested_gpus: int | None,
    tokens: float | None,
    duration_hours: float | None,
    fixed: tuple[bool, bool],
) -> int:
    """Raise AssertionError unless both searches give the same candidates and numbers; return the count."""
    args = (arch, base, kb, offers, requested_gpus, tokens, duration_hours, fixed)
    engine = training_search.search(*args)
    naive = search(*args)
    key_e = [
        (c.offer.id, c.gpus_per_machine, c.machines, c.zero_stage, c.gradient_checkpointing) for c in engine
    ]
    key_n = [
        (c.offer.id, c.per_machine, c.machines, c.setup.zero_stage, c.setup.gradient_checkpointing)
        for c in naive
    ]
    if key_e != key_n:
        raise AssertionError(f"candidates differ: naive {key_n} != engine {key_e}")
    for e, n in zip(engine, naive, strict=True):
        _check_candidate(e, n)
    return len(engine)


def _check_candidate(e: Candidate, n: NaiveTrainCandidate) -> None:
    label = f"{e.offer.id}/{e.gpus_per_machine}x{e.machines}"
    close(n.memory.total.to(BYTE).magnitude, e.memory.total, f"{label} memory total")
    close(n.tokens_per_s.magnitude, e.extras["tokens_per_s"], f"{label} tokens/s")
    close(n.efficiency, e.scaling_efficiency or math.nan, f"{label} scaling efficiency")
    close(n.sync.to(SECOND).magnitude, e.extras["sync_s"], f"{label} sync s")
    if (n.hours is None) != (e.training_hours is None):
        raise AssertionError(f"{label}: training hours given by one search only")
    if n.hours is not None and e.training_hours is not None:
        close(n.hours.magnitude, e.training_hours, f"{label} training hours")
