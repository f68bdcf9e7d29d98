"""Plan rules about cards people rent in China, said honestly in the user's language.

- A modified RTX 4090 48 GB is a 4090 die moved to a third-party clamshell board
  (``nonstandard`` in ``knowledge/gpus.yaml``): no NVIDIA warranty, a driver NVIDIA
  never validated for that board, and a resale value that depends on the rebuilder.
- An Ascend 910B runs no CUDA: its stack is CANN (torch_npu, MindSpore), MindIE or
  vLLM-Ascend for serving; CUDA kernels and the formats built on them (AWQ/GPTQ
  kernels, bitsandbytes, FlashAttention builds) do not run; it serves 16-bit weights
  and the W8A8 / W4A16 formats CANN quantises to (``software_stack`` of the card).
- An H20 keeps the H100's memory system (4 TB/s) but about 15 % of its dense compute:
  decode, which reads the weights, is fast; prefill, which is compute-bound (2·N FLOPs
  per prompt token), is slower by the compute ratio, so long prompts wait.

Every path that names such a card says its caveat: a plan's pitfalls (``RULES``) and a
yes/no verdict on the named card (``card_caveats``, ``engine.verdict``), from the same
builders, so the two cannot drift apart (issue 47).

Layout: see ``engine/rules/__init__.py``; sentences in ``locales/<lang>/plans.yaml``.
"""

from __future__ import annotations

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.results import Option
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.rules.hardware import PlanCheck, requested_gpu
from gpu_advisor.engine.search_context import Context
from gpu_advisor.engine.specs import GpuSpec, Knowledge

ASCEND_FORMATS = ["BF16", "FP16", "W8A8", "W4A16"]
PREFILL_REFERENCE = "h100-sxm"


def _cards(ctx: Context, pick: Candidate | None) -> list[GpuSpec]:
    """The cards the answer talks about: the one the user named first, then the pick's."""
    found = [g for g in (requested_gpu(ctx), pick.gpu if pick else None) if g is not None]
    return list({g.id: g for g in found}.values())


def _modified(card: GpuSpec, kb: Knowledge) -> Finding:
    ref = kb.gpus.get(card.lineage or "")
    return finding(
        "modified_card_caveat",
        "warn",
        gpu=card.name,
        ref_gpu=ref.name if ref else card.lineage,
        memory_gb=card.memory_gb,
    )


def _ascend(card: GpuSpec) -> Finding:
    return finding("ascend_stack", "warn", gpu=card.name, formats=ASCEND_FORMATS)


def _h20(card: GpuSpec, kb: Knowledge, prompt_tokens: int | None) -> Finding | None:
    ref = kb.gpus.get(PREFILL_REFERENCE)
    if ref is None:
        return None
    return finding(
        "h20_prefill",
        "info",
        gpu=card.name,
        bf16_tflops=card.tflops("bf16"),
        ref_gpu=ref.name,
        ref_bf16_tflops=ref.tflops("bf16"),
        slower=round(ref.tflops("bf16") / card.tflops("bf16"), 1),
        bandwidth_gbs=card.bandwidth_gbs,
        prompt_tokens=prompt_tokens,
    )


def _is_h20(card: GpuSpec) -> bool:
    return card.id.startswith("h20")


def modified_card_caveat(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """A rebuilt board (4090 48G): warranty, driver support and resale, not just '(rebuilt)'."""
    card = next((g for g in _cards(ctx, pick) if g.nonstandard), None)
    return None if card is None else _modified(card, ctx.kb)


def ascend_stack(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """An Ascend card: the CANN stack, what serves on it and in which formats."""
    card = next((g for g in _cards(ctx, pick) if g.vendor == "huawei"), None)
    return None if card is None else _ascend(card)


def h20_prefill(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """An H20 serving: fast decode, slow prefill, by how much against the H100."""
    card = next((g for g in _cards(ctx, pick) if _is_h20(g)), None)
    if ctx.task != "infer" or card is None or ctx.serve is None:
        return None
    return _h20(card, ctx.kb, ctx.serve.prompt_tokens)


def card_caveats(card: GpuSpec, kb: Knowledge, task: str, prompt_tokens: int | None) -> list[Finding]:
    """What must be said wherever ``card`` is named (a verdict on it, not only a plan).

    The rebuilt board's warranty and driver, the Ascend stack, and for serving the H20's
    slow prefill at the prompt length asked (``prompt_tokens``; training reads no prompt).
    """
    out: list[Finding | None] = []
    if card.nonstandard:
        out.append(_modified(card, kb))
    if card.vendor == "huawei":
        out.append(_ascend(card))
    if task == "infer" and _is_h20(card) and prompt_tokens:
        out.append(_h20(card, kb, prompt_tokens))
    return [f for f in out if f is not None]


def named_caveats(card: GpuSpec, kb: Knowledge) -> list[Finding]:
    """What a reply that only names ``card`` (its price, not a plan on it) must still say: the
    rebuilt board, the Ascend stack, the H20's slow prefill with no prompt length to size it by."""
    out: list[Finding | None] = [*card_caveats(card, kb, "train", None)]  # the two every task has
    if _is_h20(card):
        out.append(_h20(card, kb, None))
    return [f for f in out if f is not None]


def _s(**workload: object) -> Scenario:
    return Scenario(workload=workload)


RULES: tuple[Rule[PlanCheck], ...] = (
    Rule(
        id="modified_card_caveat",
        rank=180,
        check=modified_card_caveat,
        scenarios=(_s(task="infer", model="qwen2.5-32b", gpu="rtx4090-48g"),),
    ),
    Rule(
        id="ascend_stack",
        rank=190,
        check=ascend_stack,
        scenarios=(_s(task="infer", model="qwen2.5-72b", gpu="ascend-910b", gpu_count=8),),
    ),
    Rule(
        id="h20_prefill",
        rank=200,
        check=h20_prefill,
        scenarios=(_s(task="infer", params_b=7, gpu="h20", prompt_tokens=8000),),
    ),
)

# The caveats a reply that names such a card must carry: ranked before any other caveat on a
# card and in /why, so a one-screen view never drops them (issue 47).
CAVEATS: frozenset[str] = frozenset(rule.id for rule in RULES)
