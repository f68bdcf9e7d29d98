"""The Workload: what the user wants to run, as the public JSON contract spells it.

Field names are API (rental sites integrate against them); new fields may be added,
existing ones never renamed. Validation is strict about types and ranges so a bad
request fails with the field's name instead of producing a confident wrong plan.
Quantities may be numbers in the unit the field's name says, or text with a unit
(``"context_len": "128k tokens"``, ``"duration_hours": "3 days"``, ``"ttft_ms_max":
"2 s"``, ``"budget": "3 USD/hour"``), converted through ``engine.units``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    PositiveFloat,
    PositiveInt,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gpu_advisor.engine.rules.myth_claims import CLAIMS
from gpu_advisor.engine.specs import Segment
from gpu_advisor.engine.train_recipes import Recipe
from gpu_advisor.engine.units import in_units, per_hour

Task = Literal["train", "infer", "both"]
Method = Literal["full", "lora", "qlora"]
WeightDtype = Literal[
    "fp32",
    "fp16",
    "bf16",
    "fp8",
    "int8",
    "int4",
    "awq",
    "gptq",
    "q4_k_m",
    "q4_0",
    "q8_0",
    "nf4",
    "mxfp4",
    "nvfp4",
]
KvDtype = Literal["fp16", "bf16", "fp8", "int8"]
Optimizer = Literal["adamw", "adamw_8bit", "sgd", "adafactor", "paged_adamw", "paged_adamw_8bit"]
Period = Literal["month", "hour", "total"]
Runtime = Literal["vllm", "tensorrt_llm", "sglang", "llama_cpp", "transformers"]
# A claim a request rests on ("Adam only doubles memory"): the id of a myth rule without
# "myth_", one of engine.rules.myth_claims.CLAIMS (held equal to the myth declarations by a test).
Claim = Annotated[str, Field(pattern=r"^[a-z0-9_]{1,64}$")]

MAX_PARAMS_B = 10_000.0
# Floors of the contract, far below any real request and far above the floats that underflow
# the arithmetic (a qps of 5e-324 divided a latency by zero): a million parameters, and one
# query in about thirty years.
MIN_PARAMS_B = 0.001
MIN_QPS = 1e-9
Tokens = Annotated[PositiveInt, in_units("token")]  # 4096, or "128k tokens"
MAX_CONTEXT = 2_097_152


BUDGET_TEXT = re.compile(
    r"(?P<amount>\d+(?:\.\d+)?)\s*(?P<currency>[A-Za-z]{3})\s*(?:(?:/|per\s)\s*(?P<period>[A-Za-z]+)|(?P<total>total))?"
)
PERIODS: dict[str, Period] = {
    **dict.fromkeys(("month", "mo"), "month"),
    **dict.fromkeys(("hour", "h", "hr"), "hour"),
    "total": "total",
}


class Budget(BaseModel):
    model_config = ConfigDict(extra="forbid")

    amount: PositiveFloat
    currency: str = Field("CNY", pattern=r"^[A-Z]{3}$")
    per: Period = "month"

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        """``"3 USD/hour"``, ``"20000 CNY/month"``, ``"500 USD total"``; other periods (``/day``) per hour."""
        if not isinstance(data, str):
            return data
        match = BUDGET_TEXT.fullmatch(data.strip())
        if match is None:
            raise ValueError(f"{data!r}: write a budget as '3 USD/hour', '2000 CNY/month' or '500 USD total'")
        amount, currency = float(match["amount"]), match["currency"].upper()
        period = "total" if match["total"] else match["period"] or "month"
        per = PERIODS.get(period.lower())
        if per is None:  # "/day", "/week": the same money per hour
            return {"amount": amount / per_hour(period), "currency": currency, "per": "hour"}
        return {"amount": amount, "currency": currency, "per": per}


class Workload(BaseModel):
    """A request for sizing. Unset fields get documented defaults in ``engine.defaults``."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, populate_by_name=True)

    task: Task
    model: str | None = None
    # A Hugging Face config.json, as the JSON contract's ``model_config`` (pydantic keeps
    # that attribute name for itself, hence the alias); it defines the model exactly.
    hf_config: dict[str, Any] | None = Field(None, alias="model_config")
    params_b: float | None = Field(None, ge=MIN_PARAMS_B, le=MAX_PARAMS_B)
    layers: PositiveInt | None = Field(None, le=1024)
    hidden_size: PositiveInt | None = Field(None, le=131072)
    num_heads: PositiveInt | None = Field(None, le=1024)
    num_kv_heads: PositiveInt | None = Field(None, le=1024)
    head_dim: PositiveInt | None = Field(None, le=4096)
    intermediate_size: PositiveInt | None = Field(None, le=1_048_576)
    vocab_size: PositiveInt | None = Field(None, le=4_194_304)

    # training
    method: Method | None = None
    weight_dtype: WeightDtype | None = None
    optimizer: Optimizer | None = None
    batch_size: PositiveInt | None = Field(None, le=65536)
    seq_len: Tokens | None = Field(None, le=MAX_CONTEXT)
    gradient_checkpointing: bool | None = None
    fused_ce: bool | None = Field(
        None,
        description="a chunked/fused cross-entropy (Liger, torchtune, unsloth) instead of Hugging Face's "
        "fp32 logits buffer; unset means the Hugging Face default",
    )
    chunked_ce: bool | None = Field(
        None,
        description="torchtune's chunked cross-entropy (CEWithChunkedOutputLoss): bf16 logits kept whole, "
        "upcast one chunk at a time; unset means the Hugging Face default",
    )
    master_weights: bool | None = Field(
        None,
        description="an fp32 master copy of the weights with fp32 optimizer moments (mixed precision, the "
        "default); false = pure bf16 training as torchtune does it, moments in bf16",
    )
    optimizer_in_backward: bool | None = Field(
        None,
        description="the optimizer step fused into backward (torchtune optimizer_in_bwd): each gradient is "
        "applied and freed at once",
    )
    activation_offloading: bool | None = Field(
        None,
        description="checkpointed activations moved to CPU memory (torchtune enable_activation_offloading)",
    )
    selective_checkpointing: bool | None = Field(
        None,
        description="per-op selective activation checkpointing (torchtitan's 'op' policy) where full "
        "recomputation is off: every second matmul and attention saved, the rest recomputed",
    )
    zero_stage: int | None = Field(None, ge=0, le=3)
    gpus: PositiveInt | None = Field(None, le=4096)
    lora_rank: PositiveInt | None = Field(None, le=4096)
    lora_targets: Literal["all_linear", "attention"] | None = Field(
        None,
        description="the layers LoRA adapts: every linear layer, or q and v only; unset means the recipe's "
        "default (engine.train_recipes)",
    )
    recipe: Recipe | None = Field(
        None,
        description="the fine-tuning framework that runs the job (LLaMA-Factory, torchtune, ms-swift, "
        "DeepSpeed ZeRO-1/2/3 through the Hugging Face Trainer): what is not stated takes its defaults "
        "(knowledge/training_recipes.yaml)",
    )
    train_tokens: Annotated[PositiveFloat | None, in_units("token")] = Field(None, le=1e15)
    pretrain: bool | None = Field(
        None,
        description="training from scratch (预训练): every weight is trained, never LoRA/QLoRA; unset, a "
        "token count of 20 or more per parameter reads as pretraining (engine.plan_checks)",
    )

    # inference
    kv_dtype: KvDtype | None = None
    context_len: Tokens | None = Field(None, le=MAX_CONTEXT)
    concurrency: PositiveInt | None = Field(None, le=100_000)
    qps: float | None = Field(None, ge=MIN_QPS, le=1e6)
    prompt_tokens: Tokens | None = Field(None, le=MAX_CONTEXT)
    output_tokens: Tokens | None = Field(None, le=MAX_CONTEXT)
    tensor_parallel: PositiveInt | None = Field(None, le=64)
    ttft_ms_max: Annotated[PositiveFloat | None, in_units("ms")] = Field(None, le=3_600_000)
    runtime: Runtime | None = None
    # tail-latency targets (engine.queueing): p99 time to first token and per output token
    ttft_ms_p99: Annotated[PositiveFloat | None, in_units("ms")] = Field(None, le=3_600_000)
    tpot_ms_p99: Annotated[PositiveFloat | None, in_units("ms")] = Field(
        None, le=60_000, validation_alias=AliasChoices("tpot_ms_p99", "itl_ms_p99")
    )
    utilisation_target: float | None = Field(None, gt=0.05, le=1.0)
    shared_prefix_tokens: Tokens | None = Field(None, le=MAX_CONTEXT)
    # SGLang's --enable-dp-attention with expert parallelism: each GPU runs attention for
    # its own share of the sequences, so an MLA latent cache is no longer copied on every
    # tensor-parallel rank (engine.replica.per_gpu)
    attention_dp: bool | None = None
    # Expert-parallel size of the MoE layers (vLLM --enable-expert-parallel, SGLang --ep-size):
    # whole experts per GPU instead of every expert split; sized as tensor parallel of the same
    # GPUs, said as an assumption (engine.defaults.serve_setup)
    expert_parallel: PositiveInt | None = Field(None, le=4096)
    # Prefill/decode disaggregation (engine.disaggregation): prompts run on ``prefill_gpus``
    # of the ``gpu_count`` GPUs and answers on the rest, the KV cache moving between them
    # (SGLang --disaggregation-mode prefill|decode, NVIDIA Dynamo prefill/decode workers,
    # vLLM's disaggregated-prefill connectors). ``tensor_parallel`` is then the decode
    # instances' degree, ``prefill_tensor_parallel`` the prefill instances'.
    prefill_gpus: PositiveInt | None = Field(None, le=4096)
    prefill_tensor_parallel: PositiveInt | None = Field(None, le=64)
    # The runtime's scheduler limits when the user set them (vLLM --max-num-seqs and
    # --max-num-batched-tokens, SGLang --max-running-requests and --chunked-prefill-size,
    # TensorRT-LLM max_batch_size and max_num_tokens): sequences running at once per
    # scheduler, and tokens one forward pass may carry. Unset: the runtime's defaults
    # (knowledge/runtimes.yaml).
    max_num_seqs: PositiveInt | None = Field(None, le=65_536)
    max_num_batched_tokens: PositiveInt | None = Field(None, ge=16, le=1_048_576)
    # The share of each card the serving runtime fills with weights and KV cache when the user
    # sets it (vLLM --gpu-memory-utilization, SGLang --mem-fraction-static); unset: the runtime's
    # default (vLLM 0.9; SGLang's follows the card: knowledge/runtimes.yaml).
    gpu_memory_utilization: float | None = Field(None, gt=0.0, le=0.99)
    # The runtime release the user runs ("0.6.3", "v0.4.1.post2") or its date ("2024-12"): the
    # answer says which documented changes lie between it and the release the figures are for.
    runtime_version: str | None = Field(
        None, max_length=32, pattern=r"^(v?\d+(\.\d+){0,3}([.+-]?[A-Za-z0-9]+)*|\d{4}-\d{2}(-\d{2})?)$"
    )

    # common
    gpu: str | None = None
    gpu_count: PositiveInt | None = Field(None, le=4096)
    gpu_owned: bool | None = None
    budget: Budget | None = None
    duration_hours: Annotated[PositiveFloat | None, in_units("h")] = Field(None, le=87_600)
    # a training job must finish within this many hours ("一周内训完", "within 48 hours"):
    # plans that take longer are not offered as the pick (engine.rules.deadline)
    deadline_hours: Annotated[PositiveFloat | None, in_units("h")] = Field(None, le=87_600)
    always_on: bool | None = None
    # cards the user rules out or in ("不要 3090", "no consumer cards", "只用国产卡"); the
    # search leaves the rest out (engine.offer_search.allowed_gpus), the reply echoes them
    exclude_gpus: list[str] | None = None
    exclude_segments: list[Segment] | None = None
    only_vendor: str | None = None
    domestic_only: bool | None = None
    free_platform: bool | None = None
    claims: list[Claim] | None = None

    @field_validator("claims")
    @classmethod
    def _known_claims(cls, claims: list[str] | None) -> list[str] | None:
        unknown = sorted(set(claims or ()) - CLAIMS)
        if unknown:
            raise PydanticCustomError(
                "unknown_claim",
                "unknown claim {unknown}; known: {known}",
                {"unknown": unknown, "known": sorted(CLAIMS)},
            )
        return claims

    @model_validator(mode="after")
    def _consistent(self) -> Workload:
        if self.model is None and self.params_b is None and self.hf_config is None:
            raise PydanticCustomError(
                "missing_model", "give 'model' (a known name), 'params_b' or 'model_config' (a config.json)"
            )
        if self.expert_parallel and self.gpu_count and self.expert_parallel > self.gpu_count:
            raise PydanticCustomError("expert_parallel_exceeds_gpus", "expert_parallel exceeds gpu_count")
        if self.prompt_tokens and self.context_len and self.prompt_tokens > self.context_len:
            raise PydanticCustomError("prompt_exceeds_context", "prompt_tokens exceeds context_len")
        if (
            self.shared_prefix_tokens
            and self.prompt_tokens
            and self.shared_prefix_tokens > self.prompt_tokens
        ):
            raise PydanticCustomError("prefix_exceeds_prompt", "shared_prefix_tokens exceeds prompt_tokens")
        _check_disaggregation(self)
        return self


DISAGGREGATING_RUNTIMES = ("vllm", "sglang", "tensorrt_llm")


def _check_disaggregation(w: Workload) -> None:
    """A stated prefill/decode split must leave GPUs for both pools and whole instances in each."""
    if w.prefill_tensor_parallel is not None and w.prefill_gpus is None:
        raise PydanticCustomError(
            "prefill_tp_without_prefill_gpus", "prefill_tensor_parallel needs prefill_gpus (the prefill pool)"
        )
    if w.prefill_gpus is None:
        return
    if w.task != "infer":
        raise PydanticCustomError(
            "prefill_gpus_not_serving", "prefill_gpus splits a serving deployment (task 'infer')"
        )
    if w.gpu_count is None or w.prefill_gpus >= w.gpu_count:
        raise PydanticCustomError(
            "prefill_gpus_exceed_gpu_count",
            "prefill_gpus must be fewer than gpu_count: the rest of the GPUs decode",
        )
    if w.runtime is not None and w.runtime not in DISAGGREGATING_RUNTIMES:
        raise PydanticCustomError(
            "runtime_cannot_disaggregate",
            "{runtime} has no prefill/decode disaggregation; use one of {runtimes}",
            {"runtime": w.runtime, "runtimes": list(DISAGGREGATING_RUNTIMES)},
        )
    if w.prefill_tensor_parallel is not None and w.prefill_gpus % w.prefill_tensor_parallel:
        raise PydanticCustomError(
            "prefill_gpus_not_whole_instances",
            "prefill_gpus ({gpus}) is not a multiple of prefill_tensor_parallel ({tp})",
            {"gpus": w.prefill_gpus, "tp": w.prefill_tensor_parallel},
        )
    decode = w.gpu_count - w.prefill_gpus
    if w.tensor_parallel is not None and decode % w.tensor_parallel:
        raise PydanticCustomError(
            "decode_gpus_not_whole_instances",
            "the {decode} decode GPUs (gpu_count − prefill_gpus) are no multiple of tensor_parallel ({tp})",
            {"decode": decode, "tp": w.tensor_parallel},
        )


# Which field a whole-model validation error is about, for error messages that name a field.
MODEL_LEVEL_ERROR_FIELDS = {
    "missing_model": "model",
    "prompt_exceeds_context": "prompt_tokens",
    "expert_parallel_exceeds_gpus": "expert_parallel",
    "prefix_exceeds_prompt": "shared_prefix_tokens",
    "prefill_tp_without_prefill_gpus": "prefill_tensor_parallel",
    "prefill_gpus_not_serving": "prefill_gpus",
    "prefill_gpus_exceed_gpu_count": "prefill_gpus",
    "runtime_cannot_disaggregate": "runtime",
    "prefill_gpus_not_whole_instances": "prefill_tensor_parallel",
    "decode_gpus_not_whole_instances": "tensor_parallel",
}
