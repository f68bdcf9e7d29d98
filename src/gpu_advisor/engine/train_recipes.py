"""What a fine-tuning framework does when the user sets nothing: its recipe defaults (issue 45).

The same model, method, batch and length peak at very different memory depending on
the framework that runs them, because each defaults differently: activation
checkpointing, the dtype of the optimizer states (an fp32 master copy or none), the
loss (full fp32 logits, torchtune's chunked cross-entropy, a fused one), LoRA's rank and
targets, the optimizer and how it steps, and how ZeRO-3 gathers weights. The values of
each recipe live in ``knowledge/training_recipes.yaml``, each with the file or page it
was read from; this module holds the record, and ``engine.defaults.train_setup``
applies one under whatever the user stated.

A user's own setting always wins over the recipe's; the plan says which recipe
defaults it took (``engine.defaults``, finding ``assumed_recipe_defaults``).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from gpu_advisor.engine.record import Record

Recipe = Literal[
    "llamafactory", "torchtune", "ms_swift", "deepspeed_zero1", "deepspeed_zero2", "deepspeed_zero3"
]
RECIPES: tuple[Recipe, ...] = get_args(Recipe)
Loss = Literal["standard", "chunked", "fused"]
StepOptimizer = Literal["adamw", "adamw_8bit", "sgd", "adafactor", "paged_adamw", "paged_adamw_8bit"]


class RecipeSource(Record):
    """Where one default was read: what it says and the URL of the file or page."""

    claim: str = Field(min_length=8)
    url: str = Field(pattern=r"^https://")


class TrainingRecipe(Record):
    """The defaults one framework trains with (``knowledge/training_recipes.yaml``)."""

    id: Recipe
    gradient_checkpointing: bool = Field(description="activation checkpointing on unless turned off")
    full_master_weights: bool = Field(
        description="a full fine-tune keeps fp32 weights or masters and fp32 Adam moments; "
        "false: weights and moments in bf16"
    )
    adapter_fp32: bool = Field(description="LoRA adapters (and their moments) upcast to fp32")
    loss: Loss
    lora_rank: int = Field(gt=0, le=4096)
    lora_targets: Literal["all_linear", "attention"]
    optimizer: StepOptimizer
    # torchtune's single-device full fine-tune swaps in an 8-bit paged optimizer stepped in backward
    single_gpu_full_optimizer: StepOptimizer | None = None
    single_gpu_full_optimizer_in_backward: bool = False
    foreach_step: bool = Field(
        description="torch.optim's multi-tensor (foreach) step: one moment-sized temporary at the step"
    )
    zero_stage: int | None = Field(None, ge=0, le=3, description="the ZeRO stage the recipe names")
    autocast: bool = Field(
        True,
        description="mixed precision by torch.autocast, which holds a bf16 copy of each fp32 trainable "
        "weight; false where the framework (DeepSpeed's bf16 mode) runs the module in bf16 itself",
    )
    live_params: float | None = Field(
        None, gt=0, description="DeepSpeed stage3_max_live_parameters: gathered parameters kept resident"
    )
    sources: tuple[RecipeSource, ...] = Field(min_length=1)
