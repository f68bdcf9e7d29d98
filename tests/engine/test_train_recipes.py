"""A named fine-tuning recipe fills in what the user did not say, and the plan says so (issue 45).

The defaults are knowledge/training_recipes.yaml's (each with its source); a user's own
setting always wins over them.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from gpu_advisor.engine.defaults import names_zero_stage, train_setup
from gpu_advisor.engine.memory import TrainSetup, training_memory
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.train_recipes import RECIPES
from gpu_advisor.engine.train_terms import gathered_layer_bytes
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge import training_recipes
from gpu_advisor.knowledge.reading import KnowledgeError


def _setup(kb: Knowledge, gpus: int = 1, **request: Any) -> tuple[TrainSetup, list[Any]]:
    w = Workload(task="train", model="qwen2.5-7b", gpus=gpus, **request)
    return train_setup(w, kb.models["qwen2.5-7b"], None, gpus, kb.training_recipes)


def test_every_recipe_the_contract_accepts_has_sourced_defaults(kb: Knowledge) -> None:
    assert set(kb.training_recipes) == set(RECIPES)
    assert all(r.sources and r.sources[0].url.startswith("https://") for r in kb.training_recipes.values())


def test_a_recipe_missing_from_the_table_is_refused_at_load(kb: Knowledge) -> None:
    rows = [r.model_dump() for r in kb.training_recipes.values() if r.id != "torchtune"]
    with pytest.raises(KnowledgeError, match="torchtune"):
        training_recipes.table(rows)


def test_a_misspelt_default_is_refused_at_load(kb: Knowledge) -> None:
    rows = [r.model_dump() for r in kb.training_recipes.values()]
    rows[0]["gradient_checkpoint"] = True
    with pytest.raises(KnowledgeError, match="gradient_checkpoint"):
        training_recipes.table(rows)


def test_an_unknown_recipe_is_refused_by_the_contract() -> None:
    with pytest.raises(ValidationError, match="recipe"):
        Workload(task="train", model="qwen2.5-7b", recipe="axolotl")


def test_ms_swift_trains_a_full_fine_tune_in_bf16_with_a_foreach_step(kb: Knowledge) -> None:
    setup, _ = _setup(kb, recipe="ms_swift", method="full")
    assert (setup.master_weights, setup.foreach_step, setup.gradient_checkpointing) == (False, True, True)


def test_the_users_own_setting_wins_over_the_recipe(kb: Knowledge) -> None:
    setup, _ = _setup(kb, recipe="ms_swift", method="full", master_weights=True, gradient_checkpointing=False)
    assert (setup.master_weights, setup.gradient_checkpointing) == (True, False)


def test_torchtune_pages_an_8bit_optimizer_only_for_a_single_gpu_full_fine_tune(kb: Knowledge) -> None:
    one, _ = _setup(kb, recipe="torchtune", method="full")
    two, _ = _setup(kb, gpus=2, recipe="torchtune", method="full")
    assert (one.optimizer, one.optimizer_in_backward, one.chunked_ce) == ("paged_adamw_8bit", True, True)
    assert (two.optimizer, two.optimizer_in_backward) == ("adamw", False)


def test_a_deepspeed_recipe_names_its_zero_stage_unless_the_user_does(kb: Knowledge) -> None:
    assert _setup(kb, gpus=2, recipe="deepspeed_zero2", method="lora")[0].zero_stage == 2
    assert _setup(kb, gpus=2, recipe="deepspeed_zero2", method="lora", zero_stage=3)[0].zero_stage == 3


def test_the_plan_says_which_recipe_defaults_it_took(kb: Knowledge) -> None:
    _, said = _setup(kb, recipe="torchtune", method="lora")
    recipe = next(f for f in said if f.id == "assumed_recipe_defaults")
    assert recipe.values["recipe"] == "torchtune" and recipe.values["states"] == "bf16"


def test_without_a_recipe_one_gpu_is_sized_with_llamafactory_defaults_and_says_so(kb: Knowledge) -> None:
    setup, said = _setup(kb, method="lora")
    recipe = next(f for f in said if f.id == "assumed_recipe_defaults")
    assert recipe.values["recipe"] == "llamafactory"
    assert (setup.lora_rank, setup.foreach_step, setup.gradient_checkpointing) == (8, True, True)


def test_without_a_recipe_a_full_fine_tune_on_several_gpus_is_sized_as_deepspeed_zero3(kb: Knowledge) -> None:
    """LLaMA-Factory's full-SFT example runs ds_z3_config.json: a billion gathered parameters live."""
    setup, said = _setup(kb, gpus=4, method="full")
    assert next(f for f in said if f.id == "assumed_recipe_defaults").values["recipe"] == "deepspeed_zero3"
    assert (setup.zero_stage, setup.live_params, setup.autocast) == (3, 1e9, False)


def test_the_default_recipe_leaves_the_zero_stage_to_the_search(kb: Knowledge) -> None:
    w = Workload(task="train", model="qwen2.5-7b", gpus=4, method="full")
    assert not names_zero_stage(w, kb.training_recipes)


def test_a_stated_setting_wins_over_the_default_recipe(kb: Knowledge) -> None:
    setup, _ = _setup(kb, method="lora", lora_rank=64, gradient_checkpointing=False)
    assert (setup.lora_rank, setup.gradient_checkpointing) == (64, False)


def test_a_foreach_step_adds_a_bf16_moment_beyond_the_activations(kb: Knowledge) -> None:
    """Qwen2.5-7B full in bf16: the step's sqrt(v) temporary is 2 bytes per parameter."""
    arch = kb.models["qwen2.5-7b"]
    plain = TrainSetup(method="full", master_weights=False, seq_len=256)
    foreach = TrainSetup(method="full", master_weights=False, seq_len=256, foreach_step=True)
    acts = training_memory(arch, plain).activations
    extra = training_memory(arch, foreach).total - training_memory(arch, plain).total
    assert extra == pytest.approx((arch.params_b * 1e9 * 2.0 - acts) * 1.05, rel=1e-6)


def test_a_fused_or_paged_step_holds_no_temporary(kb: Knowledge) -> None:
    arch = kb.models["qwen2.5-7b"]
    paged = TrainSetup(method="full", master_weights=False, optimizer="paged_adamw", foreach_step=True)
    assert training_memory(arch, paged).notes["step_workspace_bytes"] == 0.0


def test_deepspeed_zero3_keeps_up_to_its_live_parameter_limit_gathered(kb: Knowledge) -> None:
    """stage3_max_live_parameters 1e9 in bf16: 2 GB resident, against FSDP's two layers."""
    arch = kb.models["qwen2.5-7b"]
    deepspeed = gathered_layer_bytes(arch, "bf16", 2, 3, live_params=1e9)
    fsdp = gathered_layer_bytes(arch, "bf16", 2, 3)
    assert deepspeed == pytest.approx(2e9) and fsdp < 1 * GiB


def test_a_deepspeed_recipe_fixes_the_stage_the_search_may_try(kb: Knowledge) -> None:
    def named(**request: Any) -> bool:
        return names_zero_stage(Workload(task="train", model="qwen2.5-7b", **request), kb.training_recipes)

    assert named(recipe="deepspeed_zero2") and named(zero_stage=1)
    assert not named(recipe="ms_swift") and not named()


def test_a_zero_stage_on_one_gpu_changes_nothing(kb: Knowledge) -> None:
    """A DeepSpeed recipe's stage on a single GPU shards over one: the same bytes as stage 0."""
    arch = kb.models["qwen2.5-7b"]
    one = TrainSetup(method="lora", zero_stage=2, gpus=1, foreach_step=True)
    plain = TrainSetup(method="lora", zero_stage=0, gpus=1, foreach_step=True)
    assert training_memory(arch, one).total == training_memory(arch, plain).total


def test_deepspeed_holds_no_autocast_copy_of_the_weights(kb: Knowledge) -> None:
    """Its bf16 mode runs the module in bf16 with fp32 masters in the optimizer: 2 bytes a parameter less."""
    arch = kb.models["qwen2.5-7b"]
    hf = TrainSetup(method="full", zero_stage=2, gpus=8, seq_len=256)
    deepspeed = TrainSetup(method="full", zero_stage=2, gpus=8, seq_len=256, autocast=False)
    saved = training_memory(arch, hf).total - training_memory(arch, deepspeed).total
    assert saved == pytest.approx(2.0 * arch.params_b * 1e9, rel=1e-6)
