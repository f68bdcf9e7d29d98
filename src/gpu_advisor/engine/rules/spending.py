"""Plan rules about money and time: paying for what the job does not use.

Each check returns a Finding with the figures that make the point, or None: own cards
that already do the job, a month rented for a three-day job, unquantised weights, a
training box left running, free platforms' session limits, decode speed bought with
bandwidth rather than memory, a KV cache that outweighs the model, and the serving
runtime's share of the speed. Layout: see ``engine/rules/__init__.py``.
"""

from __future__ import annotations

from gpu_advisor.engine import cost
from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.results import Option
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.rules.hardware import PlanCheck
from gpu_advisor.engine.search_context import Context
from gpu_advisor.engine.units import GiB

SHORT_JOB_HOURS = 360.0
FREE_SESSION_HOURS = 12
QUANTISED = ("int8", "awq", "gptq", "int4", "fp8")


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


def monthly_rental_for_short_job(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """A job of days billed as a month, because the offer only rents by the month."""
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


def quantize_before_deploy(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """16-bit weights where a quantised build on a cheaper machine would serve."""
    if ctx.task != "infer" or pick is None or pick.weight_dtype not in ("bf16", "fp16", "fp32"):
        return None
    quant = [
        c for c in ctx.candidates if c.weight_dtype in QUANTISED and c.monthly.amount < pick.monthly.amount
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


def release_training_machine(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """A training box kept all month (warn), or a reminder to hand it back after the job (info)."""
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


def free_gpu_platform_limits(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """Colab/Kaggle-style sessions end after hours; a longer job must checkpoint and resume."""
    if not ctx.workload.free_platform:
        return None
    hours = pick.training_hours if pick else None
    return finding(
        "free_gpu_platform_limits",
        "warn",
        session_hours=FREE_SESSION_HOURS,
        job_hours=round(hours, 1) if hours else None,
    )


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


def kv_cache_dominates(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """The KV cache outweighs the weights: context and batch, not the model, size the card."""
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


def software_stack_matters(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """The plan's speeds hold on its serving runtime, not on plain transformers generate.

    Said as what the plan assumes, never as advice to switch to the runtime the plan
    already uses (issue 47: a vLLM plan told "switch to vLLM, 1.6× faster"). Silent when
    the pick runs on transformers itself: there is nothing slower to warn against.
    """
    if ctx.task != "infer" or pick is None:
        return None
    slow = ctx.kb.runtimes["transformers"]
    fast = ctx.kb.runtimes[pick.runtime or "vllm"]
    if fast.decode_bw_efficiency <= slow.decode_bw_efficiency:
        return None
    return finding(
        "software_stack_matters",
        "info",
        runtime=fast.name,
        baseline="transformers_generate",
        speedup=round(fast.decode_bw_efficiency / slow.decode_bw_efficiency, 2),
        continuous_batching=fast.continuous_batching,
    )


def _s(branch: str = "fires", severity: str | None = None, **workload: object) -> Scenario:
    return Scenario(branch=branch, severity=severity, workload=workload)


RULES: tuple[Rule[PlanCheck], ...] = (
    Rule(
        id="own_hardware_is_enough",
        rank=10,
        check=own_hardware_is_enough,
        scenarios=(_s(task="infer", params_b=7, gpu="rtx4090", gpu_owned=True),),
    ),
    Rule(
        id="monthly_rental_for_short_job",
        rank=90,
        check=monthly_rental_for_short_job,
        scenarios=(_s(task="train", model="llama-2-7b", method="qlora", duration_hours=72),),
    ),
    Rule(
        id="quantize_before_deploy",
        rank=100,
        check=quantize_before_deploy,
        scenarios=(_s(task="infer", params_b=34, ttft_ms_max=200),),  # a tight TTFT picks 16-bit weights
    ),
    Rule(
        id="kv_cache_dominates",
        rank=110,
        check=kv_cache_dominates,
        scenarios=(_s(task="infer", params_b=7, concurrency=64),),
    ),
    Rule(
        id="bandwidth_over_capacity",
        rank=130,
        check=bandwidth_over_capacity,
        scenarios=(_s(task="infer", params_b=7, gpu="rtx4090"),),
    ),
    Rule(
        id="release_training_machine",
        rank=140,
        check=release_training_machine,
        branches=("kept_all_month", "after_the_job"),
        scenarios=(
            _s("kept_all_month", "warn", task="train", params_b=7, method="lora", always_on=True),
            _s("after_the_job", "info", task="both", params_b=13, method="lora", train_tokens=5e7),
        ),
    ),
    Rule(
        id="free_gpu_platform_limits",
        rank=210,
        check=free_gpu_platform_limits,
        scenarios=(_s(task="train", params_b=7, method="qlora", free_platform=True),),
    ),
    Rule(
        id="software_stack_matters",
        rank=220,
        check=software_stack_matters,
        scenarios=(_s(task="infer", params_b=7),),
    ),
)
