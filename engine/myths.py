"""Common claims that the numbers contradict (../shared/seeds/README.md lists them).

A myth fires when the user's request rests on it: either the surface detected the
claim in their words (``Workload.claims``) or the request only makes sense if the
claim were true (e.g. planning a full fine-tune on a card that holds 2× the weights
but not the 16 bytes/parameter that mixed-precision AdamW needs). Each finding carries
the claimed figure and the true one.
"""

from __future__ import annotations

from engine.candidates import Candidate
from engine.dtypes import weight_bytes
from engine.findings import Finding, finding
from engine.search_context import Context
from engine.training import flops_per_token, mfu
from engine.units import GB

H100_DAY_TOKENS_CLAIMED = 10e12


def check(ctx: Context, pick: Candidate | None) -> list[Finding]:
    claims = set(ctx.workload.claims or ())
    out = []
    for claim, fn in _CHECKS.items():
        if claim in claims or _implied(ctx, claim):
            out.append(fn(ctx))
    return out


def _implied(ctx: Context, claim: str) -> bool:
    w, gpu = ctx.workload, ctx.kb.gpus.get(ctx.workload.gpu or "")
    if gpu is None:
        return False
    params = ctx.arch.params_b * 1e9
    n = w.gpu_count or w.gpus or 1
    if claim == "adam_doubles_memory":
        full = ctx.task == "train" and (w.method in (None, "full"))
        return full and 4 * params <= gpu.memory_gb * GB * n < 16 * params
    if claim == "q4_405b_on_one_h100":
        return ctx.task == "infer" and ctx.arch.params_b > 300 and n == 1
    return False


def _adam(ctx: Context) -> Finding:
    p = ctx.arch.params_b
    return finding(
        "myth_adam_doubles_memory",
        "warn",
        params_b=p,
        claimed_gb=round(4 * p, 1),
        true_gb=round(16 * p, 1),
        bytes_per_param=16,
    )


def _seven_b(ctx: Context) -> Finding:
    return finding("myth_full_finetune_7b_fits_40gb", "warn", params_b=7.0, true_gb=112.0, card_gb=40.0)


def _q4_405b(ctx: Context) -> Finding:
    arch = ctx.kb.models["llama-3.1-405b"]
    gb = weight_bytes(arch.params_b * 1e9, arch.embedding_params, "q4_k_m") / GB
    return finding(
        "myth_q4_405b_on_one_h100",
        "high",
        weights_gb=round(gb, 1),
        card_gb=80.0,
        cards_needed=int(-(-gb // 80)),
    )


def _t4_int8(ctx: Context) -> Finding:
    t4 = ctx.kb.gpus["t4"]
    return finding("myth_t4_int8_65_tops", "info", int8_tops=t4.tflops("int8"), fp16_tflops=t4.tflops("fp16"))


def _a100_nvlink(ctx: Context) -> Finding:
    a100, h100 = ctx.kb.gpus["a100-80g-sxm"], ctx.kb.gpus["h100-sxm"]
    return finding("myth_a100_nvlink_900", "info", a100_gbs=a100.nvlink_gbs, h100_gbs=h100.nvlink_gbs)


def _pcie(ctx: Context) -> Finding:
    one_way = ctx.kb.gpus["a100-80g-pcie"].pcie_gbs_per_direction
    return finding(
        "myth_pcie_64_gbs", "info", per_direction_gbs=round(one_way, 1), both_gbs=round(2 * one_way, 1)
    )


def _slice(ctx: Context) -> Finding:
    a40, a80 = ctx.kb.gpus["a100-40g-sxm"], ctx.kb.gpus["a100-80g-sxm"]
    return finding(
        "myth_a100_4g_slice", "info", smallest_40gb=a40.mig_profiles[0], smallest_80gb=a80.mig_profiles[0]
    )


def _tokens_per_day(ctx: Context) -> Finding:
    arch = ctx.arch if ctx.arch.params_b >= 1 else ctx.kb.models["llama-2-7b"]
    h100 = ctx.kb.gpus["h100-sxm"]
    per_day = (
        8 * h100.tflops("bf16") * 1e12 * mfu(h100, "full") * 86400 / flops_per_token(arch, "full", False)
    )
    return finding(
        "myth_h100_10t_tokens_per_day",
        "info",
        params_b=arch.params_b,
        tokens_per_day=round(per_day),
        claimed=H100_DAY_TOKENS_CLAIMED,
        ratio=round(H100_DAY_TOKENS_CLAIMED / per_day),
    )


def _t4_bandwidth(ctx: Context) -> Finding:
    g = ctx.kb.gpus
    return finding(
        "myth_t4_high_bandwidth",
        "info",
        t4_gbs=g["t4"].bandwidth_gbs,
        rtx3090_gbs=g["rtx3090"].bandwidth_gbs,
        a100_gbs=g["a100-40g-sxm"].bandwidth_gbs,
    )


def _nvlink_inference(ctx: Context) -> Finding:
    return finding(
        "myth_nvlink_useless_for_inference", "info", true_for="replicas", false_for="tensor_parallel"
    )


_CHECKS = {
    "adam_doubles_memory": _adam,
    "full_finetune_7b_fits_40gb": _seven_b,
    "q4_405b_on_one_h100": _q4_405b,
    "t4_int8_65_tops": _t4_int8,
    "a100_nvlink_900": _a100_nvlink,
    "pcie_64_gbs": _pcie,
    "a100_4g_slice": _slice,
    "h100_10t_tokens_per_day": _tokens_per_day,
    "t4_high_bandwidth": _t4_bandwidth,
    "nvlink_useless_for_inference": _nvlink_inference,
}
