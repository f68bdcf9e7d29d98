"""The conversation's slots, typed: what a user has said about the job so far.

Every key is a field of ``engine.workload.Workload`` (the slots *are* the workload in the
making, ``bot.dialog.workload.to_workload``) except ``current_cost``, what the user pays
now, which only the dialog compares against. ``tests/bot/dialog/test_slots.py`` holds the
keys to the Workload's fields, so a new field cannot be forgotten here.
"""

from __future__ import annotations

from typing import Any, cast

from typing_extensions import TypedDict


class Money(TypedDict):
    amount: float
    currency: str
    per: str


class Slots(TypedDict, total=False):
    task: str
    model: str
    hf_config: dict[str, Any]
    params_b: float
    layers: int
    hidden_size: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    method: str
    weight_dtype: str
    optimizer: str
    batch_size: int
    seq_len: int
    gradient_checkpointing: bool
    fused_ce: bool
    chunked_ce: bool
    master_weights: bool
    optimizer_in_backward: bool
    activation_offloading: bool
    selective_checkpointing: bool
    zero_stage: int
    recipe: str
    lora_targets: str
    gpus: int
    lora_rank: int
    train_tokens: float
    pretrain: bool
    kv_dtype: str
    context_len: int
    concurrency: int
    qps: float
    prompt_tokens: int
    output_tokens: int
    tensor_parallel: int
    attention_dp: bool
    expert_parallel: int
    prefill_gpus: int
    prefill_tensor_parallel: int
    max_num_seqs: int
    max_num_batched_tokens: int
    gpu_memory_utilization: float
    runtime_version: str
    ttft_ms_max: float
    runtime: str
    ttft_ms_p99: float
    tpot_ms_p99: float
    utilisation_target: float
    shared_prefix_tokens: int
    gpu: str
    gpu_count: int
    gpu_owned: bool
    budget: Money
    duration_hours: float
    deadline_hours: float
    always_on: bool
    exclude_gpus: list[str]
    exclude_segments: list[str]
    only_vendor: str
    domestic_only: bool
    free_platform: bool
    claims: list[str]
    current_cost: Money


EXTRA_SLOTS = frozenset({"current_cost"})
"""Slots that are not Workload fields."""


def as_slots(values: dict[str, Any]) -> Slots:
    """A reader's slots (Workload field names, ``reading.requirements.Extraction.slots``) as ``Slots``."""
    return cast(Slots, {k: v for k, v in values.items() if k in Slots.__annotations__})


def loose(slots: Slots) -> dict[str, Any]:
    """The slots as a plain mapping, for code that walks them by a computed key."""
    return cast(dict[str, Any], slots)
