"""Common claims that the numbers contradict (../shared/seeds/README.md lists them).

A myth fires when the user's request rests on it: either the surface detected the
claim in their words (``Workload.claims``) or the request only makes sense if the
claim were true (e.g. planning a full fine-tune on a card that holds 2× the weights
but not the 16 bytes/parameter that mixed-precision AdamW needs). Each finding carries
the claimed figure and the true one.

Each myth is one ``Rule`` in ``RULES`` (layout: ``engine/rules/__init__.py``): its
finding id, the check that states the true figures (the claim id a ``Workload.claims``
carries is the finding id without ``myth_``) and a scenario per branch: said in words,
and, for two of them, implied by the request itself. How each claim is heard in a
message is ``reading.claim_words`` (issue 42: the engine keeps the facts).
"""

from __future__ import annotations

from collections.abc import Callable

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.dtypes import weight_bytes
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.search_context import Context
from gpu_advisor.engine.training import flops_per_token, mfu
from gpu_advisor.engine.units import GB

H100_DAY_TOKENS_CLAIMED = 10e12
MythCheck = Callable[[Context], Finding]


def claim_of(rule: Rule[MythCheck]) -> str:
    """The claim id a ``Workload`` carries for a myth: its finding id without ``myth_``."""
    return rule.id.removeprefix("myth_")


def check(ctx: Context, pick: Candidate | None) -> list[Finding]:
    claims = set(ctx.workload.claims or ())
    return [r.check(ctx) for r in RULES if claim_of(r) in claims or _implied(ctx, claim_of(r))]


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


def _thirteen_b(ctx: Context) -> Finding:
    card = ctx.kb.gpus["a100-80g-sxm"]
    need = 16 * 13.0  # 16 bytes per parameter (ZeRO §3.1), before activations
    return finding(
        "myth_full_finetune_13b_fits_80gb",
        "warn",
        params_b=13.0,
        true_gb=need,
        card_gb=card.memory_gb,
        cards_needed=int(-(-need // card.memory_gb)),
    )


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
        mfu=mfu(h100, "full"),
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


_BASE = {"task": "train", "params_b": 7}


def _said(text: str) -> Scenario:
    return Scenario(branch="claimed", said=text, workload=_BASE)


RULES: tuple[Rule[MythCheck], ...] = (
    Rule(
        id="myth_adam_doubles_memory",
        check=_adam,
        branches=("claimed", "implied"),
        scenarios=(
            _said("adam 只是让显存翻倍吧"),
            Scenario(
                branch="implied",
                workload={
                    "task": "train",
                    "params_b": 7,
                    "method": "full",
                    "gpu": "a100-80g-sxm",
                    "gpu_count": 1,
                },
            ),
        ),
    ),
    Rule(
        id="myth_full_finetune_7b_fits_40gb",
        check=_seven_b,
        branches=("claimed",),
        scenarios=(_said("7b 全参微调 40g 显卡就够"),),
    ),
    Rule(
        id="myth_full_finetune_13b_fits_80gb",
        check=_thirteen_b,
        branches=("claimed",),
        scenarios=(_said("13b 全参微调一张 80g 就够"),),
    ),
    Rule(
        id="myth_q4_405b_on_one_h100",
        check=_q4_405b,
        branches=("claimed", "implied"),
        scenarios=(
            _said("405b q4 一张 h100 能跑"),
            Scenario(
                branch="implied",
                workload={
                    "task": "infer",
                    "model": "llama-3.1-405b",
                    "weight_dtype": "q4_k_m",
                    "gpu": "h100-sxm",
                    "gpu_count": 1,
                },
            ),
        ),
    ),
    Rule(
        id="myth_t4_int8_65_tops",
        check=_t4_int8,
        branches=("claimed",),
        scenarios=(_said("t4 的 int8 有 65 tops"),),
    ),
    Rule(
        id="myth_a100_nvlink_900",
        check=_a100_nvlink,
        branches=("claimed",),
        scenarios=(_said("a100 的 nvlink 有 900 gb/s"),),
    ),
    Rule(
        id="myth_pcie_64_gbs",
        check=_pcie,
        branches=("claimed",),
        scenarios=(_said("pcie 4.0 x16 one way is 64 gb/s"),),
    ),
    Rule(
        id="myth_a100_4g_slice",
        check=_slice,
        branches=("claimed",),
        scenarios=(_said("a100 最小能切 4g 切片"),),
    ),
    Rule(
        id="myth_h100_10t_tokens_per_day",
        check=_tokens_per_day,
        branches=("claimed",),
        scenarios=(_said("8 卡 h100 一天能训 10t token"),),
    ),
    Rule(
        id="myth_t4_high_bandwidth",
        check=_t4_bandwidth,
        branches=("claimed",),
        scenarios=(_said("the t4 is a high bandwidth card"),),
    ),
    Rule(
        id="myth_nvlink_useless_for_inference",
        check=_nvlink_inference,
        branches=("claimed",),
        scenarios=(_said("nvlink 对推理没用吧"),),
    ),
)


CLAIMS: frozenset[str] = frozenset(claim_of(rule) for rule in RULES)
"""Every claim a ``Workload`` may carry, one per myth rule (the contract's list, generated)."""
