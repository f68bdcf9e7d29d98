"""Pitfalls: the expensive mistakes from the seed articles, as rules with stable ids.

Each rule looks at the request, the pick and the user's own hardware and, when it
applies, returns a Finding carrying the numbers that make the point. Rules never
produce prose; ``locales`` does. Order is the order of ``RULES``: the costliest
mistakes first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from engine import cost, myths
from engine.candidates import Candidate
from engine.findings import Finding, finding
from engine.interconnect import link_gbs, tp_decode_comm_s
from engine.memory import training_memory
from engine.results import Option
from engine.search_context import Context
from engine.specs import GpuSpec
from engine.units import GiB

Rule = Callable[[Context, Candidate | None, Option | None], Finding | None]

TRAINING_CLASS = {"a100-40g-sxm", "a100-80g-sxm", "a800-80g-sxm", "h100-sxm", "h800-sxm", "h200-sxm", "b200"}
INFERENCE_CLASS = {"t4", "l4", "a10", "l20", "rtx3090", "rtx4090", "v100-16g-pcie"}
SHORT_JOB_HOURS = 360.0
CORES_PER_GPU = 8
RAM_GB_PER_GPU = 64
FREE_SESSION_HOURS = 12


def _requested_gpu(ctx: Context) -> GpuSpec | None:
    return ctx.kb.gpus.get(ctx.workload.gpu or "")


def inference_on_training_machine(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """A multi-GPU training node serving a model that one cheaper card could serve."""
    gpu, n = _requested_gpu(ctx), ctx.workload.gpu_count or 1
    if ctx.task != "infer" or gpu is None or pick is None or req is None:
        return None
    fx = ctx.kb.catalog.fx_to_cny
    req_cost = req.monthly_cost
    requested = cost.to_currency(req_cost.amount, req_cost.currency, pick.monthly.currency, fx)
    if not (gpu.id in TRAINING_CLASS and n >= 2) or (requested or 0.0) <= 1.5 * pick.monthly.amount:
        return None
    needed = pick.total_gpus
    return finding(
        "inference_on_training_machine",
        "high",
        gpu=gpu.name,
        gpus=n,
        requested_monthly=req.monthly_cost.amount,
        requested_monthly_currency=req.monthly_cost.currency,
        pick_monthly=round(pick.monthly.amount),
        pick_gpu=pick.gpu.name,
        pick_gpus=needed,
        saving_monthly=round((requested or 0.0) - pick.monthly.amount),
        utilization_pct=round(100 * min(1.0, _load_share(ctx, req)), 1),
        currency=pick.monthly.currency,
    )


def _load_share(ctx: Context, req: Option) -> float:
    """Share of the requested machine's serving capacity the workload uses."""
    s = ctx.serve
    assert s is not None
    per_replica = (req.requests_per_s or 0) / max(req.replicas or 1, 1)
    demand = s.qps if s.qps else s.concurrency / max(req.batch or 1, 1) * per_replica
    per_machine = per_replica * max(1, req.count // max(req.tensor_parallel or 1, 1))
    return demand / per_machine if per_machine else 1.0


def training_on_inference_card(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    gpu = _requested_gpu(ctx)
    if ctx.task != "train" or gpu is None or gpu.id not in INFERENCE_CLASS:
        return None
    if req is not None and req.method == (ctx.train.method if ctx.train else None):
        return None
    need = _need_on(ctx, gpu)
    return finding(
        "training_on_inference_card",
        "high",
        gpu=gpu.name,
        capacity_gib=round(gpu.usable_gib, 2),
        need_gib=need,
        method=ctx.train.method if ctx.train else "full",
        pick_gpu=pick.gpu.name if pick else None,
        pick_gpus=pick.total_gpus if pick else None,
    )


def _need_on(ctx: Context, gpu: GpuSpec) -> float:
    assert ctx.train is not None
    n = ctx.workload.gpu_count or 1
    setup = replace(ctx.train, gpus=n, zero_stage=0 if n == 1 else 3, weight_dtype="fp16")
    return round(training_memory(ctx.arch, setup).total / GiB, 1)


def nvlink_useless_for_inference(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """NVLink buys nothing for independent replicas — unless the model must be split (TP)."""
    if ctx.task != "infer" or pick is None:
        return None
    if pick.tensor_parallel > 1:
        nv = _tp_ms(ctx, pick, "nvlink")
        pcie = _tp_ms(ctx, pick, "pcie")
        return finding(
            "nvlink_needed_for_tensor_parallel",
            "warn",
            tensor_parallel=pick.tensor_parallel,
            nvlink_ms_per_token=nv,
            pcie_ms_per_token=pcie,
            layers=ctx.arch.layers,
        )
    gpu = _requested_gpu(ctx)
    if gpu is None or gpu.nvlink_gbs == 0:
        return None
    return finding(
        "nvlink_useless_for_inference",
        "info",
        gpu=gpu.name,
        nvlink_gbs=gpu.nvlink_gbs,
        replicas=pick.replicas,
    )


def _tp_ms(ctx: Context, c: Candidate, ic: str) -> float:
    gpu = c.gpu
    if ic == "nvlink" and gpu.nvlink_gbs == 0:
        gpu = ctx.kb.gpus["a100-80g-sxm"]
    s = tp_decode_comm_s(ctx.arch.hidden_size, ctx.arch.layers, c.batch, c.tensor_parallel, gpu, ic)  # type: ignore[arg-type]
    return round(s * 1e3, 2)


def bandwidth_over_capacity(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """A card with more memory but less bandwidth decodes slower; bandwidth sets tokens/s."""
    if ctx.task != "infer" or pick is None:
        return None
    fx = ctx.kb.catalog.fx_to_cny
    faster = [
        c
        for c in ctx.candidates
        if c.gpu.bandwidth_gbs >= 2 * pick.gpu.bandwidth_gbs
        and cost.in_cny(c.monthly, fx) <= 2.5 * cost.in_cny(pick.monthly, fx)
        and c.weight_dtype == pick.weight_dtype
    ]
    if not faster:
        return None
    best = min(faster, key=lambda c: cost.in_cny(c.monthly, fx))
    return finding(
        "bandwidth_over_capacity",
        "info",
        gpu=pick.gpu.name,
        bandwidth_gbs=pick.gpu.bandwidth_gbs,
        tokens_per_s=round(pick.decode_tokens_per_s or 0, 1),
        other_gpu=best.gpu.name,
        other_bandwidth_gbs=best.gpu.bandwidth_gbs,
        other_tokens_per_s=round(best.decode_tokens_per_s or 0, 1),
        other_monthly=round(best.monthly.amount),
        other_monthly_currency=best.monthly.currency,
        monthly=round(pick.monthly.amount),
        currency=pick.monthly.currency,
    )


def release_training_machine(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    if ctx.task not in ("train", "both") or pick is None:
        return None
    if ctx.workload.always_on and ctx.task == "train":
        return finding(
            "release_training_machine",
            "warn",
            monthly=round(pick.monthly.amount),
            hours=pick.training_hours,
            currency=pick.monthly.currency,
        )
    if ctx.workload.task == "both" or pick.training_hours is not None:
        return finding(
            "release_training_machine",
            "info",
            monthly=round(pick.monthly.amount),
            hours=round(pick.training_hours, 1) if pick.training_hours else None,
            currency=pick.monthly.currency,
        )
    return None


def pcie_card_sold_as_nvlink_trainer(
    ctx: Context, pick: Candidate | None, req: Option | None
) -> Finding | None:
    gpu, n = _requested_gpu(ctx), ctx.workload.gpu_count or ctx.workload.gpus or 1
    if ctx.task != "train" or n < 2:
        return None
    card = gpu or (pick.gpu if pick else None)
    if card is None or (card.nvlink_gbs > 0 and (req is None or req.interconnect != "pcie")):
        return None
    nvlink_ref = ctx.kb.gpus["a100-80g-sxm"]
    return finding(
        "pcie_card_sold_as_nvlink_trainer",
        "high",
        gpu=card.name,
        gpus=n,
        pcie_gbs=round(link_gbs(card, "pcie"), 1),
        nvlink_gbs=round(link_gbs(nvlink_ref, "nvlink"), 1),
        efficiency=req.scaling_efficiency if req else None,
    )


def slow_network_for_multi_node(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """Machines joined by an ordinary network lose most of their speed to gradient traffic."""
    if pick is None or pick.machines <= 1 or (pick.scaling_efficiency or 1.0) >= 0.7:
        return None
    return finding(
        "slow_network_for_multi_node",
        "high",
        machines=pick.machines,
        network_gbps=pick.offer.network_gbps,
        efficiency=round(pick.scaling_efficiency or 0.0, 3),
        sync_s=round(pick.extras.get("sync_s", 0.0), 2),
        compute_s=round(pick.extras.get("compute_s", 0.0), 2),
    )


def cpu_ram_storage_starve_gpus(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    if ctx.task not in ("train", "both") or pick is None:
        return None
    o, n = pick.offer, pick.gpus_per_machine
    cores, ram = o.cpu_cores or 0, o.ram_gb or 0
    if cores >= CORES_PER_GPU * n and ram >= RAM_GB_PER_GPU * n and (n < 8 or (o.nvme_tb or 0) > 0):
        return None
    addons = [a.id for a in ctx.kb.catalog.addons]
    addon_cost = sum(a.price_month for a in ctx.kb.catalog.addons)
    return finding(
        "cpu_ram_storage_starve_gpus",
        "warn",
        gpus=n,
        cpu_cores=cores,
        ram_gb=ram,
        need_cores=CORES_PER_GPU * n,
        need_ram_gb=RAM_GB_PER_GPU * n,
        addons=addons,
        addon_monthly=addon_cost,
        currency=ctx.kb.catalog.currency,
    )


def quantize_before_deploy(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    if ctx.task != "infer" or pick is None or pick.weight_dtype not in ("bf16", "fp16", "fp32"):
        return None
    quant = [
        c
        for c in ctx.candidates
        if c.weight_dtype in ("int8", "awq", "gptq", "int4", "fp8") and c.monthly.amount < pick.monthly.amount
    ]
    if not quant:
        return None
    best = min(quant, key=lambda c: c.monthly.amount)
    return finding(
        "quantize_before_deploy",
        "warn",
        weight_dtype=best.weight_dtype,
        gpu=best.gpu.name,
        monthly=round(best.monthly.amount),
        pick_monthly=round(pick.monthly.amount),
        saving_monthly=round(pick.monthly.amount - best.monthly.amount),
    )


def software_stack_matters(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    if ctx.task != "infer" or pick is None:
        return None
    slow = ctx.kb.runtimes["transformers"]
    fast = ctx.kb.runtimes[pick.runtime or "vllm"]
    ratio = fast.decode_bw_efficiency / slow.decode_bw_efficiency
    return finding(
        "software_stack_matters",
        "info",
        runtime=fast.name,
        baseline=slow.name,
        speedup=round(ratio, 2),
        continuous_batching=fast.continuous_batching,
    )


def monthly_rental_for_short_job(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    hours = (pick.training_hours if pick else None) or ctx.workload.duration_hours
    if pick is None or hours is None or ctx.workload.always_on or hours >= SHORT_JOB_HOURS:
        return None
    if pick.offer.price_hour is not None:
        return None
    billed = pick.job.amount if pick.job else pick.monthly.amount
    return finding(
        "monthly_rental_for_short_job",
        "warn",
        hours=round(hours, 1),
        billed=round(billed),
        effective_hourly=round(billed / max(hours, 1.0), 1),
        currency=pick.monthly.currency,
    )


def kv_cache_dominates(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    if ctx.task != "infer" or pick is None or pick.memory.kv_cache <= pick.memory.weights:
        return None
    return finding(
        "kv_cache_dominates",
        "warn",
        kv_gib=round(pick.memory.kv_cache / GiB, 2),
        weights_gib=round(pick.memory.weights / GiB, 2),
        batch=pick.batch,
        num_kv_heads=ctx.arch.num_kv_heads,
        num_heads=ctx.arch.num_heads,
    )


def consumer_card_limits(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    cards = [g for g in (pick.gpu if pick else None, _requested_gpu(ctx)) if g and g.segment == "consumer"]
    if not cards:
        return None
    g = cards[0]
    return finding("consumer_card_limits", "info", gpu=g.name, memory_gb=g.memory_gb, nvlink_gbs=g.nvlink_gbs)


def china_variant_limits(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    cards = [g for g in (pick.gpu if pick else None, _requested_gpu(ctx)) if g and g.china_variant]
    if not cards:
        return None
    g = cards[0]
    return finding(
        "china_variant_limits",
        "info",
        gpu=g.name,
        nvlink_gbs=g.nvlink_gbs,
        bf16_tflops=g.tflops("bf16"),
        bandwidth_gbs=g.bandwidth_gbs,
    )


def own_hardware_is_enough(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """The user's own cards can do the job: say so before they rent anything."""
    if not ctx.workload.gpu_owned or req is None or req.machines > 1:
        return None
    return finding(
        "own_hardware_is_enough",
        "high",
        gpu=req.gpu_name,
        gpus=req.count,
        total_gib=req.memory_gib["total"],
        capacity_gib=req.capacity_gib,
        pick_monthly=round(pick.monthly.amount) if pick else None,
        currency=pick.monthly.currency if pick else ctx.kb.catalog.currency,
    )


def free_gpu_platform_limits(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    if not ctx.workload.free_platform:
        return None
    hours = pick.training_hours if pick else None
    return finding(
        "free_gpu_platform_limits",
        "warn",
        session_hours=FREE_SESSION_HOURS,
        job_hours=round(hours, 1) if hours else None,
    )


RULES: tuple[Rule, ...] = (
    own_hardware_is_enough,
    inference_on_training_machine,
    training_on_inference_card,
    pcie_card_sold_as_nvlink_trainer,
    slow_network_for_multi_node,
    monthly_rental_for_short_job,
    quantize_before_deploy,
    kv_cache_dominates,
    nvlink_useless_for_inference,
    bandwidth_over_capacity,
    release_training_machine,
    cpu_ram_storage_starve_gpus,
    consumer_card_limits,
    china_variant_limits,
    free_gpu_platform_limits,
    software_stack_matters,
)


def evaluate(ctx: Context, pick: Candidate | None, requested: Option | None) -> list[Finding]:
    found = [f for rule in RULES if (f := rule(ctx, pick, requested)) is not None]
    return [*myths.check(ctx, pick), *found]
