"""Concrete settings for what the user did not say, each reported as an assumption.

A plan is only as honest as its assumptions, so every default taken here becomes a
``Finding("assumed_<field>", ...)`` that the surfaces show. The values are the common
case for people renting one to eight GPUs: a small team's chatbot (4 concurrent
streams, 512-token prompts, 256-token answers, 4k context) and a fine-tune at 2k
sequence length, batch 1 per GPU, with gradient checkpointing and flash attention.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gpu_advisor.engine.dtypes import FORMATS
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.lengths import serving_lengths
from gpu_advisor.engine.memory import TrainSetup
from gpu_advisor.engine.queueing import UTILISATION_TARGET
from gpu_advisor.engine.specs import GpuSpec, ModelArch, RuntimeProfile
from gpu_advisor.engine.train_recipes import TrainingRecipe
from gpu_advisor.engine.workload import Workload

SERVE_CONCURRENCY = 4
TRAIN_SEQ = 2048
LORA_RANK = 16
SEQUENCES_PER_STEP = 16
GGUF_FORMATS = ("q4_k_m", "q4_0", "q8_0")
AUTO_FORMATS = ("bf16", "fp8", "int8", "awq")


@dataclass(frozen=True, slots=True)
class ServeSetup:
    formats: tuple[str, ...]
    kv_dtype: str
    context_len: int
    prompt_tokens: int
    output_tokens: int
    concurrency: int
    qps: float | None
    ttft_ms_max: float | None
    runtime: str | None
    tensor_parallel: int | None
    ttft_p99_s: float | None = None
    tpot_p99_s: float | None = None
    utilisation: float = UTILISATION_TARGET
    shared_prefix: int = 0
    resident_tokens: int = 0  # KV tokens one user holds: the stated context, else prompt + half the answer
    attention_dp: bool = False  # SGLang --enable-dp-attention: each GPU attends for its own sequences
    max_num_seqs: int | None = None  # the user's scheduler limits; None: the runtime's defaults
    max_num_batched_tokens: int | None = None
    memory_share: float | None = None  # the user's gpu_memory_utilization; None: the runtime's own

    def configured(self, rt: RuntimeProfile, gpu: GpuSpec) -> RuntimeProfile:
        """The runtime as this setup runs it on ``gpu``: the user's scheduler limits over its
        defaults for that card (``RuntimeProfile.token_budget``).

        Every reader of ``max_batch`` and ``max_num_batched_tokens`` (slots, chunking,
        the first token's chunks, the memory SGLang reserves for a chunk) then sees the same
        limits, from one place: the copy has no card tiers left to override them. A memory
        share the user set (``gpu_memory_utilization``) is the share of every card, as
        vLLM's flag is, in place of the runtime's own rule (SGLang's card-sized reserve).

        One copy per (runtime, card, the user's limits) for the process (``_CONFIGURED``,
        bounded): every plan then hands the same record to ``replica.speed``, whose kept
        step-time models are found by the records' identity (issue 41).
        """
        key = (id(rt), id(gpu), self.max_num_seqs, self.max_num_batched_tokens, self.memory_share)
        got = _CONFIGURED.get(key)
        if got is not None and got[0] is rt and got[1] is gpu:
            return got[2]
        seqs, card_default = self.max_num_seqs or rt.max_batch, rt.token_budget(gpu)
        tokens = self.max_num_batched_tokens or card_default
        update: dict[str, object] = {}
        if not (seqs == rt.max_batch and tokens == rt.max_num_batched_tokens == card_default):
            update |= {"max_batch": seqs, "max_num_batched_tokens": tokens, "card_token_budgets": []}
        if self.memory_share is not None:  # the share the user set replaces the runtime's rule
            update |= {"memory_utilization": self.memory_share, "static_reserve": None}
        out = rt.model_copy(update=update) if update else rt
        if len(_CONFIGURED) >= CONFIGURED_KEPT:
            _CONFIGURED.clear()
        _CONFIGURED[key] = (rt, gpu, out)  # rt and gpu kept alive: their ids name no other record
        return out


CONFIGURED_KEPT = 512  # runtimes × cards × the few limits users set: ~4 runtimes × ~40 cards
_CONFIGURED: dict[
    tuple[int, int, int | None, int | None, float | None], tuple[RuntimeProfile, GpuSpec, RuntimeProfile]
] = {}


def serve_setup(w: Workload, arch: ModelArch) -> tuple[ServeSetup, list[Finding]]:
    lengths, assumed = serving_lengths(w, arch)
    if w.concurrency is None and w.qps is None:
        assumed.append(finding("assumed_concurrency", value=SERVE_CONCURRENCY))
        concurrency = SERVE_CONCURRENCY
    else:
        concurrency = w.concurrency or 1
    formats = (w.weight_dtype,) if w.weight_dtype else serving_formats(arch)
    if w.weight_dtype is None:
        assumed.append(finding("assumed_weight_dtype_search", value=list(formats)))
    if w.kv_dtype is None:
        assumed.append(finding("assumed_kv_dtype", value="fp16"))
    setup = ServeSetup(
        formats=formats,
        kv_dtype=w.kv_dtype or "fp16",
        context_len=lengths.context,
        prompt_tokens=lengths.prompt,
        output_tokens=lengths.output,
        concurrency=concurrency,
        qps=w.qps,
        ttft_ms_max=w.ttft_ms_max,
        runtime=w.runtime,
        tensor_parallel=w.tensor_parallel,
        ttft_p99_s=w.ttft_ms_p99 / 1e3 if w.ttft_ms_p99 else None,
        tpot_p99_s=w.tpot_ms_p99 / 1e3 if w.tpot_ms_p99 else None,
        utilisation=w.utilisation_target or UTILISATION_TARGET,
        shared_prefix=min(w.shared_prefix_tokens or 0, lengths.prompt),
        resident_tokens=resident_tokens(w, lengths.context, lengths.prompt + (lengths.output + 1) // 2),
        attention_dp=bool(w.attention_dp),
        max_num_seqs=w.max_num_seqs,
        max_num_batched_tokens=w.max_num_batched_tokens,
        memory_share=w.gpu_memory_utilization,
    )
    if w.expert_parallel is not None:
        assumed.append(finding("assumed_expert_parallel_as_tensor", value=w.expert_parallel))
    if w.qps is not None and w.utilisation_target is None:
        assumed.append(finding("assumed_utilisation_target", value=UTILISATION_TARGET))
    return setup, assumed


def resident_tokens(w: Workload, context: int, request: int) -> int:
    """KV tokens each concurrent user holds: the window the user stated, else prompt + answer.

    "4 users at 4,096 tokens of context" promises each user the whole window, which is
    what ``estimate`` reserves; without a stated window vLLM's paged cache holds only
    what a request has so far (Kwon et al. 2023): its prompt and, averaged over its
    life, half its answer — ``request`` is that mean. A stated prompt says how long
    requests really are, so it wins over the window.
    """
    if w.context_len is not None and w.prompt_tokens is None:
        return max(context, request)
    return request


def serving_formats(arch: ModelArch) -> tuple[str, ...]:
    """Formats a search tries when the user names none.

    A model published in a low-precision format (DeepSeek-V3/R1 in block-scaled FP8,
    gpt-oss with MXFP4 experts) is served in it or below it: upcasting to bf16 doubles
    or quadruples the memory and gains no quality over the weights as trained.
    """
    native = arch.native_dtype
    if native in ("fp32", "fp16", "bf16"):
        return AUTO_FORMATS
    bits = FORMATS[native].bits
    return (native, *(f for f in AUTO_FORMATS if FORMATS[f].bits < bits))


def runtime_for(fmt: str, requested: str | None) -> str:
    """GGUF formats run on llama.cpp; everything else defaults to vLLM."""
    if requested:
        return requested
    return "llama_cpp" if fmt in GGUF_FORMATS else "vllm"


def train_setup(
    w: Workload,
    arch: ModelArch,
    gpu: GpuSpec | None,
    gpus: int,
    recipes: Mapping[str, TrainingRecipe] | None = None,
) -> tuple[TrainSetup, list[Finding]]:
    """Training settings for ``gpus`` GPUs of ``gpu`` (None: precision decided later).

    What the user did not state comes from the named recipe's defaults
    (``engine.train_recipes``; ``recipes`` is ``Knowledge.training_recipes``), else from
    the Hugging Face mixed-precision defaults below; either way each is said.
    """
    assumed: list[Finding] = []
    method = w.method or "full"
    if w.method is None:
        assumed.append(finding("assumed_method", value="full"))
    dtype = w.weight_dtype if w.weight_dtype in ("fp32", "fp16", "bf16") else None
    if dtype is None:
        dtype = "bf16" if gpu is None or gpu.supports("bf16") else "fp16"
    seq = w.seq_len or w.context_len or min(TRAIN_SEQ, arch.max_context)
    r = (recipes or {}).get(w.recipe or default_recipe(method, gpus))
    d = _recipe_defaults(r, method, gpus)
    for name, given, default in (
        ("seq_len", w.seq_len or w.context_len, seq),
        ("batch_size", w.batch_size, 1),
        ("optimizer", w.optimizer, d.optimizer),
        ("gradient_checkpointing", w.gradient_checkpointing, d.checkpointing),
    ):
        if given is None:
            assumed.append(finding(f"assumed_{name}", value=default))
    targets = w.lora_targets or d.targets
    if method != "full" and w.lora_rank is None:
        assumed.append(finding("assumed_lora_rank", value=d.rank, targets=targets))
    setup = TrainSetup(
        method=method,
        weight_dtype=dtype,
        optimizer=w.optimizer or d.optimizer,
        batch_size=w.batch_size or 1,
        seq_len=seq,
        gradient_checkpointing=_stated(w.gradient_checkpointing, d.checkpointing),
        fused_ce=_stated(w.fused_ce, d.loss == "fused"),
        chunked_ce=_stated(w.chunked_ce, d.loss == "chunked"),
        master_weights=_stated(w.master_weights, d.master_weights),
        optimizer_in_backward=_stated(w.optimizer_in_backward, d.in_backward),
        activation_offloading=bool(w.activation_offloading),
        selective_checkpointing=bool(w.selective_checkpointing),
        zero_stage=_zero_stage(w, r, gpus),
        gpus=gpus,
        lora_rank=w.lora_rank or d.rank,
        lora_targets=targets,
        foreach_step=d.foreach_step,
        live_params=d.live_params,
        autocast=d.autocast,
    )
    if r is not None:
        assumed.append(_recipe_finding(r, setup))
    return setup, assumed


def default_recipe(method: str, gpus: int) -> str:
    """The framework a fine-tune is sized for when the user names none (issue 45).

    LLaMA-Factory, the most-run of the recipes the knowledge holds, on one GPU and for
    adapters on several (its LoRA examples run plain data parallel); a full fine-tune on
    several GPUs under DeepSpeed ZeRO-3, the config LLaMA-Factory's full-SFT example
    names (examples/train_full/llama3_full_sft.yaml: ds_z3_config.json). The plan says
    which it took (finding ``assumed_recipe_defaults``); the ZeRO stage stays the
    search's to choose unless the user states one.
    """
    return "deepspeed_zero3" if method == "full" and gpus > 1 else "llamafactory"


def _stated(given: bool | None, default: bool) -> bool:
    return default if given is None else given


@dataclass(frozen=True, slots=True)
class _Defaults:
    """What a recipe (or, without one, the Hugging Face mixed-precision default) fills in."""

    optimizer: str = "adamw"
    checkpointing: bool = True
    loss: str = "standard"
    master_weights: bool = True
    in_backward: bool = False
    rank: int = LORA_RANK
    targets: str = "all_linear"
    foreach_step: bool = False
    live_params: float = 0.0
    autocast: bool = True


def _recipe_defaults(r: TrainingRecipe | None, method: str, gpus: int) -> _Defaults:
    if r is None:
        return _Defaults()
    single_full = method == "full" and gpus == 1
    return _Defaults(
        optimizer=(r.single_gpu_full_optimizer if single_full else None) or r.optimizer,
        checkpointing=r.gradient_checkpointing,
        loss=r.loss,
        master_weights=r.full_master_weights if method == "full" else r.adapter_fp32,
        in_backward=single_full and r.single_gpu_full_optimizer_in_backward,
        rank=r.lora_rank,
        targets=r.lora_targets,
        foreach_step=r.foreach_step,
        live_params=r.live_params or 0.0,
        autocast=r.autocast,
    )


def zero_stage_for(w: Workload, recipes: Mapping[str, TrainingRecipe], gpus: int) -> int:
    """The ZeRO stage on ``gpus`` GPUs: the user's, else the recipe's, else full sharding."""
    return _zero_stage(w, recipes.get(w.recipe) if w.recipe else None, gpus)


def _zero_stage(w: Workload, r: TrainingRecipe | None, gpus: int) -> int:
    if w.zero_stage is not None:
        return w.zero_stage
    if r is not None and r.zero_stage is not None:
        return r.zero_stage
    return 0 if gpus == 1 else 3


def names_zero_stage(w: Workload, recipes: Mapping[str, TrainingRecipe]) -> bool:
    """The user or the named recipe (DeepSpeed ZeRO-n) fixed the stage, so a search keeps it."""
    recipe = recipes.get(w.recipe) if w.recipe else None
    return w.zero_stage is not None or (recipe is not None and recipe.zero_stage is not None)


def _recipe_finding(r: TrainingRecipe, s: TrainSetup) -> Finding:
    """The recipe's defaults as the setup took them (the user's own settings already in)."""
    loss = "fused" if s.fused_ce else "chunked" if s.chunked_ce else "standard"
    return finding(
        "assumed_recipe_defaults",
        recipe=r.id,
        checkpointing=s.gradient_checkpointing,
        states="fp32" if s.master_weights else "bf16",
        loss=f"loss_{loss}",
        optimizer=s.optimizer,
        foreach=s.foreach_step,
    )


def grad_accumulation(batch_size: int) -> int:
    """Micro-batches per optimizer step so each GPU sees ~16 sequences per gradient sync."""
    return max(1, SEQUENCES_PER_STEP // batch_size)
